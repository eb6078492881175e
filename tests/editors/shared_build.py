"""One build at a time of what the editors tier's lanes share in the checkout: the .vsix, the bundled wheels it
carries (``vscode-extension/bundled/wheels``, which the Neovim install test installs from too) and the
Playwright driver's ``node_modules``.

Why: the tier runs three lanes at once (tests/conftest.py). On a fresh clone nothing is built yet, so two lanes
each found the .vsix stale and built it into the same folders at once, and one lane's packaging step found the
other's half-made wheels folder ("expected one evalens wheel … found []"). A lane now takes this lock, looks
again, and builds only what is still missing, so the second lane reuses the first one's build.
"""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import REPO


@contextmanager
def build_lock() -> Iterator[None]:
    """Held while a lane checks and builds the shared artefacts of this checkout (a lock file per checkout in the
    temporary folder, so two clones on one machine do not wait for each other); released when the build ends,
    also when it fails."""
    digest = hashlib.sha256(str(REPO.resolve()).encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"evalens-editors-build-{digest}.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
