"""The probes a run makes before its agent starts (a CLI's ``--version``, that the judge's SDK imports) are kept
across processes only while the probed files stay the same (issue 45 item 9: a first click paid them again).

Each test gets a cache folder of its own (``EVALENS_CACHE_DIR``); "a new process" is this process with its own
memory forgotten (``forget_versions``, the module dropped from ``sys.modules``), so what remains is the file cache.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from evalens.runner import preflight, probe_cache
from evalens.runner.engines.base import binary_version, forget_versions
from evalens.runner.judge import JudgeFailed, JudgeSpec, ask_parsed


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("EVALENS_CACHE_DIR", str(folder))
    forget_versions()
    yield folder
    forget_versions()


def _cli(path: Path, version: str, exit_code: int = 0) -> Path:
    """A CLI that answers ``--version`` and counts how often it was asked (``<path>.calls``)."""
    new = path.with_suffix(".new")
    new.write_text(f'#!/bin/sh\necho x >> "{path}.calls"\necho "{version}"\nexit {exit_code}\n')
    new.chmod(0o755)
    os.replace(new, path)  # as npm does: a new file, not the old one rewritten
    return path


def _calls(path: Path) -> int:
    calls = Path(f"{path}.calls")
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def test_a_cli_version_is_asked_once_per_installed_file(tmp_path: Path) -> None:
    cli = _cli(tmp_path / "claude", "2.1.332 (Claude Code)")
    assert binary_version(str(cli)) == "2.1.332 (Claude Code)" and _calls(cli) == 1
    assert binary_version(str(cli)) == "2.1.332 (Claude Code)" and _calls(cli) == 1  # this process remembers
    forget_versions()  # a new process: the file cache answers
    assert binary_version(str(cli)) == "2.1.332 (Claude Code)" and _calls(cli) == 1


def test_a_replaced_cli_is_asked_again_also_by_a_process_that_kept_running(tmp_path: Path) -> None:
    cli = _cli(tmp_path / "codex", "codex-cli 0.171.0")
    assert binary_version(str(cli)) == "codex-cli 0.171.0"
    _cli(cli, "codex-cli 0.172.0")  # upgraded under a running server: no forget_versions()
    assert binary_version(str(cli)) == "codex-cli 0.172.0" and _calls(cli) == 2
    forget_versions()
    assert binary_version(str(cli)) == "codex-cli 0.172.0" and _calls(cli) == 2
    os.utime(cli, ns=(1, 1))  # touched: same inode and size, another mtime and ctime
    assert binary_version(str(cli)) == "codex-cli 0.172.0" and _calls(cli) == 3


def test_the_key_of_a_linked_cli_is_the_file_it_resolves_to(tmp_path: Path) -> None:
    """``node_modules/.bin/codex`` is a link; an upgrade replaces what it points at, not the link."""
    real = _cli(tmp_path / "codex.js", "codex-cli 0.171.0")
    link = tmp_path / "codex"
    link.symlink_to(real.name)
    assert binary_version(str(link)) == "codex-cli 0.171.0"
    _cli(real, "codex-cli 0.172.0")
    forget_versions()
    assert binary_version(str(link)) == "codex-cli 0.172.0" and _calls(real) == 2


def test_a_script_cli_is_asked_again_when_its_interpreter_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``codex.js`` starts with ``#!/usr/bin/env node``: a Node replaced or removed is a CLI that may not run."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    node = bindir / "evl-node"

    def interpreter() -> None:
        new = node.with_suffix(".new")
        new.write_text('#!/bin/sh\nexec /bin/sh "$@"\n')
        new.chmod(0o755)
        os.replace(new, node)

    interpreter()
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    cli = tmp_path / "codex.js"
    cli.write_text(f'#!/usr/bin/env evl-node\necho x >> "{cli}.calls"\necho "codex-cli 0.171.0"\n')
    cli.chmod(0o755)
    assert binary_version(str(cli)) == "codex-cli 0.171.0"
    forget_versions()
    assert binary_version(str(cli)) == "codex-cli 0.171.0" and _calls(cli) == 1
    interpreter()  # Node upgraded
    forget_versions()
    assert binary_version(str(cli)) == "codex-cli 0.171.0" and _calls(cli) == 2


def test_doctor_asks_the_cli_for_real(tmp_path: Path) -> None:
    """``evalens doctor`` is where a user checks that the CLI still runs: never an answer on record."""
    cli = _cli(tmp_path / "claude", "2.1.332 (Claude Code)")
    binary_version(str(cli))
    assert binary_version(str(cli), fresh=True) == "2.1.332 (Claude Code)" and _calls(cli) == 2
    assert preflight.engine_checks.__kwdefaults__["fresh"] is False  # a run reads the record


def test_doctor_reports_a_cli_that_stopped_running_whatever_the_record_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalens.cli.doctor import collect

    broken = tmp_path / "claude"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(broken))
    monkeypatch.setattr(probe_cache, "recall", lambda kind, name, key: "2.1.332 (Claude Code)")
    assert binary_version(str(broken)) == "2.1.332 (Claude Code)"  # what a run would read
    check = next(c for c in collect("claude-code", None).checks if c.name == "claude-code CLI")
    assert check.status == "missing" and "does not run" in check.detail


def test_a_cli_that_fails_is_never_remembered(tmp_path: Path, cache: Path) -> None:
    cli = _cli(tmp_path / "claude", "half a version", exit_code=3)
    assert binary_version(str(cli)) == "half a version"  # answered as before (doctor words it)
    forget_versions()
    binary_version(str(cli))
    assert _calls(cli) == 2 and not (cache / "cli-versions.json").exists()


def test_no_cache_folder_means_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALENS_CACHE_DIR", "")
    cli = _cli(tmp_path / "claude", "2.1.332 (Claude Code)")
    binary_version(str(cli))
    forget_versions()
    binary_version(str(cli))
    assert _calls(cli) == 2


def test_an_unwritable_cache_is_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("EVALENS_CACHE_DIR", str(blocker / "cache"))
    probe_cache.remember("cli-versions", "x", [1], "v")  # no error
    assert probe_cache.recall("cli-versions", "x", [1]) is None


# --------------------------------------------------------------------------------------------- the judge SDK


@pytest.fixture
def sdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An importable stand-in for a judge SDK that counts its imports (``imports.txt`` beside it)."""
    root = tmp_path / "pkgs"
    (root / "evl_fake_sdk").mkdir(parents=True)
    _sdk(root, "")
    monkeypatch.syspath_prepend(str(root))
    yield root
    sys.modules.pop("evl_fake_sdk", None)


