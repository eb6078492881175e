#!/usr/bin/env bash
# Install yaml-language-server 2.0.0 (npm) into .tools/yls for benchmarks/lsp_bench.py.
# Idempotent: does nothing when the pinned version is already there. Prints the server's path.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${EVALENS_TOOLS_DIR:-$ROOT/.tools}"
DIR="$TOOLS/yls"
VERSION="${YLS_VERSION:-2.0.0}"
PKG="$DIR/node_modules/yaml-language-server/package.json"

command -v node >/dev/null 2>&1 || { echo "install-yls: node is not installed" >&2; exit 1; }
mkdir -p "$DIR"
if [ ! -f "$DIR/package.json" ]; then
  (cd "$DIR" && npm init -y >/dev/null)
fi
have=""
[ -f "$PKG" ] && have="$(node -p "require('$PKG').version" 2>/dev/null || true)"
if [ "$have" != "$VERSION" ]; then
  echo "install-yls: npm install yaml-language-server@$VERSION" >&2
  (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error "yaml-language-server@$VERSION" >&2)
fi
echo "$DIR/node_modules/yaml-language-server/bin/yaml-language-server"
