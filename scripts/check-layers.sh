#!/bin/sh
# `make lint`: no import cycle between sibling modules at any depth (the crate's folders,
# and the modules inside each folder, e.g. `cloudflare/session_object/*`), and the
# layering docs/architecture.md "Map" states: the core never uses an adapter (cloudflare,
# browser) or the 2025-11-25 era (legacy).
#
# Reads the paths code names (not comments or strings): `crate::…`, `super::…` (any
# number of them) and `self::…`, in `use` trees with groups (`use crate::{a, b::{c, d}}`)
# as well as inline. A path resolves to the deepest module it names; a use between two
# modules counts at their lowest common parent, between the two children of it they sit
# under. A child using its own parent (or the other way round) is not an edge.
# Prints the offending edges and fails if there are any.
#
# `scripts/check-layers.sh --self-test` plants violations in a copy of the tree and
# checks that each one is caught.
set -eu
cd "$(dirname "$0")/.."
python3 - "$@" <<'PY'
import os, re, shutil, sys, tempfile

def modules_of(root):
    """Module path (tuple) of every .rs file under root."""
    files = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            if not name.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root).split(os.sep)
            if rel == ["lib.rs"]:
                path = ()
            elif rel[-1] == "mod.rs":
                path = tuple(rel[:-1])
            else:
                path = tuple(rel[:-1]) + (rel[-1][:-3],)
            files[os.path.join(dirpath, name)] = path
    return files

STRIP = re.compile(
    r'//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'',
    re.S,
)
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|::|[{},*]|\S")

def tokens(text):
    return TOKEN.findall(STRIP.sub(" ", text))

def parse(toks, k, cur):
    """Parses the path (or use tree) at toks[k] under `cur`; returns (paths, next k)."""
    if k >= len(toks):
        return [cur], k
    t = toks[k]
    if t == "{":
        k, found = k + 1, []
        while k < len(toks) and toks[k] != "}":
            sub, k = parse(toks, k, cur)
            found += sub
            if k < len(toks) and toks[k] == ",":
                k += 1
        return found, k + 1
    if t == "*":
        return [cur], k + 1
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t):
        return [cur], k
    if t == "super":
        cur = cur[:-1]
    elif t == "crate":
        cur = ()
    elif t != "self":
        cur = cur + (t,)
    k += 1
    if k < len(toks) and toks[k] == "::":
        return parse(toks, k + 1, cur)
    return [cur], k

def references(toks, here):
    """Every path a file names, resolved from its module `here`."""
    found = []
    for k, t in enumerate(toks):
        if t not in ("crate", "super", "self"):
            continue
        if k + 1 >= len(toks) or toks[k + 1] != "::":
            continue
        if k > 0 and toks[k - 1] == "::":
            continue  # inside a path already read
        found += parse(toks, k, here)[0]
    return found

def resolve(path, known):
    while path and path not in known:
        path = path[:-1]
    return path

def check(root):
    files = modules_of(root)
    known = set(files.values())
    levels = {}  # parent module -> {child: set(children it uses)}
    for file, here in files.items():
        text = open(file, encoding="utf-8").read()
        for path in references(tokens(text), here):
            target = resolve(path, known)
            n = 0
            while n < min(len(here), len(target)) and here[n] == target[n]:
                n += 1
            if n == len(here) or n == len(target):
                continue  # the module itself, an ancestor or a descendant
            parent = here[:n]
            levels.setdefault(parent, {}).setdefault(here[n], set()).add(target[n])
    problems = []
    adapters, era = {"cloudflare", "browser"}, {"legacy"}
    for a, used in sorted(levels.get((), {}).items()):
        for b in sorted(used):
            if b in adapters:
                problems.append(f"{a} -> {b}: only the adapters' entry points may use an adapter")
            if b in era and a not in adapters:
                problems.append(f"{a} -> {b}: the core never uses the 2025-11-25 era")
    for parent, edges in sorted(levels.items()):
        def reaches(start, goal):
            seen, todo = set(), [start]
            while todo:
                n = todo.pop()
                if n == goal:
                    return True
                if n not in seen:
                    seen.add(n)
                    todo.extend(edges.get(n, ()))
            return False
        where = "/".join(parent) + "/" if parent else ""
        for a, used in sorted(edges.items()):
            for b in sorted(used):
                if reaches(b, a):
                    problems.append(f"cycle: {where}{a} -> {where}{b} -> ... -> {where}{a}")
    folders = sum(1 for p in known if any(q[:-1] == p for q in known))
    return sorted(set(problems)), folders

def report(root):
    problems, folders = check(root)
    if problems:
        print("check-layers: " + "\n check-layers: ".join(problems))
        return False
    print(f"check-layers: {folders} folders (the crate, its folders and theirs): no cycle, no layer broken")
    return True

def self_test():
    """Each planted violation must be caught (and the tree as it is must pass)."""
    plants = [
        ("grouped import of the era", "src/tasks/task.rs", "use crate::{error, legacy::tasks};\n", "tasks -> legacy"),
        ("nested group", "src/quota/plan.rs", "use crate::{error::McpError, browser::{flow}};\n", "quota -> browser"),
        ("inline path", "src/mcp/params.rs", "fn _x() { crate::server::Server::builder(\"x\"); }\n", "cycle: mcp -> server"),
        ("super:: between siblings", "src/cloudflare/session_object/streams.rs",
         "use super::tasks::handle;\n", "cycle: cloudflare/session_object/streams -> cloudflare/session_object/tasks"),
        ("super::super:: across folders", "src/ops/log/events.rs",
         "use super::super::admin::inspect;\n", "cycle: ops/admin -> ops/log"),
    ]
    assert report("src"), "the tree itself must pass"
    ok = True
    for name, file, line, expected in plants:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "src")
            shutil.copytree("src", copy)
            target = os.path.join(tmp, file)
            with open(target, "a", encoding="utf-8") as f:
                f.write(line)
            problems, _ = check(copy)
            caught = any(expected in p for p in problems)
            print(f"self-test: {name}: {'caught' if caught else 'MISSED'} ({expected})")
            ok &= caught
    return ok

if sys.argv[1:] == ["--self-test"]:
    sys.exit(0 if self_test() else 1)
sys.exit(0 if report("src") else 1)
PY
