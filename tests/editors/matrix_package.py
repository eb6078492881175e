"""A scripted two-engine, three-arm run (issue #25) for the editors' matrix tests and the docs' screenshots: two
cases added to a copy of examples/pdf-tools, run by the real ``claude`` and ``codex`` against the scripted fake
model as ONE matrix run ``--engine claude-code,codex --model codex=gpt-fake --arms skill,no-skill,without:references``
(two runs per cell): six cell reports (engine · model · arm), the newest reports of the package, each engine's
reference arm (skill) compared with its other two.

``tables`` plays the fake's ``needs-skill`` scenario: it passes only when the CLI lists a skill whose description
holds ``tables`` (pdf-tools' does), so it passes with the skill and fails without; ``strict-marker`` never writes
the marker it checks for, so it fails in every cell."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.fakemodel.server import FakeModelServer

ARMS = "skill,no-skill,without:references"
ENGINES = ("claude-code", "codex")
CODEX_MODEL = "gpt-fake"
CASES = {
    "20-tables.yaml": """\
name: tables
description: With the skill listed, the agent converts the tables
target: skill:pdf-tools
input:
  prompt: "Convert the tables of the report. SCENARIO=needs-skill NEEDS=tables"
expected:
  contains:
    - "GREETING-OK"
judge:
  criteria: "The tables were converted. JUDGE=pass"
""",
    "21-strict-marker.yaml": """\
name: strict-marker
description: The reply must carry a marker the agent never writes
target: skill:pdf-tools
input:
  prompt: "Summarise the document. SCENARIO=fail-contains"
expected:
  contains:
    - "SUMMARY-MARKER"
judge:
  criteria: "The summary carries the marker. JUDGE=pass"
""",
}
UNITS = ("tables", "strict-marker")


def add_cases(package: Path) -> None:
    """The two cases, and a references/ folder for the ``without:references`` arm to leave out."""
    for name, text in CASES.items():
        (package / "evals" / "cases" / name).write_text(text)
    references = package / "skills" / "pdf-tools" / "references"
    references.mkdir(exist_ok=True)
    (references / "tables.md").write_text("Tables become CSV, one file per table.\n")


def _eval(package: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(package), *UNITS, "--no-judge", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def run_matrix(package: Path, log_dir: Path) -> str:
    """The engines × arms run; returns its table as the CLI printed it (stdout) with the command that made it,
    for docs/img."""
    add_cases(package)
    sandboxes = Path(tempfile.mkdtemp(prefix="evl-", dir="/var/tmp"))  # short: bridge sockets
    sandboxes.chmod(0o711)  # as root, the agent runs as an unprivileged uid that must reach it
    transcript: list[str] = []
    with FakeModelServer(idle_timeout=600, log_dir=log_dir) as fake:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "CLAUDE", "CODEX_"))
        }
        env.update(
            ANTHROPIC_BASE_URL=fake.anthropic_base_url,
            ANTHROPIC_API_KEY="test-key-not-real",
            OPENAI_BASE_URL=fake.openai_base_url,
            OPENAI_API_KEY="test-key-not-real",
            EVALENS_SANDBOX_DIR=str(sandboxes),
            EVALENS_AGENT_RETRIES="0",
            COLUMNS="200",
        )
        try:
            args = (
                "--engine",
                ",".join(ENGINES),
                "--model",
                f"codex={CODEX_MODEL}",
                "--arms",
                ARMS,
                "--runs",
                "2",
                "--jobs",
                "2",
            )
            out = _eval(package, env, *args)
            # the reference arm (skill) passes tables and fails strict-marker in both cells: exit 1
            assert out.returncode == 1, out.stdout[-3000:] + out.stderr[-3000:]
            transcript += [
                f"$ evalens eval {' '.join(UNITS)} --no-judge {' '.join(args)}",
                out.stdout.rstrip(),
            ]
        finally:
            shutil.rmtree(sandboxes, ignore_errors=True)
    return "\n".join(transcript) + "\n"
