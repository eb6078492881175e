"""Every git call evalens makes, on a repository a pull request may have written.

The repository is untrusted (docs/sandbox.md, "Repositories and pull requests"): its files must steer no git
call into running a program. So each call names its git dir and work tree (discovery never runs, so a repository
committed as plain files inside a package is never found), turns hooks and fsmonitor off, and blanks every filter
driver the configuration defines: a committed ``.gitattributes`` line ``* filter=x`` otherwise makes
``git worktree add`` run ``x``'s smudge command on each file it writes, and ``git diff <ref>`` its clean command
on each file whose stat changed. Diffs never run an external diff or textconv program either.

This module loads nothing of the run machinery, so the server, the shard planner and the replay reader can ask
for a commit without importing a runner."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

# Hooks off (a pull request's checkout must not run a post-checkout hook), no bare repository found by
# discovery, no fsmonitor command.
GIT_SAFETY = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "core.fsmonitor=false",
)
# Variables that would point git elsewhere than the repository named on its command line.
_GIT_LOCATION_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_CEILING_DIRECTORIES",
)
# A filter driver's program keys; an empty value is git's own "no such program" (convert.c runs none).
_FILTER_PROGRAMS = ("clean", "smudge", "process")


class GitRefError(Exception):
    """A git ref an option names cannot be used: no git, no repository, or no such commit."""


def repository_of(folder: Path) -> Path | None:
    """The work tree of the git repository holding ``folder``: the nearest folder at or above it with a
    ``.git`` (a folder, or a linked worktree's ``gitdir:`` file). Only a ``.git`` counts: a package that commits
    a repository's files as plain files (``HEAD``, ``config``, ``objects/``) is no repository here, whatever
    git's own discovery would make of it; git refuses to commit a ``.git``, so a ``.git`` is the clone's own."""
    current = folder.resolve()
    for candidate in (current, *current.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir() or dot_git.is_file():
            return candidate
    return None


def _run(top: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARS}
    return subprocess.run(
        ["git", f"--git-dir={top / '.git'}", f"--work-tree={top}", *GIT_SAFETY, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(top),
        stdin=subprocess.DEVNULL,
        env={**env, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        check=False,
    )


def filter_overrides(top: Path) -> list[str]:
    """``-c`` options that blank every filter driver the repository's configuration (system, global, its own
    ``.git/config`` and what that includes) defines, so no ``.gitattributes`` can select one. Reading the
    configuration runs nothing. Git matches the driver name case-sensitively, so the override names it as the
    configuration spells it."""
    listed = _run(top, ["config", "--name-only", "-z", "--get-regexp", r"^filter\."])
    names: set[str] = set()
    for key in listed.stdout.split("\0"):
        section, _, rest = key.partition(".")
        name, _, _variable = rest.rpartition(".")
        if section.lower() == "filter" and name:
            names.add(name)
    out: list[str] = []
    for name in sorted(names):
        for program in _FILTER_PROGRAMS:
            out += ["-c", f"filter.{name}.{program}="]
        out += ["-c", f"filter.{name}.required=false"]
    return out


def git(top: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``git`` on the repository whose work tree is ``top`` (see :func:`repository_of`), its git dir and work
    tree named explicitly, with :data:`GIT_SAFETY` and every filter driver blanked (:func:`filter_overrides`).
    Blocking."""
    return _run(top, [*filter_overrides(top), *args])


def ref_commit(
    option: str, ref: str, folder: Path, *, git_for: str = "", unknown_hint: str = ""
) -> tuple[Path, str]:
    """The repository holding ``folder`` and the commit ``ref`` names in it, for ``--baseline`` and
    ``--changed-since`` alike; each error starts with the ``option`` as the user typed it. Blocking (runs git)."""
    if shutil.which("git") is None:
        raise GitRefError(f"{option}: git is not installed{git_for}")
    repo = repository_of(folder)
    if repo is None or _run(repo, ["rev-parse", "--git-dir"]).returncode != 0:
        raise GitRefError(f"{option}: {folder} is not inside a git repository")
    commit = _run(repo, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"])
    if commit.returncode != 0 or not commit.stdout.strip():
        raise GitRefError(f"{option}: unknown git ref in {repo}{unknown_hint}")
    return repo, commit.stdout.strip()


def add_worktree(repo: Path, commit: str, prefix: str) -> Path:
    """A detached checkout of ``commit`` in a fresh temporary folder (``prefix`` names what it is for), made
    with :func:`git`'s safety; remove it with :func:`remove_worktree`. Raises :class:`GitRefError` with git's
    own last line when git refuses."""
    parent = Path(tempfile.mkdtemp(prefix=prefix))
    tree = parent / "tree"
    added = git(repo, "worktree", "add", "--detach", str(tree), commit)
    if added.returncode != 0:
        shutil.rmtree(parent, ignore_errors=True)
        raise GitRefError((added.stderr.strip().splitlines() or ["git worktree add failed"])[-1])
    return tree


def remove_worktree(repo: Path, tree: Path) -> None:
    """Remove the checkout and git's note of it (never leaves one behind, even when git refuses)."""
    git(repo, "worktree", "remove", "--force", str(tree))
    shutil.rmtree(tree.parent, ignore_errors=True)
    git(repo, "worktree", "prune")


@contextlib.contextmanager
def worktree_at(repo: Path, commit: str, prefix: str) -> Iterator[Path]:
    """:func:`add_worktree` for the length of a ``with`` block, removed afterwards, also on error."""
    tree = add_worktree(repo, commit, prefix)
    try:
        yield tree
    finally:
        remove_worktree(repo, tree)


def changed_names(top: Path, commit: str, rel: str) -> subprocess.CompletedProcess[str]:
    """``git diff --name-only`` of the work tree under ``rel`` against ``commit`` (NUL-separated), with no
    external diff or textconv program."""
    return git(
        top, "diff", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv", "-z", commit, "--", rel
    )
