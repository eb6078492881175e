"""The VS Code extension end to end in real VS Code: code-server + the built .vsix + the real evalens server,
driven by playwright-core and Debian's chromium (recipe: shared/reference/editors-e2e.md §3).

One code-server start serves every test in this module (CI has little time): the module fixture runs the
driver once and the tests assert on what it saw. Clicking "Run eval" runs the real ``claude`` CLI against the
fake model server (tests/fakemodel). Screenshots and logs land in build/e2e/vscode/.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.editors

REPO = Path(__file__).resolve().parents[2]
EXT_DIR = REPO / "vscode-extension"
E2E_DIR = Path(__file__).resolve().parent / "vscode"
EXAMPLE = REPO / "examples" / "pdf-tools"
VSIX = EXT_DIR / "evalens.vsix"
ARTIFACTS = REPO / "build" / "e2e" / "vscode"
CODE_SERVER = Path(
    os.environ.get("CODE_SERVER", REPO / ".tools" / "code-server" / "node_modules" / ".bin" / "code-server")
)
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LENS_CASE = "extract-text"
FAIL_CASE = "block-secrets"  # the fake agent writes a file and is not blocked: `agent-blocked` fails


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kill_group(proc: subprocess.Popen) -> None:
    """Stop a process started with start_new_session=True and everything it forked."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(
            proc.pid, signal.SIGKILL
        )  # children (extension host, language server, agents) may outlive it
    except ProcessLookupError:
        pass
    proc.wait(timeout=5)


def _vsix_is_stale() -> bool:
    if not VSIX.exists():
        return True
    built = VSIX.stat().st_mtime
    sources = [
        EXT_DIR / "package.json",
        EXT_DIR / "README.md",
        EXT_DIR / ".vscodeignore",
        *(EXT_DIR / "images").glob("*"),
        *(EXT_DIR / "src").rglob("*.ts"),
    ]
    return any(p.stat().st_mtime > built for p in sources)


def _build_vsix() -> None:
    if not (EXT_DIR / "node_modules" / ".bin" / "vsce").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXT_DIR, check=True)
    subprocess.run(["npm", "run", "--silent", "package"], cwd=EXT_DIR, check=True, stdout=subprocess.DEVNULL)


def _claude_binary() -> str | None:
    """Where the runner will find `claude` (see runner/engines/base.py): override, .tools, PATH."""
    tools = Path(os.environ.get("EVALENS_TOOLS_DIR", REPO / ".tools"))
    for candidate in (
        os.environ.get("EVALENS_CLAUDE_BIN"),
        tools / "node" / "node_modules" / ".bin" / "claude",
    ):
        if candidate and Path(candidate).exists():
            return str(candidate)
    return shutil.which("claude")


def _wait_for_port_file(path: Path, proc: subprocess.Popen, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().strip())
        if proc.poll() is not None:
            raise RuntimeError(f"fake model server exited with {proc.returncode}")
        time.sleep(0.1)
    raise RuntimeError("fake model server wrote no port file")


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"code-server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("code-server did not answer /healthz")


