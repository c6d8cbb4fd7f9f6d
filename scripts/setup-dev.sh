#!/bin/sh
# `make setup-dev` (run by `make dev`, `make build`, `make client`): only what building and
# serving need, idempotently (a second or two when done): the wasm32 target, worker-build
# and the wasm-bindgen CLI (crates.io; into .tools/ unless the machine has them at the
# pinned versions: scripts/tools.sh), and the npm packages (wrangler, Node 22, binaryen,
# esbuild, …). Nothing from GitHub. What only the tests need (browsers, drivers, Python,
# the nightly toolchain, wasm-pack) is scripts/setup-test.sh's, which `make test` adds.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/tools.sh
say() { printf 'setup: %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown
fi

# The two cargo installs and the npm install run side by side: each spends much of its time
# on one core (resolving, downloading, linking, its last crates), and the machine may have
# more. Each logs to .tools/log/; a failure prints its log.
mkdir -p .tools/log
pids=""
background() { # NAME COMMAND...: runs COMMAND in the background, logged to .tools/log/NAME
  name=$1; shift
  ( "$@" > ".tools/log/$name" 2>&1 || { echo "setup: $name failed:" >&2; cat ".tools/log/$name" >&2; exit 1; } ) &
  pids="$pids $!"
}

if ! have_version worker-build 0.8.7; then
  say "installing worker-build 0.8.7 into .tools"
  background worker-build cargo install --root "$tools" worker-build --version 0.8.7 --locked
fi
bindgen=$(bindgen_version)
if ! have_version wasm-bindgen "$bindgen"; then
  # Without --locked: the CLI's own lockfile names a yanked crate.
  say "installing wasm-bindgen-cli $bindgen into .tools"
  background wasm-bindgen cargo install --root "$tools" wasm-bindgen-cli --version "$bindgen"
fi

# npm packages (wrangler, Node 22, binaryen, esbuild, the conformance suite, playwright-core)
# from the committed lockfile (`npm ci` trips over workerd's per-platform optional
# packages, so `npm install`, which keeps the locked versions); redone only when it changes.
stamp=node_modules/.package-lock.sha
sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
  say "installing npm packages"
  npm_install() { npm install --no-audit --no-fund && echo "$sum" > "$stamp"; }
  background npm npm_install
fi

failed=0
for pid in $pids; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || exit 1
say "ready to build and serve"
