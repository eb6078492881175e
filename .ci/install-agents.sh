#!/usr/bin/env bash
# Install the real agent CLIs (Claude Code, Codex) into .tools/node and the sandbox tools (bubblewrap, socat,
# libfaketime for the cross-month replay test). Idempotent: skips what is already present. Prints where the
# binaries are. `--pins` prints the pinned versions and exits.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in one place, each engine's `verified_versions` (its second item is the pin; docs/cli-tracks.md),
# read from the source without importing evalens (this script may run before `pip install`).
pin() {  # pin FILE CLASS
  python3 - "$ROOT/$1" "$2" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1], encoding="utf-8").read())
for node in ast.walk(tree):
    if isinstance(node, ast.ClassDef) and node.name == sys.argv[2]:
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and any(getattr(t, "id", "") == "verified_versions" for t in stmt.targets):
                print(ast.literal_eval(stmt.value)[1])
PY
}
PIN_CLAUDE="$(pin runner/engines/claude_code.py ClaudeCode)"
PIN_CODEX="$(pin runner/engines/codex.py Codex)"
if [ "${1:-}" = "--pins" ]; then
  echo "claude-code $PIN_CLAUDE"
  echo "codex $PIN_CODEX"
  exit 0
fi
TOOLS="${EVALENS_TOOLS_DIR:-$ROOT/.tools}"
NODE_DIR="$TOOLS/node"
BIN="$NODE_DIR/node_modules/.bin"

mkdir -p "$NODE_DIR"
if [ ! -f "$NODE_DIR/package.json" ]; then
  (cd "$NODE_DIR" && npm init -y >/dev/null)
fi

# Pinned to the versions the runner's event-stream parsing was verified against; override with
# EVALENS_CLAUDE_CODE_VERSION / EVALENS_CODEX_VERSION. "latest" (the canary track of .ci/run) is resolved to the
# registry's current version first, so a canary folder installed yesterday is upgraded when a release lands.
CLAUDE_VERSION="${EVALENS_CLAUDE_CODE_VERSION:-$PIN_CLAUDE}"
CODEX_VERSION="${EVALENS_CODEX_VERSION:-$PIN_CODEX}"
resolve() {  # resolve PACKAGE WANTED: WANTED, or the registry's current version for "latest"
  if [ "$2" = "latest" ]; then
    npm view "$1" version 2>/dev/null || echo latest
  else
    echo "$2"
  fi
}
CLAUDE_VERSION="$(resolve @anthropic-ai/claude-code "$CLAUDE_VERSION")"
CODEX_VERSION="$(resolve @openai/codex "$CODEX_VERSION")"
has_version() {  # has_version BIN WANTED: the installed CLI reports WANTED (any version when it stayed "latest")
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
# libfaketime: the cross-month replay test moves the CLI's clock (tests/runner/test_agents_cli_tracks.py)
FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
[ -f "$FAKETIME_LIB" ] || [ "$(uname -m)" != x86_64 ] || need_apt+=(faketime)
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
echo "faketime: $([ -f "$FAKETIME_LIB" ] && echo "$FAKETIME_LIB" || echo 'missing')"
echo "export EVALENS_TOOLS_DIR=$TOOLS"
