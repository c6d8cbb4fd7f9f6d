#!/bin/sh
# Builds the Worker bundle of the demo server (demo/, a crate on the library) with
# worker-build, pointing it at the tools `make setup-dev` found or installed (the machine's,
# or .tools/bin: scripts/tools.sh) instead of letting it download them from GitHub. (The
# panic guard, src/cloudflare/guard.js, is a wasm-bindgen snippet of the library:
# worker-build bundles it into build/index.js.)
# wrangler runs this on every `wrangler dev` start. It rebuilds whenever any input changed
# (sources, manifests, lockfile, wrangler.toml, this script): a digest of their contents
# is kept next to the bundle, so a checkout with old timestamps never serves a stale one.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=demo/build
# No symbol names in the Worker's wasm: a quarter of its size, used by nothing at run time
# (panic messages keep their file and line). `make profile` sets none to see function names.
# (Only with wasm-opt off, as here: stripping also drops the target-features section
# wasm-opt reads.) The environment's profile overrides are inputs too.
export CARGO_PROFILE_RELEASE_STRIP="${CARGO_PROFILE_RELEASE_STRIP:-true}"
# WORKER_FEATURES: cargo features of the demo crate to build with (the redeploy test
# builds `changed-checkpoint`); an input like the rest.
features="${WORKER_FEATURES:-}"
digest=$( ( (find src demo/src -type f | sort; echo Cargo.toml demo/Cargo.toml Cargo.lock wrangler.toml scripts/build-worker.sh) \
  | xargs sha256sum; env | grep '^CARGO_PROFILE_RELEASE_' | sort; echo "features=$features") | sha256sum | cut -d' ' -f1)
if [ -f "$out/index.js" ] && [ "$(cat "$out/.inputs" 2>/dev/null)" = "$digest" ]; then
  exit 0
fi
# `make serve`: whatever was built last, even if the sources changed since.
if [ -n "${SERVE_LAST_BUILD:-}" ] && [ -f "$out/index.js" ]; then
  echo "build-worker: serving the last build (SERVE_LAST_BUILD)" >&2
  exit 0
fi
. scripts/tools.sh
# --compile-only (scripts/setup-dev.sh --compile, while the tools install): only the cargo
# build worker-build runs first, exactly as it runs it (WASM_BINDGEN_USE_JS_SYS changes what
# wasm-bindgen's macro emits, and cargo does not track it), so that worker-build's own is then
# a no-op.
if [ "${1:-}" = --compile-only ]; then
  cd demo
  exec env WASM_BINDGEN_USE_JS_SYS=1 cargo build --lib --release --target wasm32-unknown-unknown ${features:+--features "$features"}
fi
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$(command -v wasm-bindgen)}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$root/node_modules/.bin/wasm-opt}"
export ESBUILD_BIN="${ESBUILD_BIN:-$root/node_modules/.bin/esbuild}"
if [ -n "$features" ]; then
  (cd demo && worker-build --release . --features "$features")
else
  (cd demo && worker-build --release)
fi
echo "$digest" > "$out/.inputs"
