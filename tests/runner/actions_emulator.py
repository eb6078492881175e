"""Run a composite action's shell steps the way the Actions runner does, with a fake ``GITHUB_*`` environment.

Only what ``action.yml`` uses is understood (``inputs.*``, ``steps.<id>.outputs.*``, ``github.*``, string
literals, ``==``, ``!=``, ``&&``, ``||``, ``always()``, ``success()``, ``failure()``); anything else raises, so
a new expression in the action cannot be silently misread by the test. ``uses:`` steps are recorded with their
evaluated ``with:`` (they need the real runner); shell steps run under ``bash --noprofile --norc -eo pipefail``
with a fresh ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` file each, as on GitHub.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_TEMPLATE = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"


@dataclass
class StepRun:
    id: str
    ran: bool
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    with_: dict[str, str] = field(default_factory=dict)


@dataclass
class ActionRun:
    steps: dict[str, StepRun]
    outputs: dict[str, str]
    success: bool

    @property
    def summary(self) -> str:
        return "".join(s.summary for s in self.steps.values())


class Emulator:
    def __init__(
        self,
        action_dir: Path,
        workspace: Path,
        inputs: dict[str, str],
        env: dict[str, str],
        github: dict[str, str] | None = None,
        become: list[str] | None = None,
    ) -> None:
        self.action_dir = action_dir
        #: a command prefix every shell step runs under (``setpriv`` to the runner's unprivileged user)
        self.become = become or []
        self.spec = yaml.safe_load((action_dir / "action.yml").read_text())
        assert self.spec["runs"]["using"] == "composite"
        self.workspace = workspace
        declared = self.spec.get("inputs", {})
        unknown = set(inputs) - set(declared)
        assert not unknown, f"inputs the action does not declare: {unknown}"
        self.env = env
        #: the `github` context the action reads (a push event unless the test says otherwise)
        self.github = {
            "token": "",
            "repository": "owner/repo",
            "server_url": "https://github.com",
            "run_id": "1",
            "event.pull_request.number": "",
            "event.pull_request.base.sha": "",
        } | (github or {})
        self.inputs: dict[str, str] = {}
        self.steps: dict[str, StepRun] = {}
        self.failed = False
        # an input's default may be an expression (`replay-base`: the pull request's base), as GitHub evaluates it
        self.inputs = {k: self.render(str(v.get("default", ""))) for k, v in declared.items()} | inputs

    # ------------------------------------------------------------------------------------ expressions
    def _value(self, token: str) -> str | bool:
        token = token.strip()
        if token.startswith("'") and token.endswith("'"):
            return token[1:-1].replace("''", "'")
        if token in ("always()",):
            return True
        if token == "success()":
            return not self.failed
        if token == "failure()":
            return self.failed
        if m := re.fullmatch(rf"inputs\.({_NAME})", token):
            assert m.group(1) in self.inputs, f"undeclared input {m.group(1)}"
            return self.inputs[m.group(1)]
        if m := re.fullmatch(rf"steps\.({_NAME})\.outputs\.({_NAME})", token):
            step = self.steps.get(m.group(1))
            return step.outputs.get(m.group(2), "") if step else ""
        if token == "github.action_path":
            return str(self.action_dir)
        if token == "github.job":
            return "evals"
        if token.startswith("github.") and token[len("github.") :] in self.github:
            return self.github[token[len("github.") :]]
        raise AssertionError(f"expression the emulator does not know: {token!r}")

    def evaluate(self, expr: str) -> str | bool:
        if "||" in expr:
            return any(self._truthy(self.evaluate(part)) for part in expr.split("||"))
        if "&&" in expr:
            return all(self._truthy(self.evaluate(part)) for part in expr.split("&&"))
        for op in ("==", "!="):
            if op in expr:
                left, right = expr.split(op, 1)
                same = str(self._value(left)) == str(self._value(right))
                return same if op == "==" else not same
        return self._value(expr)

    @staticmethod
    def _truthy(value: str | bool) -> bool:
        return bool(value)

    def render(self, text: Any) -> str:
        text = str(text)
        whole = _TEMPLATE.fullmatch(text.strip())
        if whole and text.count("${{") == 1:
            return str(self.evaluate(whole.group(1)))
        return _TEMPLATE.sub(lambda m: str(self.evaluate(m.group(1))), text)

    def condition(self, text: str | None) -> bool:
        if text is None:
            return not self.failed
        text = text.strip()
        inner = _TEMPLATE.fullmatch(text)
        value = self.evaluate(inner.group(1) if inner else text)
        uses_status = any(f in text for f in ("always()", "success()", "failure()", "cancelled()"))
        return self._truthy(value) and (uses_status or not self.failed)

    # ------------------------------------------------------------------------------------ running
    def run(self, scratch: Path) -> ActionRun:
        scratch.mkdir(parents=True, exist_ok=True)
        for i, step in enumerate(self.spec["runs"]["steps"]):
            step_id = step.get("id", f"step-{i}")
            if "run" in step:
                assert "${{" not in step["run"], f"{step_id}: expressions belong in env:, not in the script"
            if not self.condition(step.get("if")):
                self.steps[step_id] = StepRun(step_id, ran=False)
                continue
            if "uses" in step:
                self.steps[step_id] = StepRun(
                    step_id, ran=True, with_={k: self.render(v) for k, v in step.get("with", {}).items()}
                )
                continue
            assert step.get("shell") == "bash", f"{step_id}: shell steps must say shell: bash"
            out_file, summary_file = scratch / f"{i}-output", scratch / f"{i}-summary"
            out_file.write_text("")
            summary_file.write_text("")
            script = scratch / f"{i}.sh"
            script.write_text(step["run"])
            if self.become:  # the runner user writes the step's outputs and reads its script
                scratch.chmod(0o755)
                for f in (out_file, summary_file):
                    f.chmod(0o666)
                script.chmod(0o644)
            env = {
                **self.env,
                **{k: self.render(v) for k, v in step.get("env", {}).items()},
                "GITHUB_ACTIONS": "true",
                "GITHUB_WORKSPACE": str(self.workspace),
                "GITHUB_ACTION_PATH": str(self.action_dir),
                "GITHUB_OUTPUT": str(out_file),
                "GITHUB_STEP_SUMMARY": str(summary_file),
                "CI": "true",
            }
            done = subprocess.run(
                [*self.become, "bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=self.workspace,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            self.steps[step_id] = StepRun(
                step_id,
                ran=True,
                returncode=done.returncode,
                stdout=done.stdout,
                stderr=done.stderr,
                outputs=parse_outputs(out_file.read_text()),
                summary=summary_file.read_text(),
            )
            if done.returncode != 0:
                self.failed = True
        outputs = {name: self.render(spec["value"]) for name, spec in self.spec.get("outputs", {}).items()}
        return ActionRun(steps=self.steps, outputs=outputs, success=not self.failed)


def parse_outputs(text: str) -> dict[str, str]:
    """``key=value`` lines and ``key<<DELIM`` … ``DELIM`` blocks, as the runner reads ``$GITHUB_OUTPUT``."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            body = []
            i += 1
            while lines[i] != delim:
                body.append(lines[i])
                i += 1
            out[key] = "\n".join(body)
        elif "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
        i += 1
    return out


def base_env() -> dict[str, str]:
    """The test's environment without anything GitHub would set per step."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
