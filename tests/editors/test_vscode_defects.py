"""Issue 27's defects 6, 7 and 1 end to end in code-server with the built .vsix, the real evalens server and the
real ``claude`` against the fake model (one code-server start for the module, tests/editors/code_server.py):

- 6: the ■ Cancel lens on a running case: Test Results says it was cancelled and the item is not "Skipped";
- 7: a case run, then renamed and saved, keeps its verdict in the lens and the Test Explorer, Show Run shows
  its run, and ``evalens eval --stale --dry-run`` follows the rename;
- 1: a folder with only ``config.yaml`` does not wake the extension; one with a ``task.md`` does, and the check
  for evalens runs in the workspace folder, not in the extension host's (which here could import a fake
  ``evalens.server``): the install offer, not a crash loop.

Screenshots land in build/e2e/vscode-defects/ (with EVALENS_DOCS_IMG set, the docs' ones in docs/img/ too).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editors.code_server import REPO, code_server_session, step

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-defects"
SLOW_CASE = "slow-case"
OLD, NEW = "extract-text", "text-extraction"
NO_EVALENS = "/usr/bin/python3"  # Debian's Python, without evalens
TASK_MD = (
    REPO
    / "tests"
    / "corpus"
    / "field"
    / "ElxMaj__app-store-review-skill"
    / "app-store-review-skill"
    / "evals"
)

# each alone in a folder: a trigger set (outside evals/) and a JSON file under evals/
OTHER_KINDS = [
    (
        "only-trigger-set",
        "pdf-tools-triggers.json",
        '[{"query": "extract the text of a.pdf", "should_trigger": true}]\n',
    ),
    ("only-evals-json", "evals/smoke/cases.json", '{"cases": []}\n'),
]

SLOW = """\
name: slow-case
description: The agent sleeps in its shell until the run is cancelled
target: skill:pdf-tools
input:
  prompt: "Extract all text from fixtures/sample.txt SCENARIO=slow MARKER=cancel"
  files:
    - fixtures/sample.txt
expected:
  contains:
    - "EXTRACTED"
judge:
  criteria: The reply says the text was extracted.
"""


def _prepare(ws: Path) -> None:
    (ws / "evals" / "cases" / "05-slow.yaml").write_text(SLOW)


def _folders(base: Path) -> dict[str, str]:
    """Two folders whose interpreter is one without evalens: only a config.yaml, and only a task.md; and the
    extension host's working directory, where that interpreter can import a (fake) ``evalens.server``."""
    config_only, task_only, host = base / "only-config", base / "only-task", base / "host-cwd"
    for folder in (config_only, task_only):
        (folder / ".vscode").mkdir(parents=True)
        (folder / ".vscode" / "settings.json").write_text(json.dumps({"evalens.server.path": NO_EVALENS}))
    (config_only / "config.yaml").write_text("port: 8080\nlog-level: info\n")
    for name, rel, text in OTHER_KINDS:
        (base / name / ".vscode").mkdir(parents=True)
        (base / name / ".vscode" / "settings.json").write_text(
            json.dumps({"evalens.server.path": NO_EVALENS})
        )
        (base / name / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / name / rel).write_text(text)
    (task_only / "review").mkdir()
    shutil.copy(TASK_MD / "expo-share-extension" / "task.md", task_only / "review" / "task.md")
    (host / "evalens" / "server").mkdir(parents=True)
    (host / "evalens" / "__init__.py").write_text("")
    (host / "evalens" / "server" / "__init__.py").write_text("")
    # the premise: a check made in the host's folder (the old one) would say evalens is installed
    assert subprocess.run([NO_EVALENS, "-c", "import evalens.server"], cwd=host).returncode == 0
    return {
        "CONFIG_ONLY": str(config_only),
        "TASK_ONLY": str(task_only),
        "HOST_CWD": str(host),
        "WAKE_FOLDERS": json.dumps([str(base / name) for name, _, _ in OTHER_KINDS]),
    }


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    if not os.access(NO_EVALENS, os.X_OK):
        pytest.skip(f"{NO_EVALENS} not installed")
    folders = _folders(tmp_path_factory.mktemp("vscode-defects-folders"))
    env = {"SLOW_CASE": SLOW_CASE, "NEW_NAME": NEW, **folders}
    with code_server_session(
        tmp_path_factory.mktemp("vscode-defects"),
        ARTIFACTS,
        "drive_defects.js",
        env,
        prepare=_prepare,
        cwd=Path(folders["HOST_CWD"]),
    ) as result:
        yield result


def test_cancel_says_so(session):
    """#27 defect 6: the cancelled run is named in Test Results, and its item is not made "Skipped"."""
    step(session, "cancel")
    assert "Run eval" in session["cancelLens"] and "■ Cancel" not in session["cancelLens"], session
    assert f"■ {SLOW_CASE}: cancelled" in session["cancelResults"], session["cancelResults"][-2000:]
    row = next(r for r in session["cancelRows"] if r["label"].startswith(f"{SLOW_CASE} ("))
    assert "Skipped" not in row["label"] and "skipped" not in row["icons"], row


def test_renamed_case_keeps_its_run(session):
    """#27 defect 7: renamed and saved after its run, the case keeps its PASS in the lens and the Test Explorer,
    Show Run opens its run, and the CLI's --stale follows the rename."""
    step(session, "rename")
    assert "PASS" in session["lensBeforeRename"], session["lensBeforeRename"]
    assert "PASS" in session["lensAfterRename"], session["lensAfterRename"]
    row = next(r for r in session["renameRows"] if r["label"].startswith(f"{NEW} ("))
    assert "Passed" in row["label"] and "passed" in row["icons"], row
    assert not any("No run recorded" in n for n in session["renameNotifications"]), session[
        "renameNotifications"
    ]
    assert session["showRunTab"] and session["showRunVerdict"] == "PASS", session
    ws = Path(session["workspace"])
    assert (ws / "evals" / "cases" / "01-extract-text.yaml").read_text().startswith(f"name: {NEW}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    dry = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--stale", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ws,
        env={**env, "ANTHROPIC_API_KEY": "sk-ant-fake-e2e"},
    )
    said = dry.stdout + dry.stderr
    assert dry.returncode == 0 and f"no case named {OLD}" not in said, said
    assert f"  {NEW}  [" not in said, said  # it passed and nothing but its name changed: not stale


def test_config_yaml_alone_does_not_wake_the_extension(session):
    """#27 defect 1: no install offer and no evalens status for a folder whose only YAML is config.yaml."""
    step(session, "activation-config-yaml")
    assert not any("evalens" in n.lower() for n in session["configOnlyNotifications"]), session
    assert session["configOnlyStatus"] == [], session["configOnlyStatus"]


def test_task_md_wakes_it_and_the_check_runs_in_the_workspace(session):
    """#27 defect 1: a task.md wakes the extension; evalens is checked where the server runs, so the user gets
    the install offer (before: the check passed in the host's folder, the server crash-looped, EPIPE toasts)."""
    step(session, "activation-task-md")
    texts = session["taskOnlyNotifications"]
    assert any("Install with pip" in n for n in texts), texts
    assert not any("EPIPE" in n for n in texts), texts
    assert f"evalens is not importable by {NO_EVALENS}" in session["ext_log"], session["ext_log"][-3000:]


def test_trigger_sets_and_evals_json_wake_it(session):
    """#27 defect 1: `activationEvents` missed trigger sets and `evals/**/*.json`; each alone now wakes it."""
    step(session, "activation-other-kinds")
    assert session["otherKinds"] == {name: True for name, _, _ in OTHER_KINDS}, session["otherKinds"]
