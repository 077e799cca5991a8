#!/usr/bin/env bash
# manifold_reuse.sh - how many of a resting scene's contact pairs reuse last
# step's manifold (kernels/contact_cache.h), per 100-step window, in one
# world with sleep off. Needs a CPU build in build/ (or the directory given
# as BUILD).
#
#   bash scripts/manifold_reuse.sh [SCENE] [STEPS]
#
# Before each step it asks tp_cache_manifold, for every pair with points in
# last step's buffer, whether that pair would be reused now.
set -euo pipefail
cd "$(dirname "$0")/.."
scene=${1:-scenes/pyramid.json}
steps=${2:-600}
build=${BUILD:-build}
source scripts/probe_setup.sh
probe_setup "$scene"
cat > "$tmp/probe.c" <<'C'
#include "probe_batch.h"
#include "batch.h"
#include "collision.h"
int main(int argc, char **argv)
{
    tp_model *m = NULL;
    tp_batch *b = probe_batch(argv[1], &m);
    int steps = atoi(argv[2]);
    long reused = 0, pairs = 0;
    for (int s = 0; s < steps; ++s) {
        tp_world wd = tp_layout_world_stepping(&b->layout, 0, b->current);
        const tp_contact *c = wd.cache_contacts;
        for (int i = 0, e; c && i < wd.cache_count; i = e) {
            for (e = i; e < wd.cache_count && c[e].body_a == c[i].body_a && c[e].body_b == c[i].body_b; ++e) {}
            tp_manifold mm;
            reused += tp_cache_manifold(&wd, c[i].body_a, c[i].body_b, &mm) > 0;
            pairs++;
        }
        if (tp_batch_step(b, 1) != TP_OK) return 1;
        if ((s + 1) % 100 == 0) {
            printf("steps %4d-%4d: %ld of %ld pairs reused (%.1f %%)\n", s - 98, s + 1, reused, pairs,
                   pairs ? 100.0 * (double)reused / (double)pairs : 0.0);
            reused = pairs = 0;
        }
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return 0;
}
C
gcc -O2 -std=c11 -Iinclude -Icsrc -Ikernels -Iscripts "$tmp/probe.c" -o "$tmp/probe" "$build/libtorpor.a" -ljansson -lpng -lm \
    -fopenmp -lpthread
"$tmp/probe" "$tmp/scene.json" "$steps"
