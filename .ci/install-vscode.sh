#!/bin/bash
# Idempotent install of what the VS Code extension build and its code-server e2e test need:
#   Debian chromium (+ build deps for code-server's native modules, ripgrep),
#   code-server (registry-only recipe) in .tools/code-server,
#   the extension's npm dependencies, playwright-core for the e2e driver.
# Every step is skipped when its result is already there, so a warm machine takes about a second.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.100.3}   # newest release that runs on Node 20
CS_DIR=${CODE_SERVER_DIR:-$ROOT/.tools/code-server}
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
t0=$(date +%s)
say() { echo "[install-vscode $(( $(date +%s) - t0 ))s] $*"; }

# 1. Debian packages.
APT_PKGS=(chromium ripgrep build-essential pkg-config libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev)
missing=()
for p in "${APT_PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. code-server without downloads outside the npm registry.
if [ ! -x "$CS_DIR/node_modules/.bin/code-server" ] || [ ! -e "$CS_DIR/.installed-$CODE_SERVER_VERSION" ]; then
  say "installing code-server $CODE_SERVER_VERSION into $CS_DIR"
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR" && cd "$CS_DIR"
  export npm_config_nodedir=/usr npm_config_yes=true
  echo '{"private":true}' > package.json
  npm install --ignore-scripts --no-save "code-server@$CODE_SERVER_VERSION" >/dev/null
  npm rebuild argon2 >/dev/null 2>&1
  cd "$CS_DIR/node_modules/code-server/lib/vscode"
  npm install --omit=dev --ignore-scripts >/dev/null
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  npm rebuild >/dev/null 2>&1
  rm -rf node_modules.asar && ln -s node_modules node_modules.asar
  (cd bin/remote-cli && rm -f code-server && ln -s code-linux.sh code-server)
  (cd bin/helpers && rm -f browser.sh && ln -s browser-linux.sh browser.sh)
  (cd extensions && npm install --omit=dev --ignore-scripts >/dev/null && npm rebuild >/dev/null 2>&1)
  touch "$CS_DIR/.installed-$CODE_SERVER_VERSION"
fi

# 3. npm dependencies of the extension and of the playwright driver (only when the lock file changed).
npm_ci() {  # dir
  local dir=$1 stamp=$1/node_modules/.install-stamp
  if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
    say "npm ci in ${dir#"$ROOT"/}"
    (cd "$dir" && npm ci --no-audit --no-fund >/dev/null)
    touch "$stamp"
  fi
}
npm_ci "$ROOT/vscode-extension"
npm_ci "$ROOT/tests/editors/vscode"
say "done (code-server: $CS_DIR/node_modules/.bin/code-server)"
