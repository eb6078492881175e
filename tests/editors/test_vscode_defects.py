"""Issue 27's defects 6, 7, 11 and 1 end to end in code-server with the built .vsix, the real evalens server and
the real ``claude`` against the fake model (one code-server start for the module, tests/editors/code_server.py):

- 6: the ■ Cancel lens on a running case: Test Results says it was cancelled and the item is not "Skipped"; the
  Runs view lists that run as cancelled, not ERROR;
- 7: a case run, then renamed and saved, keeps its verdict in the lens and the Test Explorer, Show Run shows
  its run, and ``evalens eval --stale --dry-run`` follows the rename;
- 1: a folder with only ``config.yaml`` does not wake the extension; one with a ``task.md`` does, and the check
  for evalens runs in the workspace folder, not in the extension host's (which here could import a fake
  ``evalens.server``): the install offer (a modal, issue 45), not a crash loop;
- 11: Run 5× on a case the fake model fails on odd runs: the lens says "run k/5" while it runs, then
  "≈ FLAKY 2/5"; the failure message says FLAKY once; Test Results prints FLAKY, not FAIL; the hover's report path
  is a link that opens the report; the README's images are files in the .vsix and show on the extension page.

Screenshots land in build/e2e/vscode-defects/ (with EVALENS_DOCS_IMG set, the docs' ones in docs/img/ too).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.editors.code_server import EXT_DIR, REPO, VSIX, code_server_session, step

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-defects"
SLOW_CASE = "slow-case"
FLAKY_CASE = "wobbly"
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


FLAKY = """\
name: wobbly
description: The fake model fails the odd runs and passes the even ones, so five runs are FLAKY 2/5
target: skill:pdf-tools
input:
  prompt: "Write a greeting into output/result.txt. SCENARIO=alt-fail-pass MARKER=wording"
expected:
  contains:
    - "GREETING-OK"
judge:
  criteria: >
    The reply says that output/result.txt was written. JUDGE=pass
"""


def _prepare(ws: Path) -> None:
    (ws / "evals" / "cases" / "05-slow.yaml").write_text(SLOW)
    (ws / "evals" / "cases" / "06-wobbly.yaml").write_text(FLAKY)


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
    env = {
        "SLOW_CASE": SLOW_CASE,
        "NEW_NAME": NEW,
        "FLAKY_CASE": FLAKY_CASE,
        "STEPS": os.environ.get("EVALENS_E2E_STEPS", ""),
        **folders,
    }
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
    assert row["state"] not in ("skipped", "running"), row  # from its state icon (vscode/lib.js testRows)


def test_runs_view_lists_the_cancelled_run_as_cancelled(session):
    """The Runs view read the cancelled unit's report (an interrupted batch, the unit an "interrupted" ERROR) as an
    ERROR; it is listed as cancelled, as Test Results says (runner/run_history.py)."""
    step(session, "runs-cancelled")
    rows = [r for r in session["runsRows"] if r.startswith(SLOW_CASE)]
    assert len(rows) == 1 and "■ cancelled" in rows[0], session["runsRows"]
    assert "ERROR" not in rows[0] and "PASS" not in rows[0], rows
    icon = session["runsIcons"][session["runsRows"].index(rows[0])]
    assert "codicon-debug-stop" in icon and "codicon-bug" not in icon, session["runsIcons"]


def test_renamed_case_keeps_its_run(session):
    """#27 defect 7: renamed and saved after its run, the case keeps its PASS in the lens and the Test Explorer,
    Show Run opens its run, and the CLI's --stale follows the rename."""
    step(session, "rename")
    assert "PASS" in session["lensBeforeRename"], session["lensBeforeRename"]
    assert "PASS" in session["lensAfterRename"], session["lensAfterRename"]
    row = next(r for r in session["renameRows"] if r["label"].startswith(f"{NEW} ("))
    assert row["state"] == "passed", row
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
    dialog = session["taskOnlyDialog"]  # #45: a modal offering the offline ways, never pip from an index
    assert f"evalens is not installed for {NO_EVALENS} (from evalens.server.path)" in dialog, dialog
    assert "Install with pip" not in dialog, dialog
    assert not any("EPIPE" in n for n in texts), texts
    assert f"evalens is not importable by {NO_EVALENS}" in session["ext_log"], session["ext_log"][-3000:]


def test_trigger_sets_and_evals_json_wake_it(session):
    """#27 defect 1: `activationEvents` missed trigger sets and `evals/**/*.json`; each alone now wakes it."""
    step(session, "activation-other-kinds")
    assert session["otherKinds"] == {name: True for name, _, _ in OTHER_KINDS}, session["otherKinds"]


