#!/bin/sh
# Times a first run on a fresh machine, simulated on this one (the figures in README.md
# and docs/testing.md):
#
#   sh scripts/time-first-dev.sh [PORT]               # the first `make dev` of a fresh clone
#   sh scripts/time-first-dev.sh starter DIR [PORT]   # then a starter's first npm install && npm run dev
#
# `make dev`: a fresh clone of this repository (its committed HEAD) in a new temp dir, run
# with a new HOME whose CARGO_HOME has nothing but rustup's proxies (cargo, rustc, rustup:
# the toolchains and the wasm32 target are rustup's, kept), so neither the machine's tools
# (worker-build, wasm-bindgen, wasm-pack in ~/.cargo/bin) nor its crates or npm cache are
# seen: every crate and npm package is downloaded again, every tool installed into the
# clone's .tools/. PATH is the system's (its Node, 20 here, runs the first `npm install`).
# `starter DIR`: in DIR, the temp dir of such a run (its clone has built the console's
# bindings and holds the tools in .tools/), a server made by templates/new-server.sh, then
# `npm install && npm run dev` with another new HOME (no crates, no npm cache) and the
# system's Node 20. Each is timed from its first command until the server answers
# tools/list on PORT (default 8797), then stopped. Prints the seconds and the machine's
# load (`uptime`) before and after; leaves the temp dir (its path is printed).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
mode=dev
if [ "${1:-}" = starter ]; then mode=starter; work=$2; shift 2; fi
port=${1:-8797}

fresh_home() { # DIR: a HOME with rustup's proxies only
  mkdir -p "$1/.cargo/bin"
  for t in cargo rustc rustup rustdoc; do ln -sf "$HOME/.cargo/bin/rustup" "$1/.cargo/bin/$t"; done
}

if [ "$mode" = dev ]; then
  work=$(mktemp -d /tmp/first-dev.XXXXXX)
  git clone -q "$root" "$work/repo"
  home="$work/home"
  cwd="$work/repo"
  set -- make dev PORT="$port"
else
  home="$work/home-starter"
  rm -rf "$work/first-server" "$home"
  (cd "$work" && sh repo/templates/new-server.sh first-server)
  cwd="$work/first-server"
  set -- sh -c "npm install --no-audit --no-fund && npm run dev -- --ip 127.0.0.1 --port $port"
fi
fresh_home "$home"
if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "first-$mode: port $port is taken" >&2; exit 1; fi
log="$work/$mode.log"
echo "first-$mode: $cwd; load before: $(uptime)"
start=$(date +%s)
(cd "$cwd" && exec env -i HOME="$home" CARGO_HOME="$home/.cargo" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
  PATH="$home/.cargo/bin:/usr/local/bin:/usr/bin:/bin" TERM=dumb CI=true WRANGLER_SEND_METRICS=false \
  setsid "$@") > "$log" 2>&1 &
pid=$!
body='{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
while :; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "first-$mode: it exited; see $log" >&2; tail -n 30 "$log" >&2; exit 1
  fi
  if curl -sf "http://127.0.0.1:$port/mcp" -H 'content-type: application/json' -H 'mcp-protocol-version: 2026-07-28' \
    -H 'mcp-method: tools/list' -d "$body" 2>/dev/null | grep -q '"tools"'; then
    break
  fi
  sleep 2
done
end=$(date +%s)
echo "first-$mode: tools/list answered after $((end - start)) s; load after: $(uptime)"
grep -E '^setup:|Finished|^client: ' "$log" || true
# Its whole process group (wrangler, workerd); `kill -- -PGID` is not dash's.
pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
kill -TERM "-$pgid" || true
