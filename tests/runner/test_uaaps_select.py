"""``evalens.runner.suites.uaaps_select``: the eval config a UAAPS run reads (refused engines and ``env``
named), and which cases a run covers, by name, file or target, with invalid files named, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from evalens.core.models.uaaps import CaseExpected, EvalCase, SandboxConfig
from evalens.runner.api_types import RunError
from evalens.runner.suites.uaaps_select import load_config, normalised_case, select_cases, why

CONFIG = {"version": 1, "engine": "claude-code", "timeout": 60, "judge": "judge-m"}


def _package(root: Path, config: object = CONFIG, **cases: str) -> Path:
    (root / "evals" / "cases").mkdir(parents=True)
    if config is not None:
        text = config if isinstance(config, str) else json.dumps(config)
        (root / "evals" / "eval-config.json").write_text(text, encoding="utf-8")
    for file, text in cases.items():
        (root / "evals" / "cases" / file.replace("_", ".")).write_text(text, encoding="utf-8")
    return root


def _case(name: str, target: str | None = None) -> str:
    return (
        f"name: {name}\n"
        + (f"target: {target}\n" if target else "")
        + "input:\n  prompt: Say hi\njudge:\n  criteria: It says hi.\n"
    )


def _names(selected: list[tuple[EvalCase, Path]]) -> list[str]:
    return [case.name for case, _ in selected]


# --- load_config ---------------------------------------------------------------------------------------------


def test_load_config_types_the_sandbox(tmp_path: Path) -> None:
    config = load_config(_package(tmp_path))
    assert config.engine == "claude-code"
    assert isinstance(config.sandbox, SandboxConfig)


def test_load_config_without_a_file(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    with pytest.raises(RunError, match="no eval config: .*eval-config.json not found"):
        load_config(tmp_path)


def test_load_config_invalid(tmp_path: Path) -> None:
    _package(tmp_path, {"version": 1, "engine": "claude-code", "timeout": -1})
    with pytest.raises(RunError, match="invalid eval config"):
        load_config(tmp_path)


def test_load_config_not_json(tmp_path: Path) -> None:
    _package(tmp_path, "{broken")
    with pytest.raises(RunError, match="invalid eval config"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    ("engine", "said"),
    [
        ("copilot", "copilot is reserved"),
        ("cursor", "cursor is reserved"),
        ("gpt-x", "unsupported engine 'gpt-x'"),
    ],
)
def test_load_config_names_an_unsupported_engine(tmp_path: Path, engine: str, said: str) -> None:
    _package(tmp_path, {**CONFIG, "engine": engine})
    with pytest.raises(RunError) as info:
        load_config(tmp_path)
    assert said in str(info.value)
    assert "invalid eval config" not in str(info.value)
    assert "supported engines: claude-code, codex" in str(info.value)


def test_load_config_refuses_env_a_file_may_not_set(tmp_path: Path) -> None:
    _package(
        tmp_path, {**CONFIG, "env": {"PDF_STRICT": "1", "LD_PRELOAD": "/x.so", "HTTPS_PROXY": "http://p"}}
    )
    with pytest.raises(RunError) as info:
        load_config(tmp_path)
    text = str(info.value)
    assert "env.LD_PRELOAD is refused" in text
    assert "env.HTTPS_PROXY is refused" in text
    assert "PDF_STRICT" not in text
    assert text.index("LD_PRELOAD") < text.index("HTTPS_PROXY")  # in the config's order


def test_load_config_keeps_allowed_env(tmp_path: Path) -> None:
    assert load_config(_package(tmp_path, {**CONFIG, "env": {"PDF_STRICT": "1"}})).env == {"PDF_STRICT": "1"}


# --- why and normalised_case ---------------------------------------------------------------------------------


class _M(BaseModel):
    timeout: int


def test_why_names_the_field_of_a_pydantic_error() -> None:
    try:
        _M.model_validate({"timeout": "soon"})
    except ValidationError as exc:
        assert why(exc).startswith("`timeout`: ")
        assert "integer" in why(exc)
    else:  # pragma: no cover
        pytest.fail("no validation error")


def test_why_of_other_errors_is_their_first_line() -> None:
    assert why(ValueError("first line\nsecond")) == "first line"
    assert why(OSError()) == "OSError"


def test_why_survives_an_errors_method_that_breaks() -> None:
    class Odd(Exception):
        def errors(self) -> list[object]:
            return []

    assert why(Odd("plain")) == "plain"


def test_why_of_an_error_without_location() -> None:
    class NoLoc(Exception):
        def errors(self) -> list[dict[str, object]]:
            return [{"msg": "bad root"}]

    assert why(NoLoc("x")) == "bad root"


def test_normalised_case_types_expected() -> None:
    case = EvalCase.model_construct(name="a", expected={"contains": ["X"]})
    assert isinstance(normalised_case(case).expected, CaseExpected)
    assert case.expected.contains == ["X"]
    empty = EvalCase.model_construct(name="b", expected=None)
    assert isinstance(normalised_case(empty).expected, CaseExpected)


# --- select_cases --------------------------------------------------------------------------------------------


def test_whole_package_in_file_order(tmp_path: Path) -> None:
    root = _package(tmp_path, **{"02-b_yaml": _case("b"), "01-a_yml": _case("a"), "notes_txt": "ignored"})
    selected = select_cases(root, [], None)
    assert _names(selected) == ["a", "b"]
    assert selected[0][1] == root / "evals" / "cases" / "01-a.yml"


def test_whole_package_skips_invalid_files_and_names_them(tmp_path: Path) -> None:
    root = _package(tmp_path, **{"01-a_yaml": _case("a"), "02-bad_yaml": "name: Not A Valid Name\n"})
    skipped: list[str] = []
    assert _names(select_cases(root, [], None, skipped)) == ["a"]
    assert len(skipped) == 1
    assert "02-bad.yaml: invalid case: `name`" in skipped[0]
    assert skipped[0].endswith("not run (`evalens validate` shows why)")


def test_select_by_name(tmp_path: Path) -> None:
    root = _package(
        tmp_path, **{"01-a_yaml": _case("a"), "02-b_yaml": _case("b"), "03-bad_yaml": "name: [\n"}
    )
    assert _names(select_cases(root, ["b"], None)) == ["b"]  # an invalid file elsewhere does not stop it


def test_select_by_a_missing_name(tmp_path: Path) -> None:
    root = _package(tmp_path, **{"01-a_yaml": _case("a")})
    with pytest.raises(RunError, match=r"no case named nope, zzz in .*cases/"):
        select_cases(root, ["zzz", "a", "nope"], None)


def test_select_by_file(tmp_path: Path) -> None:
    root = _package(tmp_path, **{"01-a_yaml": _case("a"), "02-b_yaml": _case("b")})
    file = str(root / "evals" / "cases" / "02-b.yaml")
    assert _names(select_cases(root, [file], None)) == ["b"]


def test_select_a_file_outside_the_package(tmp_path: Path) -> None:
    root = _package(tmp_path / "pkg", **{"01-a_yaml": _case("a")})
    extra = tmp_path / "extra.yaml"
    extra.write_text(_case("extra"), encoding="utf-8")
    selected = select_cases(root, [str(extra)], None)
    assert _names(selected) == ["extra"]
    assert selected[0][1] == extra.resolve()


def test_select_a_missing_or_invalid_file_raises(tmp_path: Path) -> None:
    root = _package(tmp_path, **{"01-a_yaml": _case("a"), "02-bad_yaml": "name: BAD\n"})
    with pytest.raises(RunError, match=r"case file .*gone\.yaml not found"):
        select_cases(root, [str(tmp_path / "gone.yaml")], None)
    with pytest.raises(RunError, match=r"02-bad\.yaml: invalid case: `name`"):
        select_cases(root, [str(root / "evals" / "cases" / "02-bad.yaml")], None)


def test_select_by_target(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        **{
            "01-a_yaml": _case("a", "skill:pdf"),
            "02-b_yaml": _case("b", "skill:other"),
            "03-c_yaml": _case("c"),
        },
    )
    assert _names(select_cases(root, [], "skill:pdf")) == ["a"]
    with pytest.raises(RunError, match=r"no eval cases selected in .*cases/ \(target skill:none\)"):
        select_cases(root, [], "skill:none")


def test_the_first_case_of_a_name_wins(tmp_path: Path) -> None:
    root = _package(
        tmp_path, **{"01-a_yaml": _case("same", "skill:one"), "02-b_yaml": _case("same", "skill:two")}
    )
    ((case, path),) = select_cases(root, [], None)
    assert case.target == "skill:one"
    assert path.name == "01-a.yaml"


def test_nothing_to_select(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    with pytest.raises(RunError, match="no eval cases selected"):
        select_cases(tmp_path, [], None)


def test_nothing_valid_to_select_names_the_problems(tmp_path: Path) -> None:
    root = _package(tmp_path, **{"01-bad_yaml": "name: BAD\n"})
    with pytest.raises(RunError) as info:
        select_cases(root, [], None)
    assert "no eval cases selected" in str(info.value)
    assert "01-bad.yaml: invalid case" in str(info.value)