def _sdk(root: Path, body: str) -> None:
    init = root / "evl_fake_sdk" / "__init__.py"
    new = init.with_suffix(".new")
    new.write_text(f"open({str(root / 'imports.txt')!r}, 'a').write('x\\n')\n{body}")
    os.replace(new, init)


def _imports(root: Path) -> int:
    path = root / "imports.txt"
    return len(path.read_text().splitlines()) if path.exists() else 0


def _new_process() -> None:
    sys.modules.pop("evl_fake_sdk", None)


async def _ready() -> str | None:
    problem = await preflight.judge_sdk_ready("evl_fake_sdk")
    await asyncio.gather(*list(preflight._imports))  # an import left running beside the agent
    return problem


def test_a_judge_sdk_proven_on_the_same_files_imports_beside_the_agent(sdk: Path) -> None:
    _sdk(sdk, "import time\ntime.sleep(1.0)\n")  # a slow import, as anthropic's 2-3 s

    async def ready() -> tuple[float, str | None]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        problem = await preflight.judge_sdk_ready("evl_fake_sdk")
        waited = loop.time() - start
        await asyncio.gather(*list(preflight._imports))  # the batch goes on; the judge waits for it
        return waited, problem

    waited, problem = asyncio.run(ready())
    assert problem is None and waited >= 1.0 and _imports(sdk) == 1  # first ever: proven before the agent
    _new_process()
    waited, problem = asyncio.run(ready())
    assert problem is None and waited < 0.5  # the record is the proof: the agent need not wait
    assert "evl_fake_sdk" in sys.modules and _imports(sdk) == 2  # and the import ran all the same


def test_a_changed_judge_sdk_is_imported_before_the_agent_again(sdk: Path) -> None:
    assert asyncio.run(_ready()) is None
    _new_process()
    _sdk(sdk, "raise ImportError('a dependency is gone')\n")  # reinstalled, and now broken
    problem = asyncio.run(preflight.judge_sdk_ready("evl_fake_sdk"))
    assert problem is not None and problem.startswith("cannot start (no agent was started)")
    assert "a dependency is gone" in problem and not preflight._imports  # refused before any agent
    _new_process()
    assert asyncio.run(preflight.judge_sdk_ready("evl_fake_sdk")) is not None  # a failure is never remembered