def test_flaky_case_is_worded_flaky_once(session):
    """#27 defect 11: a FLAKY case read "≈ FLAKY: flaky: passed 2/5" in the Test Explorer and was printed as FAIL
    in Test Results; its lens says ≈ FLAKY 2/5, its message (Test Results' tree) FLAKY once, its terminal line
    FLAKY."""
    step(session, "flaky-run-5")
    lens = session["flakyLens"].replace("\xa0", " ")
    assert "≈ FLAKY 2/5" in lens and "FAIL" not in lens, session["flakyLenses"]
    messages = session["flakyResultRows"]
    assert any(m.startswith("≈ FLAKY: passed 2/5 runs") for m in messages), messages
    assert not any(re.search(r"flaky:\s*flaky", m, re.IGNORECASE) for m in messages), messages
    results = session["flakyResults"]
    lines = [line.strip() for line in results.splitlines()]
    assert any(line.startswith(f"FLAKY {FLAKY_CASE}") for line in lines), results[-3000:]
    assert not any(line.startswith(f"FAIL {FLAKY_CASE}") for line in lines), results[-3000:]
    assert not re.search(r"flaky:\s*flaky", results, re.IGNORECASE), results[-3000:]
    row = next(r for r in session["flakyRows"] if r["label"].startswith(f"{FLAKY_CASE} ("))
    assert row["state"] == "failed" and not re.search(r"flaky:\s*flaky", row["label"], re.I), row


def test_run_5_shows_run_k_of_5(session):
    """#27 defect 11: while Run 5× runs, the lens says which run it is in ("■ Cancel · run k/5"), and Test Results
    heads each run's turns with "run k/5"."""
    step(session, "flaky-run-5")
    progress = [t for t in session["flakyLenses"] if re.search(r"■ Cancel · run [1-5]/5", t)]
    assert progress, session["flakyLenses"]
    assert len({m for t in progress for m in re.findall(r"run ([1-5])/5", t)}) >= 2, progress
    heads = session["flakyTurnHeads"]
    assert any(re.search(rf"{FLAKY_CASE} \(run [2-5]/5\): the agent's turns", h) for h in heads), heads


def test_hover_report_path_is_a_link(session):
    """#27 defect 11: the hover's report path was plain text; it is a link to the report file, and a click
    opens it."""
    step(session, "report-link")
    link = session["reportLink"]
    target = link["dataHref"] or link["href"]  # the server's file: URI; code-server's is on the remote
    assert target.startswith(("file://", "vscode-remote://")) and target.endswith(link["text"]), link
    assert "/evals/reports/" in link["text"] and link["text"].endswith(".json"), link
    assert session["reportTab"].endswith(".json"), session["reportTab"]


def test_readme_images_ship_in_the_vsix(session):
    """#27 defect 11: the README's images were remote URLs (blank offline). The packaged .vsix holds the README
    with relative image paths and each image file, byte for byte (the sources: tests/editors/test_vsix_readme.py)."""
    step(session, "readme-images")  # the session built the .vsix from the current sources
    with zipfile.ZipFile(VSIX) as vsix:
        names = set(vsix.namelist())
        packed = next(n for n in names if n.lower() == "extension/readme.md")  # vsce lowercases it
        readme = vsix.read(packed).decode("utf-8")
        refs = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", readme)
        assert refs, readme[:500]
        for ref in refs:
            assert not re.match(r"^[a-z]+:", ref) and not ref.startswith("/"), ref
            assert f"extension/{ref}" in names, (ref, sorted(names))
            assert vsix.read(f"extension/{ref}") == (EXT_DIR / ref).read_bytes(), ref
    shown = {Path(i["src"]).name for i in session["readmeImages"]}
    assert {Path(ref).name for ref in refs} <= shown, session["readmeImages"]  # the page has them, relative


@pytest.mark.xfail(
    strict=True,
    reason="open (#27 #11): VS Code's extension page draws a README in a webview whose policy loads images only "
    "from https: and data:, so a relative image shipped in the .vsix is drawn broken (naturalWidth 0)",
)
def test_extension_page_draws_the_readme_images(session):
    """What a user sees: the README's images drawn on the extension page of the installed .vsix, offline."""
    step(session, "readme-images")
    shown = session["readmeImages"]
    assert shown and all(i["complete"] and i["width"] > 0 for i in shown), shown
