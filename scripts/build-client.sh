#!/bin/sh
# `make client`: builds the browser bindings (feature `browser`) as the npm package
# `mcp-tasks-edge` in www/pkg/ (the console imports it from there), then packs it into
# target/npm/mcp-tasks-edge-<version>.tgz (what `npm install` takes; docs/web-apps.md).
#
#  1. `cargo build --lib --release --target wasm32-unknown-unknown --features browser` (in
#     target/client, so `make dev` can build the Worker in target/ at the same time), then
#     `wasm-bindgen --target web --typescript` (ES module glue that finds the wasm with
#     `new URL('mcp_tasks_edge_bg.wasm', import.meta.url)`): the files `wasm-pack build
#     --target web --no-pack` made, byte for byte, without wasm-pack; then npm binaryen's
#     wasm-opt;
#  2. the package.json: name, version (Cargo.toml's), ESM `exports` with `types`, and
#     `files` naming the wasm and every snippet the glue imports;
#  3. `npm pack`, and the sizes: the wasm gzipped (budget 150 KB), the glue, the tarball.
#
# Like scripts/build-worker.sh, it does nothing when no input changed since the last build
# (a digest of the sources, manifests, lockfile and these scripts in target/npm/.inputs).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/tools.sh
out=www/pkg
digest=$( (find src -type f | sort; echo Cargo.toml Cargo.lock scripts/build-client.sh scripts/package-json.mjs) \
  | xargs sha256sum | sha256sum | cut -d' ' -f1)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
if [ -f "$out/package.json" ] && [ -f "target/npm/mcp-tasks-edge-$version.tgz" ] \
  && [ "$(cat target/npm/.inputs 2>/dev/null)" = "$digest" ]; then
  echo "client: $out is current"
  exit 0
fi
compile() { cargo build --lib --release --target wasm32-unknown-unknown --target-dir target/client --features browser; }
# --compile-only (scripts/setup-dev.sh --compile, while the tools install): the cargo build.
if [ "${1:-}" = --compile-only ]; then compile; exit; fi
rm -rf "$out" target/npm/.inputs
compile
wasm-bindgen --target web --typescript --out-dir "$out" --out-name mcp_tasks_edge \
  target/client/wasm32-unknown-unknown/release/mcp_tasks_edge.wasm
wasm="$out/mcp_tasks_edge_bg.wasm"
"$root/node_modules/.bin/wasm-opt" -Oz --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
mv "$wasm.opt" "$wasm"
node scripts/package-json.mjs "$out"
mkdir -p target/npm
tarball=$(cd "$out" && npm pack --silent --pack-destination "$root/target/npm")
raw=$(wc -c < "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
glue=$(gzip -9 -c "$out/mcp_tasks_edge.js" | wc -c)
tgz=$(wc -c < "target/npm/$tarball")
echo "client: $wasm $raw bytes, $gz bytes gzipped (budget 153600); glue $glue bytes gzipped"
echo "client: package target/npm/$tarball ($tgz bytes)"
if [ "$gz" -gt 153600 ]; then
  echo "client: the wasm is over the 150 KB gzipped budget" >&2
  exit 1
fi
echo "$digest" > target/npm/.inputs
