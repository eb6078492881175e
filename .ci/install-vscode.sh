#!/bin/bash
# Idempotent install of what the VS Code extension build and its code-server e2e test need:
#   Debian chromium (+ build deps for code-server's native modules, ripgrep),
#   code-server (registry-only recipe, shared/reference/editors-e2e.md §3) in a machine-wide cache,
#   linked as .tools/code-server, and the npm dependencies of the extension and of the playwright driver.
# CI runs in a fresh clone, so installs live in $EVALENS_CACHE (default /var/cache/evalens) and a warm
# machine only links or copies them: about 5 s instead of 3 minutes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.100.3}   # newest release that runs on Node 20
CACHE=${EVALENS_CACHE:-/var/cache/evalens}
CS_DIR=$CACHE/code-server-$CODE_SERVER_VERSION
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
t0=$(date +%s)
say() { echo "[install-vscode $(( $(date +%s) - t0 ))s] $*"; }

# 1. Debian packages.
APT_PKGS=(chromium ripgrep build-essential pkg-config libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev)
missing=()
for p in "${APT_PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  APT=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  if ! "${APT[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    "${APT[@]}" update -qq
    "${APT[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# 2. code-server without downloads outside the npm registry.
if [ ! -e "$CS_DIR/.installed" ]; then
  say "installing code-server $CODE_SERVER_VERSION into $CS_DIR"
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR" && cd "$CS_DIR"
  export npm_config_nodedir=/usr npm_config_yes=true   # node-gyp uses local headers; node-pty's npx does not prompt
  echo '{"private":true}' > package.json
  npm install --ignore-scripts --no-save --loglevel=error "code-server@$CODE_SERVER_VERSION" >/dev/null
  npm rebuild argon2 >/dev/null 2>&1                   # the prebuilt download fails; falls back to a source build
  cd "$CS_DIR/node_modules/code-server/lib/vscode"
  npm install --omit=dev --ignore-scripts --loglevel=error >/dev/null
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg   # instead of @vscode/ripgrep's download
  npm rebuild --loglevel=error >/dev/null
  rm -rf node_modules.asar && ln -s node_modules node_modules.asar
  (cd bin/remote-cli && rm -f code-server && ln -s code-linux.sh code-server)
  (cd bin/helpers && rm -f browser.sh && ln -s browser-linux.sh browser.sh)
  (cd extensions && npm install --omit=dev --ignore-scripts --loglevel=error >/dev/null && npm rebuild --loglevel=error >/dev/null)
  touch "$CS_DIR/.installed"
fi
mkdir -p "$ROOT/.tools"
if [ "$(readlink "$ROOT/.tools/code-server" 2>/dev/null)" != "$CS_DIR" ]; then
  rm -rf "$ROOT/.tools/code-server" && ln -s "$CS_DIR" "$ROOT/.tools/code-server"
fi

# 3. npm dependencies (install scripts off: esbuild runs from its platform package, vsce needs no keytar),
#    cached per package-lock.json so a fresh clone copies them instead of installing.
npm_deps() {  # dir
  local dir=$1 key stamp cached
  key=$(sha256sum "$dir/package-lock.json" | cut -c1-16)
  stamp=$dir/node_modules/.evalens-$key
  [ -f "$stamp" ] && return 0
  cached=$CACHE/npm/$(basename "$dir")-$key
  if [ ! -f "$cached/node_modules/.evalens-$key" ]; then
    say "npm ci in ${dir#"$ROOT"/}"
    (cd "$dir" && npm ci --ignore-scripts --prefer-offline --loglevel=error >/dev/null)
    touch "$stamp"
    rm -rf "$cached" && mkdir -p "$cached" && cp -a "$dir/node_modules" "$cached/"
  else
    say "node_modules of ${dir#"$ROOT"/} from $cached"
    rm -rf "$dir/node_modules" && cp -a "$cached/node_modules" "$dir/"
  fi
}
npm_deps "$ROOT/vscode-extension"
npm_deps "$ROOT/tests/editors/vscode"
say "done (code-server: $ROOT/.tools/code-server/node_modules/.bin/code-server)"
