"""The rule catalog: every code the source can emit has an entry, docs/rules.md matches it, and diagnostics
link to it."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evalens.core.problems import Problem, Severity, Span
from evalens.core.rules import AREAS, DOCS_URL, catalog, doc_url, render_markdown, rule_for
from tests.conftest import CORPUS, EXAMPLE, REPO

SOURCE_DIRS = ("runner", "server", "evalens")
SEVERITY_NAMES = {"ERROR", "WARNING", "INFO", "HINT"}
# Calls whose code is a fixed positional argument: Problem(span, severity, code, ...), problem(doc, path, ...).
CODE_ARG = {"Problem": 2, "problem": 3}
# Codes built from data, with the prefix every value gets; checked below by other means.
FAMILIES = {
    "schema-": "JSON Schema keywords (test_schema_keywords_are_catalogued)",
    "eval-": "run verdicts (test_verdict_codes_are_catalogued)",
}


def _is_severity(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in SEVERITY_NAMES
    return isinstance(node, ast.Name) and (node.id in {"E", "W", "I", "H"} or "sev" in node.id.lower())


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


class _Scan(ast.NodeVisitor):
    """Collects code expressions at every place a problem gets its code."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.sites: list[tuple[ast.expr, str, ast.FunctionDef | None]] = []
        self.calls: list[tuple[ast.Call, str, ast.FunctionDef | None]] = []
        self.func: list[ast.FunctionDef] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.func.append(node)
        self.generic_visit(node)
        self.func.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _site(self, expr: ast.expr) -> None:
        self.sites.append((expr, f"{self.where}:{expr.lineno}", self.func[-1] if self.func else None))

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append((node, f"{self.where}:{node.lineno}", self.func[-1] if self.func else None))
        index = CODE_ARG.get(_call_name(node))
        if index is not None and len(node.args) > index:
            self._site(node.args[index])
        else:
            for i, arg in enumerate(node.args[:-1]):
                if _is_severity(arg):
                    self._site(node.args[i + 1])
        for kw in node.keywords:
            if kw.arg == "code" and _call_name(node) != "Rule":  # Rule(code=...): the catalog itself
                self._site(kw.value)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Attribute) and t.attr == "code" for t in node.targets):
            self._site(node.value)
        self.generic_visit(node)


def emitted_codes() -> tuple[dict[str, list[str]], list[str]]:
    """(code or family prefix -> where, sites whose code cannot be traced to a literal)."""
    scans = []
    for folder in SOURCE_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            scan = _Scan(str(path.relative_to(REPO)))
            scan.visit(ast.parse(path.read_text(encoding="utf-8")))
            scans.append(scan)
    resolver = _Resolver([c for s in scans for c in s.calls])
    for scan in scans:
        for expr, where, func in scan.sites:
            resolver.resolve(expr, where, func)
    return resolver.codes, resolver.unknown


class _Resolver:
    """Traces the expression a problem's code is built from back to string literals."""

    def __init__(self, calls: list) -> None:
        self.calls = calls
        self.codes: dict[str, list[str]] = {}
        self.unknown: list[str] = []

    def resolve(self, expr: ast.expr, where: str, func: ast.FunctionDef | None, depth: int = 0) -> None:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            self.codes.setdefault(expr.value, []).append(where)
            return
        if isinstance(expr, ast.IfExp):
            self.resolve(expr.body, where, func, depth)
            self.resolve(expr.orelse, where, func, depth)
            return
        if isinstance(expr, ast.JoinedStr) and expr.values and isinstance(expr.values[0], ast.Constant):
            prefix = str(expr.values[0].value)
            if prefix in FAMILIES:
                self.codes.setdefault(prefix, []).append(where)
                return
        if isinstance(expr, ast.Attribute) and expr.attr == "code":
            return  # copies an existing problem's code (server conversions)
        if (
            isinstance(expr, ast.Name)
            and func is not None
            and depth < 3
            and self.forwarded(expr, func, depth)
        ):
            return
        self.unknown.append(f"{where}: {ast.unparse(expr)}")

    def forwarded(self, expr: ast.Name, func: ast.FunctionDef, depth: int) -> bool:
        """A helper that forwards its ``code`` parameter: resolve what its callers pass (True if any)."""
        params = [a.arg for a in func.args.args]
        if expr.id not in params:
            return False
        pos = params.index(expr.id) - (1 if params and params[0] in ("self", "cls") else 0)
        callers = [(c, w, f) for c, w, f in self.calls if _call_name(c) == func.name]
        for call, cwhere, cfunc in callers:
            arg = next((k.value for k in call.keywords if k.arg == expr.id), None)
            if arg is None and 0 <= pos < len(call.args):
                arg = call.args[pos]
            if arg is not None:
                self.resolve(arg, cwhere, cfunc, depth + 1)
        return bool(callers)


@pytest.fixture(scope="module")
def scanned() -> tuple[dict[str, list[str]], list[str]]:
    """The source scan, read by the two tests below: it parses every module of the product (~3.5 s), once (#22)."""
    return emitted_codes()


