#!/bin/sh
# `make setup`: everything the project needs on a fresh machine of this kind, idempotently
# (seconds when already done): what building and serving need (scripts/setup-dev.sh, all
# that `make dev` installs), then what only the tests need (scripts/setup-test.sh). Tools
# the machine lacks go under the project, in .tools/ (scripts/tools.sh); nothing is
# downloaded from GitHub.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/setup-dev.sh"
sh "$root/scripts/setup-test.sh"
