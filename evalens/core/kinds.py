"""The file kinds evalens handles, declared once: every format's path globs plus the folders whose files are
claimed by content (a format's sniff or a modeline).

The server publishes this list at ``initialize`` (``capabilities.experimental.evalens.fileKinds``); the VS Code
extension reads it from there, and the Neovim setup ships a copy generated from it
(``editors/nvim/lua/evalens/kinds.lua``, ``vscode-extension/src/fileKinds.generated.ts`` is the extension's
fallback until the server answers). The server itself publishes a generated copy too
(``evalens/core/file_kinds.json``): the list is computed from every format module, and loading them all before
the initialize answer was a third of the server's start (issue 43); they load right after it instead.
``tests/core/test_file_kinds.py`` fails when a copy drifts. Regenerate all three with
``python -m evalens.core.kinds --write``.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: One published file kind as editors receive it (``glob``, ``languageId``, ``formats``). Its shape is declared
#: once, as the wire model ``evalens.server.wire.FileKind`` (the extension's TypeScript type is generated from
#: it; ``tests/core/test_file_kinds.py`` validates every published kind against it). A plain mapping here: the
#: initialize answer stays free of pydantic (issue 43).
FileKindWire = dict[str, Any]


@dataclass(frozen=True, slots=True)
class FileKind:
    """Files matching ``glob`` (a brace-free LSP glob over the whole path) are ``language_id`` documents that
    one of ``formats`` may claim; no formats: any format may claim them by content."""

    glob: str
    language_id: str  # an LSP language id, also the Neovim filetype: yaml | json | markdown
    formats: tuple[str, ...]

    def wire(self) -> FileKindWire:
        return {"glob": self.glob, "languageId": self.language_id, "formats": list(self.formats)}

    def matches(self, path: str) -> bool:
        # lazy: the server's initialize answer reads only the published copy of the kinds (issue 43)
        from evalens.core.formats.base import glob_regex

        return bool(glob_regex(self.glob).search(path.replace("\\", "/")))


CONTENT_KINDS: tuple[FileKind, ...] = (
    # skilljack suites and trigger sets may have any name under evals/ (registry.sniffs); UAAPS reports too.
    FileKind("**/evals/**/*.yaml", "yaml", ()),
    FileKind("**/evals/**/*.yml", "yaml", ()),
    FileKind("**/evals/**/*.json", "json", ()),
)


@cache
def file_kinds() -> tuple[FileKind, ...]:
    """Every file kind: the formats' globs in registry order (a glob two formats share is one kind), then
    the content-claimed folders."""
    # lazy: as glob_regex in FileKind.matches (the published copy needs no format module)
    from evalens.core.formats.registry import all_formats

    by_glob: dict[str, tuple[str, list[str]]] = {}
    for fmt in all_formats():
        for glob in fmt.globs:
            for one in expand_braces(glob):
                language, ids = by_glob.setdefault(one, (fmt.language, []))
                if language != fmt.language:
                    raise ValueError(f"{one}: claimed as {language} and {fmt.language}")
                ids.append(fmt.id)
    kinds = [FileKind(g, lang, tuple(ids)) for g, (lang, ids) in by_glob.items()]
    return (*kinds, *CONTENT_KINDS)


def computed() -> list[FileKindWire]:
    """The published list, computed from the format modules (loads them all)."""
    return [k.wire() for k in file_kinds()]


@cache
def _generated() -> tuple[str, ...] | None:
    try:
        return (JSON_PATH.read_text(encoding="utf-8"),)
    except OSError:
        return None


def published() -> list[FileKindWire]:
    """The list the server sends at ``initialize``: the generated copy, which loads no format module (the
    computed list when the copy is missing)."""
    text = _generated()
    return json.loads(text[0]) if text is not None else computed()


def kind_of(path: str) -> FileKind | None:
    """The first kind whose glob matches ``path``."""
    return next((k for k in file_kinds() if k.matches(path)), None)


def language_ids() -> list[str]:
    """The language ids (Neovim filetypes) of every kind, in first-seen order."""
    return list(dict.fromkeys(k.language_id for k in file_kinds()))


def expand_braces(glob: str) -> list[str]:
    """``a.{x,y}`` -> ``a.x``, ``a.y`` (one level, as format globs use)."""
    m = re.search(r"\{([^{}]*)\}", glob)
    if not m:
        return [glob]
    return [
        out
        for alt in m.group(1).split(",")
        for out in expand_braces(glob[: m.start()] + alt + glob[m.end() :])
    ]


def vim_regex(glob: str) -> str:
    """The glob as a Vim regex (``vim.regex``, Neovim 0.7+) matching a whole path's tail, case-sensitive,
    with the same meaning as ``formats.base.glob_regex``."""
    out = ""
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out += r"\(.*/\)\="
            i += 3
            continue
        c = glob[i]
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c in "\\.[]~^$":
            out += "\\" + c
        else:
            out += c
        i += 1
    return r"\m\C\(^\|/\)" + out + "$"


# ----------------------------------------------------------------------------------- generated copies
ROOT = Path(__file__).resolve().parents[2]
JSON_PATH = Path(__file__).with_name("file_kinds.json")
LUA_PATH = ROOT / "editors" / "nvim" / "lua" / "evalens" / "kinds.lua"
TS_PATH = ROOT / "vscode-extension" / "src" / "fileKinds.generated.ts"
_HEADER = "Generated by `python -m evalens.core.kinds --write` from evalens/core/kinds.py; do not edit."


def _lua_str(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def lua_source() -> str:
    lines = [
        f"-- {_HEADER}",
        "-- The file kinds the evalens server publishes at initialize (capabilities.experimental.evalens).",
        "return {",
    ]
    for k in file_kinds():
        formats = ", ".join(_lua_str(f) for f in k.formats)
        lines.append(
            f"  {{ glob = {_lua_str(k.glob)}, language_id = {_lua_str(k.language_id)}, "
            f"formats = {{ {formats} }}, regex = {_lua_str(vim_regex(k.glob))} }},"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def ts_source() -> str:
    body = "[\n" + "".join(f"  {json.dumps(k)},\n" for k in computed()) + "]"
    return (
        f"// {_HEADER}\n"
        "// The extension's fallback until the server's initialize result (capabilities.experimental.evalens)"
        " arrives.\n"
        'import type { FileKind } from "./protocol";\n\n'
        f"export const BUILTIN_FILE_KINDS: readonly FileKind[] = {body};\n"
    )


def json_source() -> str:
    return json.dumps(computed(), indent=1) + "\n"


def main(argv: list[str]) -> int:
    """``--write``: regenerate the Lua, TypeScript and JSON copies; otherwise print the published JSON."""
    if "--write" in argv:
        LUA_PATH.write_text(lua_source(), encoding="utf-8")
        TS_PATH.write_text(ts_source(), encoding="utf-8")
        JSON_PATH.write_text(json_source(), encoding="utf-8")
        return 0
    print(json.dumps(computed(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
