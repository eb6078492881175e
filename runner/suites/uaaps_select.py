"""Which UAAPS cases a run covers: the package's eval config and its case files, selected by name, file or
target; invalid files are named, never a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalens.core.engines import engine_names
from evalens.core.env_policy import refusals
from evalens.core.models.uaaps import CaseExpected, EvalCase, EvalConfig, SandboxConfig, load_case
from evalens.core.models.uaaps import load_config as load_config_file
from evalens.core.units import read_doc
from evalens.runner.api_types import RunError
from evalens.runner.engines import UnsupportedEngine, get_engine


def normalised_case(case: EvalCase) -> EvalCase:
    """Model defaults given as plain dicts (``expected: {}``) become typed parts."""
    if not isinstance(case.expected, CaseExpected):
        case.expected = CaseExpected.model_validate(case.expected or {})
    return case


def load_config(root: Path) -> EvalConfig:
    path = root / "evals" / "eval-config.json"
    if not path.is_file():
        raise RunError(f"no eval config: {path} not found")
    try:
        config = load_config_file(path)
        if not isinstance(config.sandbox, SandboxConfig):
            config.sandbox = SandboxConfig.model_validate(config.sandbox or {})
    except Exception as exc:
        raw: Any = {}
        try:
            raw = read_doc(path, "uaaps-config").data
        except (OSError, ValueError):
            pass
        engine = raw.get("engine") if isinstance(raw, dict) else None
        if isinstance(engine, str) and engine not in engine_names():
            try:
                get_engine(engine)
            except UnsupportedEngine as unsupported:
                raise RunError(str(unsupported)) from None
        raise RunError(f"{path}: invalid eval config: {exc}") from None
    return _refuse_env(path, config)


def _refuse_env(path: Path, config: EvalConfig) -> EvalConfig:
    """The config, unless its ``env`` names a variable no eval file may set (:mod:`evalens.core.env_policy`):
    then the run is refused before anything starts, naming each one."""
    refused = refusals(config.env)
    if refused:
        raise RunError(f"{path}: " + "; ".join(refused))
    return config


def why(exc: Exception) -> str:
    """One line a user can act on, from a pydantic error or anything else."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            return f"`{where}`: {first.get('msg', '')}" if where else str(first.get("msg", exc))
        except Exception:  # noqa: BLE001
            pass
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def select_cases(
    root: Path, names: list[str], target: str | None, skipped: list[str] | None = None
) -> list[tuple[EvalCase, Path]]:
    """The cases to run; invalid files met in a whole-package run are reported in ``skipped``."""
    cases_dir = root / "evals" / "cases"
    files = sorted(p for p in cases_dir.glob("*.y*ml") if p.is_file()) if cases_dir.is_dir() else []
    wanted_files = {Path(n).resolve() for n in names if n.endswith((".yaml", ".yml"))}
    wanted_names = {n for n in names if not n.endswith((".yaml", ".yml"))}
    loaded, problems = _load_cases(files, names, wanted_files, wanted_names)
    if wanted_names:
        by_name = {c.name: (c, p) for c, p in loaded}
        missing = sorted(wanted_names - set(by_name))
        if missing:
            problems.append(f"no case named {', '.join(missing)} in {cases_dir}/")
        loaded = [(c, p) for c, p in loaded if c.name in wanted_names or p.resolve() in wanted_files]
    if target:
        loaded = [(c, p) for c, p in loaded if c.target == target]
    if problems and names:
        raise RunError("; ".join(problems))
    if skipped is not None:
        skipped.extend(f"{p} — not run (`evalens validate` shows why)" for p in problems)
    unique: dict[str, tuple[EvalCase, Path]] = {}
    for case, path in loaded:  # the first case of a name wins
        unique.setdefault(case.name, (case, path))
    if not unique:
        raise RunError(
            f"no eval cases selected in {cases_dir}/"
            + (f" (target {target})" if target else "")
            + (f"; {'; '.join(problems)}" if problems else "")
        )
    return list(unique.values())


def _load_cases(
    files: list[Path], names: list[str], wanted_files: set[Path], wanted_names: set[str]
) -> tuple[list[tuple[EvalCase, Path]], list[str]]:
    """The package's case files (only the named ones when files are named and no case is), then named files
    from elsewhere; the problems of those that do not load (a whole-package run skips them)."""
    loaded: list[tuple[EvalCase, Path]] = []
    problems: list[str] = []
    for path in files:
        if names and path.resolve() not in wanted_files and not wanted_names:
            continue
        try:
            case = normalised_case(load_case(path))
        except Exception as exc:
            if not names or path.resolve() in wanted_files:
                problems.append(f"{path}: invalid case: {why(exc)}")
            continue
        loaded.append((case, path))
    in_package = {p.resolve() for p in files}
    for path in wanted_files:
        if path not in in_package:
            try:
                loaded.append((normalised_case(load_case(path)), path))
            except FileNotFoundError:
                problems.append(f"case file {path} not found")
            except Exception as exc:
                problems.append(f"{path}: invalid case: {why(exc)}")
    return loaded, problems