@pytest.fixture(scope="module")
def vscode_session(tmp_path_factory: pytest.TempPathFactory):
    if not CODE_SERVER.exists():
        pytest.skip(f"code-server not installed at {CODE_SERVER} (run .ci/install-vscode.sh)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"chromium not installed at {CHROMIUM} (run .ci/install-vscode.sh)")
    if not (E2E_DIR / "node_modules" / "playwright-core").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=E2E_DIR, check=True)
    if _claude_binary() is None:
        pytest.fail("the claude CLI is not installed (run .ci/install-agents.sh): the lens run needs it")
    t0 = time.monotonic()
    if _vsix_is_stale():
        _build_vsix()
    timings = {"vsix": round(time.monotonic() - t0, 1)}

    run = tmp_path_factory.mktemp("vscode-e2e")
    home, ud, ext = run / "home", run / "ud", run / "ext"
    for d in (home, ud / "User", ext):
        d.mkdir(parents=True)
    ws = run / "ws" / "pdf-tools"
    shutil.copytree(EXAMPLE, ws, ignore=shutil.ignore_patterns("reports"))
    (ws / "evals" / "reports").mkdir()
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)

    procs: list[subprocess.Popen] = []
    logs = []
    try:
        # 1. the fake model server (own process group; stops by itself when idle)
        port_file = run / "fakemodel.port"
        fm_log = open(ARTIFACTS / "fakemodel.log", "w")  # noqa: SIM115 - closed in teardown
        logs.append(fm_log)
        fake = subprocess.Popen(
            [
                sys.executable,
                str(REPO / "tests" / "fakemodel" / "server.py"),
                "--port-file",
                str(port_file),
                "--log-dir",
                str(ARTIFACTS / "fakemodel"),
                "--idle-timeout",
                "600",
                "--scenarios",
                str(E2E_DIR / "scenarios.json"),
                "--default-scenario",
                "extract",
            ],
            stdout=fm_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(fake)
        fake_port = _wait_for_port_file(port_file, fake)

        # 2. a fresh code-server profile whose evalens server is this interpreter's `python -m evalens lsp`
        settings = json.loads((E2E_DIR / "settings.json").read_text())
        settings.update({"evalens.server.path": sys.executable, "evalens.server.args": []})
        (ud / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
        port = _free_port()
        config = run / "config.yaml"
        config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CLAUDE"))}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_CACHE_HOME=str(home / ".cache"),
            XDG_STATE_HOME=str(home / ".local/state"),
            ANTHROPIC_BASE_URL=f"http://127.0.0.1:{fake_port}",
            ANTHROPIC_API_KEY="sk-ant-fake-e2e",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_MAX_RETRIES="1",
            EVALENS_TOOLS_DIR=os.environ.get("EVALENS_TOOLS_DIR", str(REPO / ".tools")),
        )
        cs_args = [
            str(CODE_SERVER),
            "--config",
            str(config),
            "--user-data-dir",
            str(ud),
            "--extensions-dir",
            str(ext),
        ]
        t1 = time.monotonic()
        subprocess.run(
            [*cs_args, "--install-extension", str(VSIX)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            timeout=120,
        )
        timings["install"] = round(time.monotonic() - t1, 1)
        cs_log = open(ARTIFACTS / "code-server.log", "w")  # noqa: SIM115 - closed in teardown
        logs.append(cs_log)
        cs = subprocess.Popen(
            [*cs_args, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", str(ws)],
            env=env,
            stdout=cs_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(cs)
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(base, cs)

        # 3. drive it
        result_file = ARTIFACTS / "result.json"
        t2 = time.monotonic()
        drive = subprocess.run(
            ["node", str(E2E_DIR / "drive.js"), base, str(ws)],
            env={
                **env,
                "SHOT_DIR": str(ARTIFACTS),
                "RESULT_FILE": str(result_file),
                "CHROMIUM": CHROMIUM,
                "RUN_LENS": "1",
                "CASE_NAME": LENS_CASE,
                "FAIL_CASE_NAME": FAIL_CASE,
            },
            cwd=E2E_DIR,
            capture_output=True,
            text=True,
            timeout=600,
        )
        timings["drive"] = round(time.monotonic() - t2, 1)
        (ARTIFACTS / "drive.log").write_text(drive.stdout + drive.stderr)
        result = json.loads(result_file.read_text()) if result_file.exists() else {"steps": []}
        result.update(
            timings=timings,
            driver_output=drive.stdout + drive.stderr,
            ext_log=_extension_log(ud),
        )
        print(f"vscode e2e timings: {timings}")
        yield result
    finally:
        for proc in reversed(procs):
            _kill_group(proc)
        for fh in logs:
            fh.close()
        for log in ud.rglob("*.log"):
            if "evalens" in log.name or "exthost" in log.name:
                shutil.copy(log, ARTIFACTS / log.name)


def _extension_log(ud: Path) -> str:
    """The extension's LogOutputChannel ("evalens") as written by code-server."""
    texts = [p.read_text(errors="replace") for p in ud.rglob("*evalens*.log")]
    return "\n".join(texts)


def _step(result: dict, name: str) -> None:
    for step in result["steps"]:
        if step["name"] == name:
            assert step["ok"], (
                f"{name}: {step.get('error')}\n{result['driver_output'][-3000:]}\n{result['ext_log'][-3000:]}"
            )
            return
    pytest.fail(f"step {name!r} did not run:\n{result['driver_output'][-3000:]}\n{result['ext_log'][-3000:]}")


def test_broken_case_has_squiggle_and_problems(vscode_session):
    _step(vscode_session, "workbench")
    _step(vscode_session, "diagnostics")
    assert vscode_session["squiggles"] >= 1
    problems = " | ".join(vscode_session["problems"])
    assert "pdf-tool" in problems, problems  # target skill:pdf-tool does not exist
    assert "evalens" in problems, problems  # the diagnostics' source
    assert "evalens" in vscode_session["status"]


def test_invalid_case_lens_says_fix_to_run(vscode_session):
    """03-broken.yaml has errors: its lens reads "✗ N problems: fix to run" instead of ▶ Run eval, and a click
    puts the cursor on the first problem (line 2, the `name` that breaks the pattern)."""
    _step(vscode_session, "invalid-lens")
    assert (
        vscode_session["invalidLens"].startswith("✗ ")
        and "problems: fix to run" in vscode_session["invalidLens"]
    )
    assert vscode_session["invalidLensHasRun"] == 0, "no Run eval lens on a case with errors"
    assert vscode_session["invalidLensCursor"].startswith("Ln 2,"), vscode_session["invalidLensCursor"]


def test_new_case_lens_opens_the_prompt(vscode_session):
    _step(vscode_session, "new-case")
    assert "New eval case" in vscode_session["newCaseLens"]
    assert vscode_session["newCaseTab"].startswith("04-pdf-tools-new-case.yaml"), vscode_session["newCaseTab"]
    assert vscode_session["newCaseCursor"] == "Ln 4, Col 12", vscode_session["newCaseCursor"]
    text = vscode_session["newCaseText"]
    assert "target: skill:pdf-tools" in text and "name: pdf-tools-new-case" in text, text


def test_hover_explains_the_field(vscode_session):
    _step(vscode_session, "hover")
    assert "target" in vscode_session["hover"].lower(), vscode_session["hover"]


def test_completion_offers_expected_keys(vscode_session):
    _step(vscode_session, "completion")
    completions = vscode_session["completions"]
    assert any(k in completions for k in ("files-created", "agent-blocked", "not-contains")), completions


def test_run_eval_lens_is_shown(vscode_session):
    _step(vscode_session, "lens")
    assert "Run eval" in vscode_session["lensBefore"]


def test_dry_run_command_runs_the_case_at_the_cursor(vscode_session):
    _step(vscode_session, "dry-run-command")
    assert f"Dry run of {LENS_CASE}" in vscode_session["dryRunToast"], vscode_session["dryRunToast"]


def test_lens_click_shows_verdict_in_lens_and_test_explorer(vscode_session):
    _step(vscode_session, "lens-run")
    assert vscode_session["statusWhileRunning"] == "evalens: 1 running", vscode_session["statusWhileRunning"]
    assert "PASS" in vscode_session["lensAfter"], vscode_session["lensAfter"]
    _step(vscode_session, "test-explorer")
    rows = vscode_session["testExplorerRows"]
    row = next((r for r in rows if r["label"].startswith(f"{LENS_CASE} (")), None)
    assert row is not None, rows
    assert "codicon-testing-passed-icon" in row["icons"], row
    assert "Passed" in row["label"], row
    shot = ARTIFACTS / "lens-verdict-editor.png"
    assert shot.exists()


def test_test_explorer_run_shows_failure_message(vscode_session):
    _step(vscode_session, "test-explorer-run")
    assert vscode_session["failRow"].startswith(f"{FAIL_CASE} (Failed"), vscode_session["failRow"]
    assert "agent-blocked" in vscode_session["failurePeek"], vscode_session["failurePeek"]


def test_test_results_show_the_agents_turns(vscode_session):
    _step(vscode_session, "test-results-turns")
    text = vscode_session["testResultsText"]
    assert f"{FAIL_CASE}: the agent's turns" in text, text[-2000:]
    assert "▸ " in text and "💬" in text, text[-2000:]  # a tool call and the reply, as they arrived


def test_show_run_opens_the_run_page_beside_at_the_failed_check(vscode_session):
    _step(vscode_session, "show-run")
    shown = vscode_session["showRun"]
    # the check as the case writes it (#27 #11), not the report's `agent_blocked` `True`
    assert shown["verdict"] == "FAIL" and "agent-blocked\ttrue\t" in shown["failedCheck"], shown
    assert shown["anchor"].startswith(f"u-{FAIL_CASE}-check-"), shown
    assert shown["calls"] >= 1 and " in / " in shown["usage"] and "$" in shown["usage"], shown  # Claude: cost


def test_compare_with_previous_run_opens_the_comparison(vscode_session):
    _step(vscode_session, "compare-runs")
    shown = vscode_session["compare"]
    assert shown["title"] == f"evalens · compare {FAIL_CASE}", shown
    assert shown["headers"][1].startswith("previous") and shown["headers"][2].startswith("latest"), shown
    previous, latest = shown["verdicts"]
    assert latest == "FAIL", shown
    assert previous or "Only one run of this unit so far" in shown["note"], shown  # the case ran once here


def test_pass_is_not_a_problem(vscode_session):
    _step(vscode_session, "pass-no-problem")
    assert vscode_session["passSquiggles"] == 0, "a PASS draws no squiggle on `name`"
    rows = " | ".join(vscode_session["passProblems"])
    assert "eval PASS" not in rows and "eval-pass" not in rows, rows
    assert "01-extract-text.yaml" not in rows, rows


def test_dry_run_leaves_the_last_result_alone(vscode_session):
    _step(vscode_session, "dry-run-keeps-result")
    assert vscode_session["failRowAfterDryRun"].startswith(f"{FAIL_CASE} (Failed"), vscode_session[
        "failRowAfterDryRun"
    ]


def test_run_failed_profile_runs_only_the_failed_case(vscode_session):
    """The Run failed profile (palette: Run Failed Evals in Workspace) asks the server which cases failed last:
    one new report, holding only the failed case; the passing case keeps its result (docs/repeats.md)."""
    _step(vscode_session, "run-failed-profile")
    question = vscode_session["runFailedQuestion"]  # asked once, naming what runs (#27 #8)
    assert "Run 1 eval (failed in the workspace)?" in question and FAIL_CASE in question, question
    assert vscode_session["runFailedReports"] == [[FAIL_CASE]], vscode_session["runFailedReports"]
    assert vscode_session["failRowAfterRunFailed"].startswith(f"{FAIL_CASE} (Failed"), vscode_session
    assert "Passed" in vscode_session["passRowAfterRunFailed"], vscode_session["passRowAfterRunFailed"]


def test_extension_page_shows_the_icon(vscode_session):
    _step(vscode_session, "extension-page")
    icon = vscode_session["extensionIcon"]
    assert icon["width"] >= 128 and "icon.png" in icon["src"], icon
    assert "evalens" in vscode_session["extensionHeader"], vscode_session["extensionHeader"]
    assert (ARTIFACTS / "extension-page.png").exists()


def test_output_channel_is_clean(vscode_session):
    """No errors or warnings for normal events in the evalens channel (one timestamp per line)."""
    lines = vscode_session["ext_log"].splitlines()
    assert not [line for line in lines if "Cancel notification for unknown message id" in line]
    assert not [line for line in lines if "[error]" in line and "exited with code 0" in line]
    assert not [line for line in lines if "[Info  -" in line or "[Error -" in line], "doubled timestamps"


def test_test_explorer_follows_edits(vscode_session):
    _step(vscode_session, "test-explorer-sync")
    labels = vscode_session["rowsAfterEdit"]
    assert any(label.startswith("renamed-case (") for label in labels), labels
    assert not any(label.startswith("Broken Case (") for label in labels), labels


def test_open_last_report_command(vscode_session):
    _step(vscode_session, "open-last-report")
    assert vscode_session["reportTab"].endswith(".json"), vscode_session["reportTab"]
    assert any(u.startswith("FAIL ") for u in vscode_session["reportUnits"]), vscode_session["reportUnits"]
