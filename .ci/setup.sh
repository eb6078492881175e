#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine (idempotent; fast when already installed):
# evalens with its test extras, the real agent CLIs + bubblewrap, Neovim 0.7.2 and 0.11,
# code-server + chromium for the VS Code e2e test, and yaml-language-server for the schema check.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
t0=$(date +%s)
say() { echo "[setup $(( $(date +%s) - t0 ))s] $*"; }

if [ -z "${EVALENS_SKIP_APT_UPDATE:-}" ] && [ ! -f /tmp/.evalens-apt-updated ]; then
  say "apt-get update"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq && touch /tmp/.evalens-apt-updated || true
fi
say "pip install -e .[test]"
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
for script in install-agents install-neovim install-vscode; do
  if [ -f ".ci/$script.sh" ]; then
    say "$script"
    bash ".ci/$script.sh"
  fi
done
YLS="$ROOT/.tools/yls"
if [ ! -x "$YLS/node_modules/.bin/yaml-language-server" ]; then
  say "yaml-language-server 2.0.0"
  mkdir -p "$YLS"
  (cd "$YLS" && { [ -f package.json ] || npm init -y >/dev/null; } && \
    npm install --no-audit --no-fund --loglevel=error yaml-language-server@2.0.0 >/dev/null)
fi
say "done"
