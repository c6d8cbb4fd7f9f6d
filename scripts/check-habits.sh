#!/bin/sh
# `make lint`: the size and shape habits docs/architecture.md states, checked.
#   - no source file of the library, the demo or the starter over MAX_LINES lines (small files);
#   - no test file (tests/: .rs, .mjs, .js) over TEST_MAX_LINES lines, split by topic with
#     the helpers its parts share in a module of their own (tests/common/…); node_modules,
#     build output (target, build, pkg, dist) and hidden folders such as .wrangler are not ours;
#   - every JSON-RPC message is built by the wire modules' builders: a `"jsonrpc"` key in
#     code appears only in src/jsonrpc.rs and the browser client's src/browser/wire.rs
#     (tests and test fixtures aside);
#   - protocol payloads (results, notifications' params, error data) are `Serialize` types
#     written through `jsonrpc::payload`: no `json!` in code outside the wire modules, tests
#     and test fixtures, but for the few files JSON_LITERALS names, each with its reason (a
#     JSON Schema literal); a listed file without json! is reported too;
#   - one module convention: no `mod.rs` in the sources (a module with submodules is `foo.rs` beside `foo/`;
#     clippy's `mod_module_files` says the same when it compiles).
# `scripts/check-habits.sh --self-test` plants one violation of each in a copy of the tree
# and checks that each is caught, and that a test file at the limit or under node_modules is not.
set -eu
cd "$(dirname "$0")/.."
python3 - "$@" <<'PY'
import os, re, shutil, sys, tempfile

MAX_LINES = 420
ROOTS = ["src", "demo/src", "templates/starter/src"]
TEST_MAX_LINES = 400
TEST_ROOT = "tests"
TEST_EXTENSIONS = (".rs", ".mjs", ".js")
NOT_OURS = {"node_modules", "target", "build", "pkg", "dist"}
WIRE = {os.path.join("src", "jsonrpc.rs"), os.path.join("src", "browser", "wire.rs")}
TESTS = re.compile(r"(^|/)(tests?|fixtures)(\.rs|/)|_tests\.rs$")
JSONRPC_KEY = re.compile(r'"jsonrpc"\s*:')
JSON_MACRO = re.compile(r'\bjson!\s*[({\[]')
# Where a JSON literal is the point, not a protocol payload: the file and why.
JSON_LITERALS = {
    "src/tools/question.rs": "the JSON Schemas of a typed question's fields",
    "src/tools/tool.rs": "a tool's default inputSchema, a JSON Schema literal",
}

def sources(root):
    for base in ROOTS:
        for dirpath, _, names in os.walk(os.path.join(root, base)):
            for name in names:
                if name.endswith(".rs"):
                    full = os.path.join(dirpath, name)
                    yield os.path.relpath(full, root), full

def not_ours(name):
    return name in NOT_OURS or name.startswith(".")

def test_files(root):
    for dirpath, dirnames, names in os.walk(os.path.join(root, TEST_ROOT)):
        dirnames[:] = sorted(d for d in dirnames if not not_ours(d))
        for name in sorted(names):
            if name.endswith(TEST_EXTENSIONS):
                full = os.path.join(dirpath, name)
                yield os.path.relpath(full, root), full

