#!/bin/sh
# Builds the rmcp peer (a native release binary) with its own CARGO_TARGET_DIR, from the
# committed Cargo.lock (--locked); --offline when every locked crate is already downloaded,
# so a machine without network builds it too. Returns at once when the binary is up to date.
# The binary: target/release/bench-peer-rmcp.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
bin=target/release/bench-peer-rmcp
if [ -x "$bin" ] && [ -z "$(find src Cargo.toml Cargo.lock -newer "$bin" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="$here/target"
host=$(rustc -vV | sed -n 's/^host: //p')
if cargo fetch --locked --offline --target "$host" >/dev/null 2>&1; then offline=--offline; else offline=; fi
cargo build --release --locked $offline
touch "$bin"
