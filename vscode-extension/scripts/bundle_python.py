"""Puts evalens and every wheel it needs into ``vscode-extension/bundled/wheels`` for the ``.vsix`` (issue 45).

The extension installs evalens into a private virtual environment on first use with
``pip install --no-index --find-links bundled/wheels evalens``: no network, no package-index release, no PEP 668
refusal. So the folder holds, for this machine's platform and each Python the extension supports:

- the evalens wheel built from this checkout (its build backend installed from the same folder: no download);
- every runtime dependency of pyproject.toml, as binary wheels (the compiled ones differ per Python version);
- pip itself, which the extension runs from its wheel into a venv made ``--without-pip`` (Debian's python3 often
  lacks ``ensurepip``), and setuptools/wheel, so a checkout can be built offline as well.

Dependencies are downloaded once and cached by the pyproject's dependency list and the Python versions
(``.deps-<key>``), also in ``$EVALENS_CACHE/bundled-wheels-<key>`` (the machine-wide cache .ci/install-vscode.sh
uses), so a fresh clone copies them instead of downloading about 25 MB; only the evalens wheel is rebuilt on every
packaging. ``EVALENS_BUNDLE_PYTHONS`` overrides the
versions (default ``3.11 3.12 3.13``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

EXT = Path(__file__).resolve().parents[1]
REPO = EXT.parent
OUT = EXT / "bundled" / "wheels"
PYTHONS = os.environ.get("EVALENS_BUNDLE_PYTHONS", "3.11 3.12 3.13").split()
TOOLS = ["pip", "setuptools>=68", "wheel"]


def _pip(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> int:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    key = hashlib.sha256(json.dumps([deps, PYTHONS, TOOLS]).encode()).hexdigest()[:16]
    stamp = OUT / f".deps-{key}"
    cache = Path(os.environ.get("EVALENS_CACHE", "/var/cache/evalens")) / f"bundled-wheels-{key}"
    if not stamp.exists() and (cache / stamp.name).exists():
        if OUT.exists():
            shutil.rmtree(OUT)
        shutil.copytree(cache, OUT)
    if not stamp.exists():
        if OUT.exists():
            shutil.rmtree(OUT)
        OUT.mkdir(parents=True)
        for version in PYTHONS:
            print(f"bundle_python: dependency wheels for Python {version}", file=sys.stderr)
            _pip(
                "download", "--only-binary=:all:", "--python-version", version, "-d", str(OUT), *deps, *TOOLS
            )
        stamp.write_text("\n".join(sorted(p.name for p in OUT.glob("*.whl"))) + "\n")
    if not (cache / stamp.name).exists():  # also seeded from a checkout that had the wheels already
        try:
            if cache.exists():
                shutil.rmtree(cache)
            shutil.copytree(OUT, cache, ignore=shutil.ignore_patterns("evalens-*.whl"))
        except OSError as err:  # an unwritable cache only costs the next clone a download
            print(f"bundle_python: not cached in {cache}: {err}", file=sys.stderr)
    for old in OUT.glob("evalens-*.whl"):
        old.unlink()
    # the build backend (setuptools, wheel) comes from the bundled wheels: the build downloads nothing
    _pip("wheel", "--no-deps", "--no-index", "--find-links", str(OUT), "-w", str(OUT), str(REPO))
    wheels = sorted(OUT.glob("evalens-*.whl"))
    if len(wheels) != 1:
        print(f"bundle_python: expected one evalens wheel in {OUT}, found {wheels}", file=sys.stderr)
        return 1
    print(
        f"bundle_python: {wheels[0].name} and {len(list(OUT.glob('*.whl'))) - 1} dependency wheels",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
