#!/bin/sh
# `make lint`: no import cycle between the crate's folders (top-level modules), and the
# layering docs/architecture.md "Map" states: the core never uses an adapter (cloudflare,
# browser) or the 2025-11-25 era (legacy). Reads `crate::<module>` paths in code, not in
# comments. Prints the offending edges and fails if there are any.
set -eu
cd "$(dirname "$0")/.."
python3 - <<'PY'
import os, re, sys
root = "src"
modules = sorted({n[:-3] if n.endswith(".rs") else n for n in os.listdir(root)} - {"lib"})
edges = {m: set() for m in modules}
for dirpath, _, files in os.walk(root):
    for name in files:
        if not name.endswith(".rs"):
            continue
        path = os.path.join(dirpath, name)
        top = os.path.relpath(path, root).split(os.sep)[0]
        top = top[:-3] if top.endswith(".rs") else top
        if top == "lib":
            continue
        for line in open(path, encoding="utf-8"):
            code = line.split("//", 1)[0]
            for used in re.findall(r"\bcrate::([a-z_]+)", code):
                if used != top and used in edges:
                    edges[top].add(used)
problems = []
adapters, era = {"cloudflare", "browser"}, {"legacy"}
for a, used in sorted(edges.items()):
    for b in sorted(used):
        if b in adapters and a != b:
            problems.append(f"{a} -> {b}: only the adapters' entry points may use an adapter")
        if b in era and a not in adapters:
            problems.append(f"{a} -> {b}: the core never uses the 2025-11-25 era")
def reaches(start, goal):
    seen, todo = set(), [start]
    while todo:
        n = todo.pop()
        if n == goal:
            return True
        if n not in seen:
            seen.add(n)
            todo.extend(edges[n])
    return False
for a, used in sorted(edges.items()):
    for b in sorted(used):
        if reaches(b, a):
            problems.append(f"cycle: {a} -> {b} -> ... -> {a}")
if problems:
    print("check-layers: " + "\n check-layers: ".join(sorted(set(problems))))
    sys.exit(1)
print(f"check-layers: {len(modules)} folders, no cycle")
PY
