#!/bin/sh
# `make setup`: installs everything the project needs on a fresh machine of this kind,
# idempotently (seconds when already done). Nothing is downloaded from GitHub: the
# wasm-bindgen CLI, wasm-pack, worker-build and geckodriver come from crates.io,
# wasm-opt (binaryen), esbuild, wrangler and Node 22 from npm, browsers from Debian,
# the Python MCP SDK (for tests/sdk) from PyPI into .venv-sdk.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf 'setup: %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown
fi

# The starter's smallest build (`npm run deploy:small`, templates/starter/package.json) builds
# std from source with the nightly toolchain it names; `make test-starter` builds it too.
small=$(sed -n 's/.*RUSTUP_TOOLCHAIN=\([^ ]*\) .*/\1/p' templates/starter/package.json | head -n 1)
if ! rustup component list --toolchain "$small" --installed 2>/dev/null | grep -q '^rust-src'; then
  say "installing the Rust toolchain $small with rust-src (the starter's smallest build)"
  rustup toolchain install "$small" --profile minimal --component rust-src --target wasm32-unknown-unknown
fi

have_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q "$2"; }

if ! have_version worker-build 0.8.7; then
  say "installing worker-build 0.8.7"; cargo install worker-build --version 0.8.7 --locked
fi
# The wasm-bindgen CLI must equal the library version in Cargo.lock.
bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! have_version wasm-bindgen "$bindgen"; then
  # Without --locked: the CLI's own lockfile names a yanked crate.
  say "installing wasm-bindgen-cli $bindgen"; cargo install wasm-bindgen-cli --version "$bindgen"
fi
if ! have_version wasm-pack 0.15; then
  say "installing wasm-pack"; cargo install wasm-pack --version 0.15.1 --locked
fi
if ! have_version geckodriver 0.37; then
  say "installing geckodriver"; cargo install geckodriver --version 0.37.1 --locked
fi

# npm packages (wrangler, Node 22, binaryen, esbuild, the conformance suite, playwright-core)
# from the committed lockfile (`npm ci` trips over workerd's per-platform optional
# packages, so `npm install`, which keeps the locked versions); redone only when it changes.
stamp=node_modules/.package-lock.sha
sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
  say "installing npm packages"; npm install --no-audit --no-fund
  echo "$sum" > "$stamp"
fi

# The Python SDK client for tests/sdk/python-legacy.test.mjs, in a venv under the repo root;
# redone only when the pinned version changes.
mcp_py=2.3.0
venv=.venv-sdk
if [ "$(cat "$venv/.mcp-version" 2>/dev/null)" != "$mcp_py" ] || [ ! -x "$venv/bin/python" ]; then
  say "installing the Python MCP SDK $mcp_py into $venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$mcp_py"
  echo "$mcp_py" > "$venv/.mcp-version"
fi

missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
[ -x /usr/bin/chromedriver ] || missing="$missing chromium-driver"
command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || missing="$missing firefox-esr"
if [ -n "$missing" ]; then
  say "installing Debian packages:$missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
say "ready"
