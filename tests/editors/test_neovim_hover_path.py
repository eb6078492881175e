"""Headless Neovim 0.7.2 and 0.11 with the README's setup: the hover on a case's `target: skill:pdf-tools` draws
the field's placeholder path as ``skills/<name>/SKILL.md`` and the skill's own ``skills/pdf-tools/SKILL.md``,
with no backslash (issue 27 #10). The server escaped ``<name>`` as ``\\<name\\>``, which 0.11 draws as it is; as
HTML entities, 0.11 conceals them as ``<`` and ``>``. 0.7's lsp_markdown syntax conceals both spellings, so only
the 0.11 run fails with the old escape. The test reads the float's screen cells, not its buffer, whose lines keep
``&lt;``. No agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import Neovim, example_package

pytestmark = pytest.mark.editors


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_hover_draws_the_skill_path_without_backslashes(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    pkg = example_package(tmp_path)
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    result = nvim.run_driver("hover_path.lua", tmp_path, open_file=case, cwd=pkg, timeout=120).result
    assert result["version"] == version
    assert result["conceallevel"] == 2, result  # Markdown markers and entities are concealed in the float
    # the package's temporary folder (/tmp/pytest-of-…) read as what it is, a copy of pdf-tools
    drawn = [row.replace(str(pkg), "pdf-tools") for row in result["drawn"]]
    shown = "\n".join(drawn)
    placeholder = next(row for row in drawn if "skill:<name>" in row)
    assert "(skills/<name>/SKILL.md)" in placeholder and "(agents/<name>/)" in placeholder, shown
    assert any(row.strip(" `") == "pdf-tools/skills/pdf-tools/SKILL.md" for row in drawn), shown
    assert "\\" not in shown and "&lt;" not in shown, shown
    nvim_capture(
        version,
        "fix-10-hover-path",
        [
            f"Neovim {version}: evals/cases/01-extract-text.yaml, K on the value of `target: skill:pdf-tools`",
            "the hover float as drawn:",
            "",
            *drawn,
        ],
    )
