"""A package whose reports hold what the SKILL.md arms lens and the trigger lens read (issues 25 and 26), shared by
the VS Code and Neovim e2e tests: an ``--arms`` reference report (written from the report models, as the arms
runner writes it) and a real trigger-set run of a second skill, ``greeter``, with ``pdf-tools`` installed beside
it (``evalens run --with-installed``, the real ``claude`` against the scripted fake model), where pdf-tools
steals one query."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.ci_helpers import make_arms_report, write
from tests.fakemodel.server import FakeModelServer

GREETER = "---\nname: greeter\ndescription: Writes greetings. Use when asked to greet. Key greet-key-7.\n---\nGreet.\n"
#: the lens titles each face must show
ARMS_TITLES = (
    "▲ +40 pts vs no skill [+12, +68] · claude-code",
    "▼ −20 pts vs without hooks [−50, +10] · claude-code",
)
FIRED, STOLEN = "✓ fired 1/1", "✗ stolen by pdf-tools 1/1"
QUERIES = [
    ("write a greeting for Ann SCENARIO=use-skill NEEDS=greet-key-7", True),  # greeter fires
    (
        "a greeting card as tables in a PDF SCENARIO=use-skill NEEDS=tables",
        True,
    ),  # only pdf-tools lists `tables`
]


def write_arms_report(package: Path) -> Path:
    """The package's newest report: the ``skill`` arm as reference against ``no-skill`` and ``without:hooks``."""
    report = make_arms_report("extract-text", package=package.name)
    return write(report, package / "evals" / "reports" / "2026-01-02T00-00-00Z-arms.json")


def run_trigger_set(package: Path) -> Path:
    """skills/greeter/evals/trigger-eval.json run once per query with pdf-tools installed beside greeter; its
    report lands in skills/greeter/evals/reports. Returns the trigger set."""
    greeter = package / "skills" / "greeter"
    (greeter / "evals").mkdir(parents=True)
    (greeter / "SKILL.md").write_text(GREETER)
    file = greeter / "evals" / "trigger-eval.json"
    file.write_text(json.dumps([{"query": q, "should_trigger": w} for q, w in QUERIES], indent=2) + "\n")
    sandboxes = Path(tempfile.mkdtemp(prefix="evl-", dir="/var/tmp"))  # short: bridge sockets
    sandboxes.chmod(0o711)  # as root, the agent runs as an unprivileged uid that must reach it
    with FakeModelServer(idle_timeout=300, log_dir=package.parent / "trigger-model-log") as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CLAUDE"))}
        env.update(
            ANTHROPIC_BASE_URL=fake.anthropic_base_url,
            ANTHROPIC_API_KEY="test-key-not-real",
            EVALENS_SANDBOX_DIR=str(sandboxes),
            EVALENS_AGENT_RETRIES="0",
        )
        try:
            out = subprocess.run(
                [sys.executable, "-m", "evalens", "run", str(file), "--engine", "claude-code", "--runs", "1"]
                + ["--with-installed", str(package / "skills" / "pdf-tools")],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
            )
        finally:
            shutil.rmtree(sandboxes, ignore_errors=True)
    # exit 1: the stolen query fails its unit
    assert out.returncode == 1, out.stdout[-3000:] + out.stderr[-3000:]
    assert "stolen by pdf-tools 1/1" in out.stdout, out.stdout[-3000:]
    return file


def prepare_lens_package(package: Path) -> Path:
    """Both reports in a copy of examples/pdf-tools; returns the trigger set."""
    write_arms_report(package)
    return run_trigger_set(package)


#: a skill whose trigger set the scripted agent answers by key (the fake's ``use-skill``): the current
#: description holds no key, the judge's second rewrite all of them (the first only the training ones)
LABELS = [True] * 12 + [False] * 2
OPT_SKILL = "---\nname: opt-greeter\ndescription: Writes greetings. SCENARIO=propose-rewrites\n---\nGreet.\n"


def optimize_rewrites() -> tuple[str, str]:
    """What the scripted judge proposes: a training-only win, then the held-out winner."""
    from evalens.runner.trigger_optimize import split

    held = split(LABELS, 0.5, 0)  # the code action's defaults
    train = [f"opt-key-{i}" for i, w in enumerate(LABELS) if w and not held[i]]
    every = [f"opt-key-{i}" for i, w in enumerate(LABELS) if w]
    return "Writes greetings. Keys " + " ".join(train) + ".", "Writes greetings. Keys " + " ".join(
        every
    ) + "."


def prepare_optimize(ws: Path) -> None:
    """skills/opt-greeter with its trigger set: 12 queries that should use it, each naming its key, and two that
    should not."""
    skill = ws / "skills" / "opt-greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(OPT_SKILL)
    queries = [
        {"query": f"write greeting {i} SCENARIO=use-skill NEEDS=opt-key-{i}", "should_trigger": True}
        for i, w in enumerate(LABELS)
        if w
    ] + [{"query": f"weather case {i} SCENARIO=done", "should_trigger": False} for i in (12, 13)]
    (skill / "evals" / "trigger-eval.json").write_text(json.dumps(queries, indent=2) + "\n")
