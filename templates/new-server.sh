#!/bin/sh
# Creates a server of your own tools from the starter, next to nothing else:
#
#   sh path/to/mcp-tasks-edge/templates/new-server.sh NAME [starter|gateway]
#
# makes the directory NAME (also the crate's, the Worker's and the server's name) from
# templates/starter (tools of your own, docs/authoring.md) or templates/gateway (the
# tools of MCP servers you have, docs/gateway.md), with its dependency on the library pointed at this copy of it (by
# path), and a copy of the library's web console (www/, with its browser bindings www/pkg
# when `make client` has built them) in NAME/console/, served at /. See docs/authoring.md.
set -eu
name=${1:-}
template=${2:-starter}
case $template in
  starter | gateway) ;;
  *) echo "usage: new-server.sh NAME [starter|gateway]" >&2; exit 2 ;;
esac
case $name in
  '' | -* | *[!a-z0-9-]*)
    echo "usage: new-server.sh NAME  (lower-case letters, digits and '-'; a new directory)" >&2
    exit 2 ;;
esac
if [ -e "$name" ]; then
  echo "new-server.sh: $name already exists" >&2
  exit 1
fi
templates=$(cd "$(dirname "$0")" && pwd)
library=$(dirname "$templates")
crate=$(printf %s "$name" | tr - _)
cp -R "$templates/$template" "$name"
# Build output of a starter built in place, if any.
rm -rf "$name/target" "$name/build" "$name/dist" "$name/node_modules" "$name/.wrangler"
for file in Cargo.toml Cargo.lock wrangler.toml src/lib.rs tests/tools.rs; do
  [ -f "$name/$file" ] || continue
  # The build command finds worker-build and wasm-bindgen where the library's `make setup-dev`
  # put them when the machine had none (its .tools/bin, first on the command's PATH).
  sed -e "s|path = \"../..\"|path = \"$library\"|" -e "s|directory = \"../../www\"|directory = \"console\"|" \
    -e "s|^command = \"WASM_BINDGEN_BIN=|command = \"PATH=$library/.tools/bin:\$PATH WASM_BINDGEN_BIN=|" \
    -e "s/my-mcp/$name/g" -e "s/my_mcp/$crate/g" -e "s/my-gateway/$name/g" -e "s/my_gateway/$crate/g" "$name/$file" > "$name/$file.new"
  mv "$name/$file.new" "$name/$file"
done
# The console is the server's own copy (deployed with it as static assets), not a path
# into the library, so the server can be moved or the console changed on its own.
cp -R "$library/www" "$name/console"
if [ ! -f "$name/console/pkg/mcp_tasks_edge.js" ]; then
  echo "new-server.sh: the console's browser bindings are not built: run \`make client\` in $library," >&2
  echo "  then: cp -R $library/www/pkg $name/console/ (the console at / needs them; the MCP server does not)" >&2
fi
echo "new-server.sh: $name/ is a server on the library in $library; next: cd $name && cargo test"
