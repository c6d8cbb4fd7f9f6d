#!/bin/sh
# The test part of `make setup` (`make test` runs it, after scripts/setup-dev.sh): what the
# test layers need beyond building and serving, idempotently (seconds when done): the nightly
# toolchain of the starter's smallest build, wasm-pack (`wasm-pack test`, tests/browser) and
# geckodriver from crates.io (into .tools/ unless the machine has them: scripts/tools.sh),
# the Python MCP SDK 2.x and 1.x from PyPI into .venv-sdk and .venv-sdk1, and Debian's Chromium,
# ChromeDriver and Firefox ESR. Nothing from GitHub.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/tools.sh
say() { printf 'setup: %s\n' "$*"; }

# The starter's smallest build (`npm run deploy:small`, templates/starter/package.json) builds
# std from source with the nightly toolchain it names; `make test-starter` builds it too.
small=$(sed -n 's/.*RUSTUP_TOOLCHAIN=\([^ ]*\) .*/\1/p' templates/starter/package.json | head -n 1)
if ! rustup component list --toolchain "$small" --installed 2>/dev/null | grep -q '^rust-src'; then
  say "installing the Rust toolchain $small with rust-src (the starter's smallest build)"
  rustup toolchain install "$small" --profile minimal --component rust-src --target wasm32-unknown-unknown
fi

if ! have_version wasm-pack 0.15; then
  say "installing wasm-pack into .tools"; tool_install wasm-pack --version 0.15.1 --locked
fi
if ! have_version geckodriver 0.37; then
  say "installing geckodriver into .tools"; tool_install geckodriver --version 0.37.1 --locked
fi

# The Python SDK, each version in a venv under the repo root, redone only when its pinned
# version changes: 2.x for tests/sdk/python-legacy.test.mjs (its client) and for the gateway's
# Python upstream (tests/e2e/gateway-python.test.mjs, its MCPServer); 1.x, as most Python
# servers that exist are written (FastMCP), for that upstream too.
python_sdk() { # venv version
  if [ "$(cat "$1/.mcp-version" 2>/dev/null)" != "$2" ] || [ ! -x "$1/bin/python" ]; then
    say "installing the Python MCP SDK $2 into $1"
    [ -x "$1/bin/python" ] || python3 -m venv "$1"
    "$1/bin/pip" install --quiet --disable-pip-version-check "mcp==$2"
    echo "$2" > "$1/.mcp-version"
  fi
}
python_sdk .venv-sdk 2.3.0
python_sdk .venv-sdk1 1.30.0

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
say "ready to test"
