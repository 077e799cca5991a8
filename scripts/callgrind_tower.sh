#!/usr/bin/env bash
# callgrind_tower.sh - x86 instructions per world-step of one tower world
# (sleep off, colored solver, after 20 warm-up steps), for the estimate in
# docs/cuda.md ("Instruction counts"). Needs a CPU build in build/ and valgrind.
#
#   bash scripts/callgrind_tower.sh [SCENE]
#
# Runs a small program twice under callgrind (0 and 100 steps after the
# warm-up) and prints the difference / 100, then the inclusive counts of the
# biggest functions of the 100-step run (totals over all 120 steps).
set -euo pipefail
cd "$(dirname "$0")/.."
scene=${1:-scenes/tower.json}
source scripts/probe_setup.sh
probe_setup "$scene"
cat > "$tmp/probe.c" <<'C'
#include "probe_batch.h"
int main(int argc, char **argv)
{
    tp_model *m = NULL;
    tp_batch *b = probe_batch(argc > 1 ? argv[1] : NULL, &m);
    tp_batch_step(b, 20); /* past the cold first steps */
    if (atoi(argv[2]) > 0) tp_batch_step(b, atoi(argv[2]));
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return 0;
}
C
gcc -O2 -std=c11 -Iinclude -Iscripts "$tmp/probe.c" -o "$tmp/probe" build/libtorpor.a -ljansson -lm -fopenmp -lpthread
for n in 0 100; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$tmp/probe" "$tmp/scene.json" $n 2>&1 |
        sed -n 's/.*Collected : //p' > "$tmp/ir.$n"
done
echo "instructions per world-step: $(( ($(cat "$tmp/ir.100") - $(cat "$tmp/ir.0")) / 100 ))"
callgrind_annotate --inclusive=yes "$tmp/cg.100" 2>/dev/null | grep -E "tp_|world_step" | head -15
