#!/usr/bin/env bash
# callgrind_broadphase.sh - x86 instructions of one world's broadphase, the
# CPU's iterator (tp_broadphase_begin / next) against the lanes form
# (tp_broadphase_pairs_lanes, the CUDA listing's algorithm) run as one lane,
# i.e. the total work a group's lanes share, for docs/cuda.md ("The
# broadphase"). Needs a CPU build in build/ and valgrind.
#
#   bash scripts/callgrind_broadphase.sh [SCENE ...]   (default: tower, pyramid, pyramid3d)
#
# Per scene: 20 steps (sleep on, as the scene says), then 100 calls of each
# on world 0; prints the inclusive count per call of each.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- scenes/tower.json scenes/pyramid.json scenes/pyramid3d.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/probe.c" <<'C'
#include "torpor.h"
#include "batch.h"
#include "collide_pairs.h"
#include "probe_batch.h"
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int run_sweep(const tp_world *wd, void *scratch)
{
    tp_broadphase bp;
    int a, b, n = 0;
    tp_broadphase_begin(&bp, wd, TP_CONTACT_MARGIN, scratch);
    while (tp_broadphase_next(&bp, &a, &b)) n++;
    return n;
}
__attribute__((noinline)) int run_lanes(const tp_world *wd, void *work, tp_pair_slot *slots, int cap)
{
    return tp_collide_list_pairs_lanes(wd, work, slots, cap, 0, 1);
}
int main(int argc, char **argv)
{
    tp_model *m = NULL;
    tp_batch *b = probe_batch(argc > 1 ? argv[1] : NULL, &m);
    tp_batch_step(b, 20);
    tp_world wd = tp_layout_world(&b->layout, 0);
    int cap = 64 * b->bodies + 64;
    void *scratch = aligned_alloc(16, tp_broadphase_scratch_bytes(b->bodies) + 64);
    void *work = aligned_alloc(16, tp_broadphase_lanes_bytes(b->bodies, 1) + 64);
    tp_pair_slot *slots = malloc((size_t)cap * sizeof *slots);
    long n = 0;
    for (int i = 0; i < 100; ++i) n += run_sweep(&wd, scratch) - run_lanes(&wd, work, slots, cap);
    printf("bodies %d, pairs %d, difference %ld\n", b->bodies, run_sweep(&wd, scratch), n);
    return n != 0;
}
C
gcc -O2 -ffp-contract=off -std=c11 -Iinclude -Ikernels -Icsrc -Iscripts "$tmp/probe.c" -o "$tmp/probe" build/libtorpor.a \
    -ljansson -lm -fopenmp -lpthread
for scene in "$@"; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$tmp/probe" "$scene" 2>/dev/null | sed "s|^|$scene: |"
    callgrind_annotate --inclusive=yes "$tmp/cg" 2>/dev/null |
        awk -v s="$scene" '/run_sweep|run_lanes/ { gsub(",", "", $1);
                            printf "%s: %s %d instructions per call\n", s, $0 ~ /run_sweep/ ? "iterator" : "lanes (1 lane)", $1 / 100 }'
done
