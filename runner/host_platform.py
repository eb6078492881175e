"""The machine evalens runs on, as far as advice and fallbacks need it: which OS, which package manager, WSL.

`doctor` and every run's preflight name a fix; a fix that names `apt-get` on macOS or Fedora is no fix. The facts
are read once from `sys.platform`, `/etc/os-release` and the WSL markers, and every piece can be given instead, so
the advice for each platform is unit tested here (macOS itself cannot be tested on this Linux CI: docs/sandbox.md).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# Package names per manager for the tools evalens may ask for (a missing entry: the tool has no package there).
PACKAGES: dict[str, dict[str, str]] = {
    "apt": {"bwrap": "bubblewrap", "socat": "socat", "prlimit": "util-linux", "setpriv": "util-linux",
            "node": "nodejs npm"},
    "dnf": {"bwrap": "bubblewrap", "socat": "socat", "prlimit": "util-linux", "setpriv": "util-linux",
            "node": "nodejs npm"},
    "pacman": {"bwrap": "bubblewrap", "socat": "socat", "prlimit": "util-linux", "setpriv": "util-linux",
               "node": "nodejs npm"},
    "apk": {"bwrap": "bubblewrap", "socat": "socat", "prlimit": "util-linux-misc", "setpriv": "setpriv",
            "node": "nodejs npm"},
    "zypper": {"bwrap": "bubblewrap", "socat": "socat", "prlimit": "util-linux", "setpriv": "util-linux",
               "node": "nodejs npm"},
    "brew": {"socat": "socat", "node": "node"},  # no bubblewrap, prlimit or setpriv on macOS
}  # fmt: skip
INSTALL = {
    "apt": "apt-get install",
    "dnf": "dnf install",
    "pacman": "pacman -S",
    "apk": "apk add",
    "zypper": "zypper install",
    "brew": "brew install",
}
_FAMILIES = {
    "debian": "apt",
    "ubuntu": "apt",
    "fedora": "dnf",
    "rhel": "dnf",
    "centos": "dnf",
    "rocky": "dnf",
    "almalinux": "dnf",
    "amzn": "dnf",
    "arch": "pacman",
    "manjaro": "pacman",
    "alpine": "apk",
    "suse": "zypper",
    "opensuse": "zypper",
    "opensuse-leap": "zypper",
    "opensuse-tumbleweed": "zypper",
}


@dataclass(frozen=True, slots=True)
class Host:
    """What the advice depends on."""

    system: str  # "linux", "darwin", "win32", …
    manager: str | None  # "apt", "dnf", "brew", … (None: not known)
    wsl: bool = False
    root: bool = False

    @property
    def macos(self) -> bool:
        return self.system == "darwin"

    def install(self, *tools: str) -> str | None:
        """The command that installs ``tools`` here (None when this platform has no package for one of them,
        or its package manager is unknown)."""
        if self.manager is None:
            return None
        names = PACKAGES.get(self.manager, {})
        wanted = [names.get(t) for t in tools]
        if any(n is None for n in wanted):
            return None
        packages = " ".join(dict.fromkeys(" ".join(n for n in wanted if n).split()))
        sudo = "" if self.root or self.manager == "brew" else "sudo "
        command = f"{sudo}{INSTALL[self.manager]} {packages}"
        return f"{command} (in the WSL distribution's shell)" if self.wsl else command

    def sandbox_fix(self, missing: list[str]) -> str:
        """What to do when bubblewrap cannot confine the agent here."""
        if self.macos:
            return (
                "bubblewrap is Linux-only: on macOS evalens runs the engine's own sandbox (Seatbelt), configured as "
                "strictly as the engine allows (docs/sandbox.md)"
            )
        if self.system != "linux":
            return "run evalens inside WSL 2 or a Linux machine or container: bubblewrap needs Linux"
        if missing:
            command = self.install(*missing)
            if command is not None:
                return command
            return f"install {' and '.join(PACKAGES['apt'].get(t, t) for t in missing)} with your package manager"
        if self.wsl:
            return "use WSL 2 (WSL 1 has no user namespaces), then allow unprivileged user namespaces"
        return "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)"


def manager_of(system: str, os_release: str | None) -> str | None:
    """The package manager of a system from its ``/etc/os-release`` text (``ID`` then ``ID_LIKE``)."""
    if system == "darwin":
        return "brew"
    if system != "linux" or not os_release:
        return None
    fields: dict[str, str] = {}
    for line in os_release.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip('"').strip("'")
    for name in [fields.get("ID", ""), *fields.get("ID_LIKE", "").split()]:
        if name.lower() in _FAMILIES:
            return _FAMILIES[name.lower()]
    return None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")[:65536]
    except OSError:
        return None


@cache
def this_host() -> Host:
    """The machine this process runs on (read once)."""
    system = sys.platform
    release = _read("/proc/sys/kernel/osrelease") or ""
    wsl = system == "linux" and ("microsoft" in release.lower() or bool(os.environ.get("WSL_DISTRO_NAME")))
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    return Host(system, manager_of(system, _read("/etc/os-release")), wsl, root)
