"""The lenses of the comparison and trigger lab in code-server (issues 25 and 26): on a package whose reports
hold an ``--arms`` reference report and a real trigger-set run where pdf-tools steals one of greeter's queries,
pdf-tools' SKILL.md shows the reference arm's uplift over each arm and greeter's trigger set says over each
query which skill fired. Screenshots land in build/e2e/vscode-lab/ (the ones in docs/img/ are copied from
there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.editors.code_server import E2E_DIR, REPO, code_server_session, step
from tests.editors.lens_package import (
    ARMS_TITLES,
    FIRED,
    OPT_SKILL,
    STOLEN,
    optimize_rewrites,
    prepare_lens_package,
    prepare_optimize,
)

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-lab"


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    def prepare(ws: Path) -> None:
        prepare_lens_package(ws)
        prepare_optimize(ws)

    run = tmp_path_factory.mktemp("vscode-lab")
    scenarios = json.loads((E2E_DIR / "scenarios.json").read_text())
    scenarios["propose-rewrites"] = [{"text": json.dumps({"descriptions": list(optimize_rewrites())})}]
    (run / "scenarios.json").write_text(json.dumps(scenarios))
    with code_server_session(
        run / "cs", ARTIFACTS, "drive_lab.js", {}, prepare=prepare, scenarios=run / "scenarios.json"
    ) as result:
        yield result


def test_skill_md_shows_the_arms_lens(session):
    """The SKILL.md's first lens line holds the reference arm's uplift over each arm, with its interval and
    engine, beside "New eval case"."""
    step(session, "arms-lens")
    first = session["armsLenses"][0]
    assert all(title in first for title in ARMS_TITLES), session["armsLenses"]
    assert (ARTIFACTS / "arms-lens.png").exists()


def test_trigger_set_shows_which_skill_fired_over_each_query(session):
    """Over each query of the trigger set: greeter fired on its own query, pdf-tools stole the other."""
    step(session, "trigger-lens")
    lenses = session["triggerLenses"]
    fired = [t for t in lenses if FIRED in t]
    stolen = [t for t in lenses if STOLEN in t]
    assert len(fired) == 1 and len(stolen) == 1, lenses
    assert lenses.index(fired[0]) < lenses.index(stolen[0]), lenses  # in the file's order of the queries
    assert (ARTIFACTS / "trigger-lens.png").exists()


def test_optimize_description_opens_the_winner_for_review(session):
    """The code action on the SKILL.md description runs the optimizer (the real claude, the scripted judge): the
    rewrite that wins on the held-out queries opens in the Refactor Preview; discarded, nothing changed, in the
    editor or on disk."""
    step(session, "optimize")
    rows = " | ".join(session["previewRows"])
    # opt-key-0 is a held-out query's key: only the rewrite that also wins there holds it
    assert 'description: "Writes greetings. Keys opt-key-0' in rows, rows
    assert "description: Writes greetings. SCENARIO=propose-rewrites" in session["editorAfterDiscard"]
    assert (Path(session["workspace"]) / "skills" / "opt-greeter" / "SKILL.md").read_text() == OPT_SKILL
    assert (ARTIFACTS / "optimize-preview.png").exists()