def test_an_sdk_that_breaks_unseen_by_its_key_is_the_judges_error_never_a_pass(
    sdk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record is only a reason not to wait: the import still runs, and the judge fails on it."""
    monkeypatch.setattr(preflight, "sdk_key", lambda module: ["the same files"])
    assert asyncio.run(_ready()) is None
    _new_process()
    _sdk(sdk, "raise AttributeError('partially upgraded')\n")
    assert asyncio.run(_ready()) is None  # not refused up front: the record said it imports

    async def judge() -> None:
        spec = JudgeSpec(provider="evl_fake_sdk", model="m", key_env=())
        await ask_parsed(spec, "system", "user", lambda raw: raw, deadline=5)

    with pytest.raises(JudgeFailed, match="judge SDK not importable: AttributeError: partially upgraded"):
        asyncio.run(judge())


# ------------------------------------------------------------------------------ priming at the first Run lens


@pytest.fixture
def only_fake_sdk(sdk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The priming sees one SDK (the stand-in) and one CLI (a scripted ``codex``)."""
    monkeypatch.setattr(preflight, "SDK_MODULES", {"evl_fake_sdk": "evl_fake_sdk"})
    cli = _cli(tmp_path / "codex", "codex-cli 0.171.0")
    monkeypatch.setattr(preflight, "_cli_binaries", lambda: [str(cli)])
    return cli


def test_priming_makes_every_record_a_first_run_needs(sdk: Path, only_fake_sdk: Path) -> None:
    assert preflight.unprimed() and preflight.prime_command() == [sys.executable, "-c", preflight.PRIME]
    preflight.prime_probes()
    assert _imports(sdk) == 1 and _calls(only_fake_sdk) == 1
    assert not preflight.unprimed() and preflight.prime_command() is None  # nothing left: no child
    _new_process()
    forget_versions()
    assert asyncio.run(_ready()) is None and binary_version(str(only_fake_sdk)) == "codex-cli 0.171.0"
    assert _calls(only_fake_sdk) == 1  # the first run asked nothing again
    _cli(only_fake_sdk, "codex-cli 0.172.0")
    assert preflight.unprimed()  # an upgraded CLI is primed again


def test_no_cache_no_priming(only_fake_sdk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALENS_CACHE_DIR", "")
    assert preflight.prime_command() is None


def test_a_click_before_the_priming_child_is_done_waits_for_its_record(
    sdk: Path, only_fake_sdk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its proof is under way: the click takes its record instead of proving the SDK a second time."""
    _sdk(sdk, "import time\ntime.sleep(3)\n")  # a slow import: proving it here would take 3 s
    record = (
        "import time\ntime.sleep(0.5)\nfrom evalens.runner import preflight, probe_cache\n"
        "probe_cache.remember('sdk-imports', 'evl_fake_sdk', preflight.sdk_key('evl_fake_sdk'), True)\n"
        "time.sleep(60)\n"  # and goes on with the CLIs: the click does not wait for those
    )
    monkeypatch.setattr(preflight, "PRIME", record)
    monkeypatch.setattr(preflight, "_priming", None)
    monkeypatch.setenv("PYTHONPATH", str(sdk))  # the child finds the stand-in

    async def click_while_priming() -> tuple[float, str | None, bool]:
        task = preflight.prime_soon()
        loop = asyncio.get_running_loop()
        start = loop.time()
        problem = await preflight.judge_sdk_ready("evl_fake_sdk")
        waited = loop.time() - start
        running = not task.done()
        await asyncio.gather(*list(preflight._imports))
        await preflight.stop_priming()
        return waited, problem, running

    waited, problem, running = asyncio.run(click_while_priming())
    assert problem is None and running and waited < 2.5  # the child's record: neither its end nor a 3 s proof
    assert _imports(sdk) == 1  # imported once, beside the agent: never proven twice


def test_a_priming_child_that_hangs_is_stopped_and_the_run_proves_itself(
    sdk: Path, only_fake_sdk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preflight, "PRIME", "import time\ntime.sleep(60)\n")
    monkeypatch.setattr(preflight, "PRIMING_WAIT", 0.5)
    monkeypatch.setattr(preflight, "_priming", None)

    async def click_while_priming() -> tuple[bool, str | None]:
        task = preflight.prime_soon()
        problem = await preflight.judge_sdk_ready("evl_fake_sdk")
        return task.cancelled(), problem

    stopped, problem = asyncio.run(click_while_priming())
    assert stopped and problem is None and "evl_fake_sdk" in sys.modules and _imports(sdk) == 1