def problems(root):
    found = []
    macro_users = set()
    for rel, full in test_files(root):
        lines = open(full, encoding="utf-8").read().count("\n")
        if lines > TEST_MAX_LINES:
            found.append(f"{rel}: {lines} lines (tests: at most {TEST_MAX_LINES}: split it by topic)")
    for rel, full in sources(root):
        text = open(full, encoding="utf-8").read()
        lines = text.count("\n")
        if lines > MAX_LINES:
            found.append(f"{rel}: {lines} lines (at most {MAX_LINES}: split it)")
        if os.path.basename(rel) == "mod.rs":
            found.append(f"{rel}: a mod.rs (name the module foo.rs beside its folder foo/)")
        if rel not in WIRE and not TESTS.search(rel.replace(os.sep, "/")):
            code = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("//"))
            if JSONRPC_KEY.search(code):
                found.append(f"{rel}: builds a JSON-RPC message by hand (use jsonrpc::notification, server_request, result_message)")
            allowed = rel.replace(os.sep, "/") in JSON_LITERALS
            if JSON_MACRO.search(code):
                macro_users.add(rel.replace(os.sep, "/"))
            if rel.startswith("src" + os.sep) and not allowed and JSON_MACRO.search(code):
                found.append(f"{rel}: builds a payload with json! (write a Serialize type, jsonrpc::payload; docs/architecture.md)")
    for listed in sorted(JSON_LITERALS):
        if listed not in macro_users:
            found.append(f"{listed}: allowed json! but has none (take it off the list)")
    return found

def self_test():
    plants = [
        ("src/planted_long.rs", "fn f() {}\n" * (MAX_LINES + 1), "lines"),
        ("src/planted/mod.rs", "\n", "mod.rs"),
        ("src/planted_message.rs", 'fn f() { json!({ "jsonrpc": "2.0" }); }\n', "by hand"),
        ("tests/planted_long.rs", "fn f() {}\n" * (TEST_MAX_LINES + 1), "lines"),
        ("tests/support/planted_long.mjs", "f();\n" * (TEST_MAX_LINES + 1), "lines"),
        ("tests/browser/planted_long.js", "f();\n" * (TEST_MAX_LINES + 1), "lines"),
        ("src/server/planted_payload.rs", '// json!({}) in a comment is no payload\nfn f() -> Value { serde_json::json!({ "resultType": "complete" }) }\n', "json!"),
    ]
    # Not violations: a test file at the limit, and files that are not the project's.
    spared = [
        ("tests/planted_at_limit.rs", "fn f() {}\n" * TEST_MAX_LINES),
        ("tests/bench/planted/node_modules/long.js", "f();\n" * (TEST_MAX_LINES + 1)),
        ("tests/planted/.wrangler/long.mjs", "f();\n" * (TEST_MAX_LINES + 1)),
        ("tests/planted/target/long.rs", "fn f() {}\n" * (TEST_MAX_LINES + 1)),
    ]
    def planted(path, text):
        tmp = tempfile.mkdtemp()
        for base in ROOTS + [TEST_ROOT]:
            shutil.copytree(base, os.path.join(tmp, base), ignore=lambda _, names: [n for n in names if not_ours(n)])
        target = os.path.join(tmp, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "w").write(text)
        return tmp, [p for p in problems(tmp) if p.startswith(path.replace("/", os.sep))]
    for path, text, marker in plants:
        tmp, found = planted(path, text)
        shutil.rmtree(tmp)
        if not any(marker in p for p in found):
            sys.exit(f"check-habits self-test: planting {path} was not caught")
    for path, text in spared:
        tmp, found = planted(path, text)
        shutil.rmtree(tmp)
        if found:
            sys.exit(f"check-habits self-test: {path} was reported: {found}")
    comment = '/// `json!({ "a": 1 })` in a doc comment\n// and json!([]) in a comment\n'
    tmp, found = planted("src/server/planted_comment.rs", comment)
    shutil.rmtree(tmp)
    if found:
        sys.exit(f"check-habits self-test: a json! in a comment was taken for code: {found}")
    print(f"check-habits self-test: {len(plants)} planted violations caught, {len(spared)} files at the limit or not ours spared, comments left alone")

if sys.argv[1:] == ["--self-test"]:
    self_test()
else:
    found = problems(".")
    for p in found:
        print(p)
    if found:
        sys.exit(1)
    print(f"check-habits: {sum(1 for _ in sources('.'))} files, none over {MAX_LINES} lines, no hand-built JSON-RPC message, no json! payload, no mod.rs; "
          f"{sum(1 for _ in test_files('.'))} test files, none over {TEST_MAX_LINES} lines")
PY
