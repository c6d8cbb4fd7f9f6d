#!/bin/sh
# Builds the Rust no-op baseline (build/index.js + wasm) with worker-build exactly as
# scripts/build-worker.sh builds the project: the tools `make setup` installed instead of
# downloads from GitHub, and the project's release profile. Its own target dir, so it never
# waits on (or invalidates) the main build. Returns at once when the bundle is up to date.
# `build.sh DIR` builds the baseline crate in DIR instead (../baseline-rust-ceiling), into
# DIR/build and with this directory's target dir (the dependencies are built once).
set -eu
own=$(cd "$(dirname "$0")" && pwd)
here=$(cd "${1:-$own}" && pwd)
root=$(cd "$own/../../.." && pwd)
cd "$here"
if [ -f build/index.js ] && [ -z "$(find src Cargo.toml Cargo.lock -newer build/index.js -print -quit 2>/dev/null)" ]; then
  exit 0
fi
. "$root/scripts/tools.sh"
export CARGO_TARGET_DIR="$own/target"
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$(command -v wasm-bindgen)}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$root/node_modules/.bin/wasm-opt}"
export ESBUILD_BIN="${ESBUILD_BIN:-$root/node_modules/.bin/esbuild}"
worker-build --release
touch build/index.js
