#!/usr/bin/env bash
# Install the real agent CLIs (Claude Code, Codex) into .tools/node and the sandbox tools (bubblewrap, socat).
# Idempotent: skips what is already present. Prints where the binaries are.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${EVALENS_TOOLS_DIR:-$ROOT/.tools}"
NODE_DIR="$TOOLS/node"
BIN="$NODE_DIR/node_modules/.bin"

mkdir -p "$NODE_DIR"
if [ ! -f "$NODE_DIR/package.json" ]; then
  (cd "$NODE_DIR" && npm init -y >/dev/null)
fi

# Pinned to the versions the runner's event-stream parsing was verified against (shared/reference/agent-clis.md);
# override with EVALENS_CLAUDE_CODE_VERSION / EVALENS_CODEX_VERSION (e.g. "latest").
CLAUDE_VERSION="${EVALENS_CLAUDE_CODE_VERSION:-2.1.197}"
CODEX_VERSION="${EVALENS_CODEX_VERSION:-0.169.0}"
has_version() {  # has_version BIN WANTED: the installed CLI reports WANTED (or any version when WANTED=latest)
  local out
  out="$("$1" --version 2>/dev/null)" || return 1
  [ "$2" = "latest" ] || [[ "$out" == *"$2"* ]]
}
need_npm=()
has_version "$BIN/claude" "$CLAUDE_VERSION" || need_npm+=("@anthropic-ai/claude-code@$CLAUDE_VERSION")
has_version "$BIN/codex" "$CODEX_VERSION" || need_npm+=("@openai/codex@$CODEX_VERSION")
if [ "${#need_npm[@]}" -gt 0 ]; then
  echo "install-agents: npm install ${need_npm[*]}" >&2
  (cd "$NODE_DIR" && npm install --no-audit --no-fund --loglevel=error "${need_npm[@]}" >&2)
fi

# If npm skipped Claude Code's postinstall, claude.exe stays a placeholder: link the native binary instead.
if ! "$BIN/claude" --version >/dev/null 2>&1; then
  native="$NODE_DIR/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
  if [ -x "$native" ]; then
    ln -sf "$native" "$BIN/claude"
  fi
fi

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v socat >/dev/null 2>&1 || need_apt+=(socat)
# prlimit (every agent run's resource limits) and setpriv (the runner-user tests): util-linux
{ command -v prlimit && command -v setpriv; } >/dev/null 2>&1 || need_apt+=(util-linux)
if [ "${#need_apt[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-agents: apt-get install ${need_apt[*]}" >&2
  APT=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  if ! $SUDO "${APT[@]}" install -y --no-install-recommends "${need_apt[@]}" >/dev/null 2>&1; then
    $SUDO "${APT[@]}" update >/dev/null
    $SUDO "${APT[@]}" install -y --no-install-recommends "${need_apt[@]}" >&2
  fi
fi

echo "claude: $BIN/claude ($("$BIN/claude" --version 2>/dev/null || echo 'not working'))"
echo "codex:  $BIN/codex ($("$BIN/codex" --version 2>/dev/null || echo 'not working'))"
echo "bwrap:  $(command -v bwrap || echo 'missing') ($(bwrap --version 2>/dev/null || true))"
echo "socat:  $(command -v socat || echo 'missing')"
echo "export EVALENS_TOOLS_DIR=$TOOLS"