def test_every_emitted_code_is_catalogued(scanned: tuple[dict[str, list[str]], list[str]]):
    codes, untraced = scanned
    assert not untraced, (
        "problem codes that are neither literals nor forwarded parameters (make them "
        f"literals, or teach this test the new pattern): {untraced}"
    )
    assert len(codes) > 80, "the scan found suspiciously few codes; has the emitting pattern changed?"
    missing = {c: w[:2] for c, w in codes.items() if c not in FAMILIES and c not in catalog()}
    assert not missing, f"codes without an entry in evalens/core/rules.toml: {missing}"
    assert set(FAMILIES) <= set(codes), "a code family stopped being emitted; update FAMILIES"


def test_scan_sees_codes_of_every_emitting_pattern(scanned: tuple[dict[str, list[str]], list[str]]):
    """The scan must know the codes set by literal, forwarded helper argument and re-coding assignment."""
    codes, _ = scanned
    for code in (
        "syntax",
        "unknown-key",
        "missing-key",
        "angle-brackets",
        "string-id",
        "unsupported-engine",
        "name-directory-mismatch",
        "lookalike",
        "eval-check-failed",
    ):
        assert code in codes, code


def test_schema_keywords_are_catalogued():
    """``schema-<keyword>`` for every keyword the bundled schemas use has an entry or the family entry."""
    from jsonschema import Draft202012Validator

    words: set[str] = set()

    def walk(x: object, named: bool = False) -> None:
        if isinstance(x, dict):
            if (
                not named
            ):  # the keys of `properties` / `$defs` are names (a field called `format`), not keywords
                words.update(x)
            for k, v in x.items():
                walk(v, named=not named and k in ("properties", "patternProperties", "$defs", "definitions"))
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for path in (REPO / "schemas").glob("*.json"):
        walk(json.loads(path.read_text(encoding="utf-8")))
    descending = {
        "$ref",
        "properties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "required",
        "additionalProperties",
        "if",
        "then",
        "else",
        "prefixItems",
        "patternProperties",
    }
    for word in sorted(words & set(Draft202012Validator.VALIDATORS) - descending):
        assert f"schema-{word}" in catalog(), f"schema-{word} needs its own entry"
    assert rule_for("schema-maxItems").code == "schema"  # any other keyword falls back to the family


def test_verdict_codes_are_catalogued():
    from typing import get_args

    from evalens.runner.api import Verdict

    for verdict in get_args(Verdict):
        assert f"eval-{verdict.lower()}" in catalog()


def test_codes_seen_on_the_corpus_and_examples_are_catalogued():
    """A run-time backstop for the source scan: validate real files, look every code up."""
    from evalens.core.index import IndexCache
    from evalens.core.validate import iter_candidate_files, validate_file

    roots = [p for p in (CORPUS, EXAMPLE) if p.is_dir()]
    indexes = IndexCache()
    seen: set[str] = set()
    for path in iter_candidate_files(roots):
        seen |= {p.code for p in validate_file(path, indexes).problems}
    assert seen, "no problems at all: the corpus is missing or validation is broken"
    assert {c for c in seen if rule_for(c) is None} == set()


def test_entries_are_complete():
    for code, rule in catalog().items():
        assert re.fullmatch(r"[a-z][a-zA-Z0-9-]*", code), code
        assert rule.area in AREAS, (code, rule.area)
        for field in ("title", "checks", "why", "fix"):
            assert getattr(rule, field).strip(), (code, field)


def test_docs_rules_md_is_generated_from_the_catalog():
    path = REPO / "docs" / "rules.md"
    assert path.read_text(encoding="utf-8") == render_markdown(), (
        "docs/rules.md is stale: python -m evalens.core.rules --write docs/rules.md"
    )
    text = path.read_text(encoding="utf-8")
    for code in catalog():
        assert f'<a id="{code}"></a>' in text


def test_rules_module_check_flag(tmp_path: Path):
    stale = tmp_path / "rules.md"
    stale.write_text("old\n")
    cmd = [sys.executable, "-m", "evalens.core.rules"]
    assert subprocess.run([*cmd, "--check", str(stale)], capture_output=True, timeout=60).returncode == 1
    assert (
        subprocess.run(
            [*cmd, "--check", str(REPO / "docs" / "rules.md")], capture_output=True, timeout=60
        ).returncode
        == 0
    )


@pytest.mark.parametrize(
    "code, anchor",
    [
        ("unknown-key", "unknown-key"),
        ("schema-type", "schema-type"),
        ("schema-not", "schema"),
        ("eval-fail", "eval-fail"),
    ],
)
def test_doc_url(code: str, anchor: str):
    assert doc_url(code) == f"{DOCS_URL}#{anchor}"
    assert DOCS_URL.startswith("https://evalens.dev/")  # the host of the schemas' $id
    assert doc_url("not-a-rule") is None


def test_diagnostics_link_to_their_rule():
    from evalens.server.convert import to_diagnostic

    diag = to_diagnostic(Problem(Span(0, 0, 0, 3), Severity.WARNING, "unknown-key", "m"), ["abc"], "utf-16")
    assert diag.code == "unknown-key"
    assert diag.code_description is not None
    assert diag.code_description.href == "https://evalens.dev/rules#unknown-key"
