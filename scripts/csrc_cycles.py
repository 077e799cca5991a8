#!/usr/bin/env python3
"""csrc_cycles.py - fail when the call graph between csrc/ files has a cycle.

Host layers call one way (docs/DESIGN.md, "Host layers"): names and errors,
model, scene, batch core and backends, wake/ops/events, public batch calls,
command line. A file calls another when its object file uses a symbol that
the other defines (`nm`: U against T/D/B/R). The graph between files must be
acyclic; each cycle found (a strongly connected set of files) is printed with
one symbol per edge, and the exit status is 1.

Usage: csrc_cycles.py OBJECT_DIR...  (each target's object folder: build/CMakeFiles/torpor.dir,
build/CMakeFiles/torpor_cli.dir; a file is named by its path below the folder)
"""
import os
import subprocess
import sys


def symbols(path):
    """(defined, used) global symbol names of one object file."""
    out = subprocess.run(["nm", "-P", "--no-sort", path], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRVWGS":
            defined.add(name)
    return defined, used


def strongly_connected(graph):
    """Tarjan's algorithm: the strongly connected sets of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    objects = {}
    for folder in sys.argv[1:]:
        for root, _, names in os.walk(folder):
            for n in sorted(names):
                if n.endswith(".c.o"):
                    unit = os.path.relpath(os.path.join(root, n), folder)[: -len(".c.o")]
                    objects[unit] = symbols(os.path.join(root, n))
    if not objects:
        sys.exit("csrc_cycles.py: no object files under " + ", ".join(sys.argv[1:]))
    owner = {}
    for unit, (defined, _) in objects.items():
        for s in defined:
            owner.setdefault(s, unit)
    graph, why = {u: set() for u in objects}, {}
    for unit, (_, used) in objects.items():
        for s in sorted(used):
            other = owner.get(s)
            if other and other != unit:
                graph[unit].add(other)
                why.setdefault((unit, other), s)
    cycles = strongly_connected(graph)
    for group in cycles:
        print("cycle between " + ", ".join(group) + ":")
        members = set(group)
        for a in group:
            for b in sorted(graph[a] & members):
                print(f"  {a} -> {b} ({why[(a, b)]})")
    print(f"{len(objects)} files, {sum(len(e) for e in graph.values())} calls between them, {len(cycles)} cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
