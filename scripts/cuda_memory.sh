#!/bin/sh
# cuda_memory.sh - device bytes per world of the CUDA backend, by part, from the
# sizes the code uses (kernels/cuda/memory.cu, list_arrays: the same arrays,
# here summed on the CPU, since tp_batch_device_memory_bytes needs a device);
# CUB's temporary storage for the global sort is left out. For docs/cuda.md,
# "Memory". Needs build/ (CPU or CUDA build); usage: scripts/cuda_memory.sh [scene.json ...]
set -e
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/mem.c" <<'C'
#include "torpor.h"
#include "collide_pairs.h"
#include "step.h"
#include <stdio.h>
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        tp_model *m = NULL;
        tp_batch *b = NULL;
        tp_batch_def d = tp_default_batch_def();
        d.worlds = 1;
        d.backend = TP_BACKEND_CPU;
        if (tp_model_load(argv[i], &m) || tp_batch_create(m, &d, &b)) {
            fprintf(stderr, "%s\n", tp_last_error());
            return 1;
        }
        size_t B = (size_t)tp_model_body_count(m), f = sizeof(float);
        size_t cap = (tp_batch_contact_memory_bytes(b) - 2 * sizeof(int32_t)) / (2 * (sizeof(tp_contact) + sizeof(tp_contact_ref)));
        /* per body: pos 3, quat 4, v 3, w 3, force 3, torque 3, inv_mass 1, inv_inertia 6, friction 1,
         * quiet_timer 1, quiet_v 3, contact_f 3 floats; island int32; flags, sleep_state, body_awake bytes */
        size_t state = B * (34 * f + 4 + 3) + 3 * f + 1 + 4 * sizeof(int32_t);
        size_t points = 2 * cap * sizeof(tp_contact) + 2 * sizeof(int32_t), refs = 2 * cap * sizeof(tp_contact_ref);
        size_t scratch = tp_solver_align(tp_step_scratch_bytes((int)B, (int)cap));
        size_t pairs = (size_t)tp_pair_capacity((int)cap) * sizeof(tp_pair_slot) + 2 * sizeof(int32_t);
        size_t sort = cap * (2 * sizeof(uint64_t) + 2 * sizeof(int32_t)), busy = 1 + sizeof(int32_t);
        size_t total = state + points + refs + scratch + pairs + sort + busy;
        printf("%s: %zu bodies, %zu contact slots: %zu bytes per world (%.1f KiB): contact points %.1f KiB, their "
               "reference poses %.1f KiB, step scratch %.1f KiB, pair slots %.1f KiB, sort keys and slots %.1f KiB, "
               "state %.1f KiB; %.2f GiB at 16,384 worlds\n",
               argv[i], B, cap, total, total / 1024.0, points / 1024.0, refs / 1024.0, scratch / 1024.0,
               pairs / 1024.0, sort / 1024.0, (state + busy) / 1024.0, total * 16384.0 / (1024.0 * 1024 * 1024));
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
    return 0;
}
C
libs=build/libtorpor.a # a CUDA build: its CUDA part and cudart too
[ -f build/libtorpor_cuda.a ] && libs="$libs build/libtorpor_cuda.a -L/usr/local/cuda/lib64 -lcudart_static"
cc -O1 -std=c11 -Iinclude -Ikernels -Icsrc "$tmp/mem.c" $libs -ljansson -lm -fopenmp -lpthread -lstdc++ -ldl -lrt -o "$tmp/mem"
if [ $# -eq 0 ]; then set -- scenes/tower.json scenes/jenga.json scenes/pyramid.json; fi
"$tmp/mem" "$@"
