"""The extension's README images ship inside the .vsix (issue 27 #11): remote URLs were blank offline and in the
Marketplace until a repository exists. Every image is a relative path to a file in vscode-extension/images/, the
package includes it, and vsce does not rewrite it into a repository URL."""

from __future__ import annotations

import json
import re

from tests.conftest import REPO

EXT = REPO / "vscode-extension"


def test_readme_images_are_packaged_files():
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", (EXT / "README.md").read_text(encoding="utf-8"))
    assert images
    shipped = {line[1:] for line in (EXT / ".vscodeignore").read_text().splitlines() if line.startswith("!")}
    for image in images:
        assert not re.match(r"^[a-z]+:", image), f"{image}: a remote image is blank offline"
        assert (EXT / image).is_file(), image
        assert image in shipped, f"{image} is left out of the .vsix (.vscodeignore)"
    package = json.loads((EXT / "package.json").read_text())["scripts"]["package"]
    assert "--no-rewrite-relative-links" in package
