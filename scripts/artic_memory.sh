#!/bin/sh
# artic_memory.sh - host bytes per world (tp_batch_memory_bytes) of the
# articulation scenes, a 16-world CPU batch each with the default capacities
# (docs/articulations.md, "Where it runs in the step"). Needs build/libtorpor.a
# (the CPU build); usage: scripts/artic_memory.sh [scene.json ...]
set -e
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/mem.c" <<'C'
#include "torpor.h"
#include <stdio.h>
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        tp_model *m = NULL;
        tp_batch *b = NULL;
        tp_batch_def bd = tp_default_batch_def();
        bd.worlds = 16;
        if (tp_model_load(argv[i], &m) || tp_batch_create(m, &bd, &b)) {
            fprintf(stderr, "%s\n", tp_last_error());
            return 1;
        }
        printf("%s: %zu bytes per world (contact buffers %zu); %.1f MB at 4096 worlds\n", argv[i],
               tp_batch_memory_bytes(b), tp_batch_contact_memory_bytes(b), (double)tp_batch_memory_bytes(b) * 4096e-6);
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
    return 0;
}
C
cc -O1 -Iinclude "$tmp/mem.c" ${LIB:-build/libtorpor.a} -ljansson -lxml2 -lqhull_r -lm -fopenmp -lpthread -o "$tmp/mem"
if [ $# -eq 0 ]; then set -- scenes/walker.json scenes/arm_tower.json scenes/cartpole.json; fi
"$tmp/mem" "$@"
