#!/usr/bin/env python3
"""Finds import circles between the modules of each crate (core, host, guest, embed).

A module is a file under src/ (mod.rs stands for its folder). An edge A -> B is
any `crate::B...`, `super::...` or `self::...` path that A names (in `use`,
in a `use ...::{..}` group, or in code), made absolute from where it stands
(inside an inline `mod x { .. }` too) and resolved to the longest module path
that exists. Edges from a module to its own descendants
or ancestors are ignored: a parent declaring and re-exporting its children,
or a child using its parent's items, is structure, not a circle. Prints every
strongly connected component of more than one module, and every leaf module
(LEAVES: the shared vocabulary) that imports a module that is not a leaf,
and exits 1 if there is any.

    python3 tests/arch/modgraph.py            # all crates
    python3 tests/arch/modgraph.py --edges core   # the graph, for reading
    python3 tests/arch/modgraph.py --root DIR     # another tree (its tests)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CRATES = ["core", "host", "guest", "embed"]
# Leaf modules: the shared vocabulary. Each (with everything under it)
# imports no module of its crate but other leaves.
LEAVES = {"core": [("vocab",), ("layout",)], "host": [("error",), ("bindings",), ("limits",)]}
PATH = re.compile(r"\b(crate|self|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::(?:\{([^;]*?)\}\s*;|([A-Za-z_][A-Za-z0-9_]*|\*))")
INLINE_MOD = re.compile(r"\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    # Braces in string and char literals would throw the inline-module depth off.
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return re.sub(r"'[{}]'", "''", text)


def modules(src):
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            if rel and rel[0] == "bin":
                continue
            mods[tuple(rel)] = os.path.join(dirpath, f)
    return mods


def resolve(mods, parts):
    for n in range(len(parts), 0, -1):
        if tuple(parts[:n]) in mods:
            return tuple(parts[:n])
    return None


def inline_modules(text):
    """(start, end, name) of every inline `mod name { .. }` block."""
    out = []
    for m in INLINE_MOD.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out.append((m.end(), i, m.group(1)))
    return out


def absolute(module, blocks, at, head, rest):
    """The crate-absolute path of `head::rest` written at offset `at` of `module`'s file."""
    here = list(module) + [name for start, end, name in blocks if start <= at < end]
    if head == "crate":
        base = []
    else:
        base = here
        if head == "super":
            base = base[:-1]
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    return base + rest


def paths_in(module, text):
    """Every crate-absolute path the file names, `::{..}` groups expanded one level."""
    blocks = inline_modules(text)
    out = []
    for m in PATH.finditer(text):
        rest = [p for p in m.group(2).split("::") if p]
        base = absolute(module, blocks, m.start(), m.group(1), rest)
        if m.group(3) is None:
            out.append(base + ([m.group(4)] if m.group(4) != "*" else []))
            continue
        out.append(base)
        for item in re.split(r",(?![^{]*\})", m.group(3)):
            head = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)", item)
            if head and head.group(1) != "self":
                out.append(base + head.group(1).split("::"))
    return out


def graph(crate):
    src = os.path.join(ROOT, crate, "src")
    mods = modules(src)
    edges = {m: set() for m in mods}
    for m, path in mods.items():
        with open(path, encoding="utf-8") as f:
            text = strip_comments(f.read())
        for parts in paths_in(m, text):
            t = resolve(mods, parts)
            if t is None or t == m or not t:
                continue
            if t[: len(m)] == m or m[: len(t)] == t:
                continue
            edges[m].add(t)
    return edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def name(m):
    return "::".join(m) or "crate"


def main():
    global ROOT
    if len(sys.argv) == 3 and sys.argv[1] == "--root":
        ROOT = sys.argv[2]
    if len(sys.argv) == 3 and sys.argv[1] == "--edges":
        for m, ts in sorted(graph(sys.argv[2]).items()):
            print(name(m), "->", ", ".join(sorted(name(t) for t in ts)))
        return 0
    bad = 0
    for crate in CRATES:
        if not os.path.isdir(os.path.join(ROOT, crate, "src")):
            continue
        edges = graph(crate)
        leaves = LEAVES.get(crate, [])
        within = lambda m: any(m[: len(leaf)] == leaf for leaf in leaves)
        for m, ts in sorted(edges.items()):
            for t in sorted(ts):
                if within(m) and not within(t):
                    bad += 1
                    print(f"{crate}: {name(m)} is a leaf of the shared vocabulary but imports {name(t)}")
        for comp in sccs(edges):
            bad += 1
            print(f"{crate}: import circle among {len(comp)} modules: " + ", ".join(sorted(name(m) for m in comp)))
    if bad:
        print(f"{bad} problem(s): move the shared items into a leaf module both sides import")
        return 1
    print("no import circles in " + ", ".join(CRATES) + "; the leaves import only leaves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
