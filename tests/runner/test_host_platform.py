"""Advice and fallbacks per platform (issue 40 item 4), with the platform simulated: macOS, Debian/Ubuntu, Fedora,
Arch, Alpine, WSL, root or not. macOS itself is not on this CI (docs/sandbox.md says what that leaves untested)."""

from __future__ import annotations

import pytest

from evalens.core.models.uaaps import ReportSandbox
from evalens.runner.host_platform import Host, manager_of

UBUNTU = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n'
FEDORA = 'NAME="Fedora Linux"\nID=fedora\n'
ROCKY = 'ID="rocky"\nID_LIKE="rhel centos fedora"\n'
ARCH = "ID=arch\n"
ALPINE = "ID=alpine\n"


@pytest.mark.parametrize(
    ("system", "release", "manager"),
    [
        ("darwin", None, "brew"),
        ("linux", UBUNTU, "apt"),
        ("linux", FEDORA, "dnf"),
        ("linux", ROCKY, "dnf"),
        ("linux", ARCH, "pacman"),
        ("linux", ALPINE, "apk"),
        ("linux", "ID=plan9\n", None),
        ("linux", None, None),
        ("win32", None, None),
    ],
)
def test_the_package_manager_is_read_from_the_os(
    system: str, release: str | None, manager: str | None
) -> None:
    assert manager_of(system, release) == manager


def test_each_platform_gets_its_own_fix_for_a_missing_sandbox() -> None:
    assert Host("linux", "apt").sandbox_fix(["bwrap", "socat"]) == "sudo apt-get install bubblewrap socat"
    assert Host("linux", "apt", root=True).sandbox_fix(["bwrap"]) == "apt-get install bubblewrap"
    assert Host("linux", "dnf").sandbox_fix(["socat"]) == "sudo dnf install socat"
    assert Host("linux", "pacman").sandbox_fix(["bwrap"]) == "sudo pacman -S bubblewrap"
    wsl = Host("linux", "apt", wsl=True)
    assert wsl.sandbox_fix(["bwrap"]) == "sudo apt-get install bubblewrap (in the WSL distribution's shell)"
    assert "WSL 2" in wsl.sandbox_fix([])
    mac = Host("darwin", "brew").sandbox_fix(["bwrap", "socat"])
    assert "Linux-only" in mac and "Seatbelt" in mac and "apt" not in mac
    assert "WSL 2" in Host("win32", None).sandbox_fix(["bwrap"])
    unknown = Host("linux", None).sandbox_fix(["bwrap"])
    assert unknown == "install bubblewrap with your package manager"
    assert "unprivileged user namespaces" in Host("linux", "apt").sandbox_fix([])


def test_tools_with_no_package_on_a_platform_get_no_install_command() -> None:
    assert Host("darwin", "brew").install("prlimit") is None  # no prlimit on macOS
    assert Host("darwin", "brew").install("node") == "brew install node"
    assert Host("linux", "apt").install("prlimit", "setpriv") == "sudo apt-get install util-linux"
    assert Host("linux", "apk").install("setpriv") == "sudo apk add setpriv"


def test_every_face_words_the_isolation_the_same() -> None:
    """`sandboxed: true` only for bubblewrap; the engine's configured sandbox is `engine`, never `true`."""
    assert ReportSandbox(enforced=True, method="bubblewrap", network=False).sandboxed == "true"
    assert ReportSandbox(enforced=False, method="engine", network=False).sandboxed == "engine"
    assert ReportSandbox(enforced=False, method="none", network=True).sandboxed == "false"


def test_the_engine_policy_accepts_the_engines_sandbox_and_required_does_not(capsys) -> None:
    from evalens.cli.sandbox_policy import refuse_after, refuse_before

    class Report:
        sandbox = ReportSandbox(enforced=False, method="engine", network=False)

    assert refuse_before("required", False, "warning: sandbox not enforced: no bwrap; …", "evalens eval") == 2
    assert "--sandbox engine" in capsys.readouterr().err
    assert refuse_before("engine", False, "…", "evalens eval") is None
    assert refuse_after("engine", Report(), "evalens eval") is None
    assert refuse_after("required", Report(), "evalens eval") == 2
    assert "sandboxed: engine" in capsys.readouterr().err


def test_without_proc_the_process_table_comes_from_ps(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS has no /proc: the process tree a run kills is read from `ps` (pid, ppid, group; zombies left out)."""
    from evalens.runner import agent_process

    monkeypatch.setattr(agent_process.os.path, "isdir", lambda p: False if p == "/proc" else True)
    monkeypatch.setattr(
        agent_process, "ps_table", lambda cols: [" 10 1 10 Ss", " 11 10 10 S+", " 12 10 10 Z"]
    )
    assert agent_process._proc_table() == {10: (1, 10), 11: (10, 10)}
