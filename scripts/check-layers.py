#!/usr/bin/env python3
"""Fails when the code's dependencies stop pointing one way.

1. No import circle between the source files of the compiler, the runtime and the studio
   (a file using a module that uses it back, through any chain). A module and its own
   submodules are one unit here.
2. The compiler's phases depend only on the layers below them:
   diagnostic, digest, release, command < git, model < discover < parse < check < resolve < render < pipeline
   and cases < workspace_check < edit, interop, mcp. `main.rs` and its commands (`cli/`)
   are above everything and nothing imports them.
3. The studio uses the compiler's API only (what `lib.rs` exports at its root and its API
   modules), never a phase's insides (`skillc::parse::…`, `skillc::pipeline::…`, …) nor
   `skillc::internals`, the integration tests' window on them. The phases are `pub(crate)`, so the
   compiler holds most of this; the check names the file.

It reads `crate::…` and `super::…` paths (tests modules left out) from the files themselves:
no build needed. Usage: check-layers.py [REPO]
"""

import os
import re
import sys

LAYERS = {
    "diagnostic": 0, "codes": 0, "command": 0, "digest": 0, "content_digest": 0, "release": 0, "sign": 0, "meaning": 0,
    "git": 1, "model": 1, "discover": 2, "parse": 3, "check": 4, "resolve": 5, "render": 6,
    "pipeline": 7, "cases": 7, "workspace_check": 8, "skill_md": 8, "edit": 9, "relations": 9, "interop": 9, "mcp": 9,
    "cli": 10,
}


def module_of(root, path):
    parts = os.path.relpath(path, root)[:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return "::".join(parts)


def sources(root):
    for folder, _, files in os.walk(root):
        if os.sep + "bin" in folder[len(root):]:
            continue
        for f in files:
            if f.endswith(".rs") and f != "main.rs" and f != "build.rs":
                yield os.path.join(folder, f)


def references(text, module, is_folder):
    cut = text.find("#[cfg(test)]\nmod tests")
    text = re.sub(r"//.*", "", text if cut < 0 else text[:cut])
    found = re.findall(r"crate::([A-Za-z_][A-Za-z_0-9:]*)", text)
    for group in re.findall(r"crate::\{([^}]*)\}", text):
        found += [g.strip() for g in group.split(",")]
    parent = module.split("::") if is_folder else module.split("::")[:-1]
    for path in re.findall(r"super::([A-Za-z_][A-Za-z_0-9:]*)", text):
        up = parent[:-1] if is_folder else parent
        found.append("::".join([p for p in up if p] + [path]))
    return found


def graph(root):
    files = {module_of(root, p): p for p in sources(root)}
    edges = {m: set() for m in files}
    for module, path in files.items():
        for ref in references(open(path, encoding="utf-8").read(), module, path.endswith("mod.rs")):
            parts = ref.rstrip(":").split("::")
            target = next(("::".join(parts[:k]) for k in range(len(parts), 0, -1)
                           if "::".join(parts[:k]) in files), None)
            related = target is None or target == module or module.startswith(target + "::") \
                or target.startswith(module + "::") or target == ""
            if not related:
                edges[module].add(target)
    return edges


def circles(edges):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


INTERNAL = ("check", "discover", "parse", "pipeline", "render", "resolve", "internals")


def studio_internals(repo):
    """Places where the studio names a phase of the compiler instead of its API."""
    found = []
    for folder, _, files in os.walk(os.path.join(repo, "studio/src")):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(folder, f)
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                code = re.sub(r"//.*", "", line)
                for m in re.finditer(r"\bskillc::(\w+)::", code):
                    if m.group(1) in INTERNAL:
                        rel = os.path.relpath(path, repo)
                        found.append(f"{rel}:{n}: uses `skillc::{m.group(1)}`, not the API")
    return found


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = []
    for root in ("compiler/src", "compiler/runtime/src", "studio/src"):
        edges = graph(os.path.join(repo, root))
        for component in circles(edges):
            problems.append(f"{root}: import circle between {', '.join(component)}")
        if root == "compiler/src":
            for module, targets in sorted(edges.items()):
                layer = module.split("::")[0]
                for target in sorted(targets):
                    above = target.split("::")[0]
                    if layer in LAYERS and above in LAYERS and LAYERS[above] >= LAYERS[layer] \
                            and above != layer:
                        problems.append(f"{root}: `{module}` uses `{target}`, a layer at or above its own")
    problems += studio_internals(repo)
    for p in problems:
        print("FAIL", p)
    print(f"layers: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
