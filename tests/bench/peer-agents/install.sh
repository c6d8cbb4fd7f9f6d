#!/bin/sh
# Installs the `agents` peer's packages (pinned in package-lock.json) into its own
# node_modules; returns at once when they are already installed from this lockfile.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
stamp=node_modules/.installed-lock
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
npm ci --no-audit --no-fund --ignore-scripts
cp package-lock.json "$stamp"
