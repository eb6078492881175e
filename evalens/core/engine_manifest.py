"""The VS Code extension manifest's engine list, generated from the engine registry (evalens/core/engines.py).

``vscode-extension/package.json`` offers the ``evalens.engine`` setting as an enum: ``auto`` and then every
registered engine with its label. The registry is the one list of engines, so the manifest's copy is written
from it: ``python -m evalens.core.engine_manifest --write`` regenerates it, ``--check`` exits 1 when it is out
of date (``tests/core/test_engine_registry.py`` does the same). The rest of the manifest is left as it is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evalens.core.engines import engine_names, engine_spec

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "vscode-extension" / "package.json"
SETTING = "evalens.engine"
AUTO = (
    "auto",
    "The engine named by the eval config or case (evals/eval-config.json `engine`), else the runner's default",
)


def engine_choices() -> list[tuple[str, str]]:
    """The setting's choices with their descriptions: ``auto``, then each registered engine."""
    choices = [AUTO]
    for name in engine_names():
        spec = engine_spec(name)
        choices.append((name, spec.label if spec else name))
    return choices


def with_engines(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with the engine setting's enum and descriptions taken from the registry."""
    setting = manifest["contributes"]["configuration"]["properties"][SETTING]
    choices = engine_choices()
    setting["enum"] = [name for name, _ in choices]
    setting["enumDescriptions"] = [text for _, text in choices]
    return manifest


def render(manifest: dict[str, Any]) -> str:
    """The manifest's text as npm writes it (two spaces, a trailing newline)."""
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def manifest_source() -> str:
    """The text package.json should have."""
    return render(with_engines(json.loads(MANIFEST.read_text(encoding="utf-8"))))


def main(argv: list[str]) -> int:
    """``--write``: regenerate the engine list in package.json; ``--check``: exit 1 when it is out of date."""
    source = manifest_source()
    if "--write" in argv:
        MANIFEST.write_text(source, encoding="utf-8")
        return 0
    if MANIFEST.read_text(encoding="utf-8") != source:
        print(
            f"{MANIFEST}: the {SETTING} list is out of date (run `python -m evalens.core.engine_manifest --write`)"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
