/* cuda_memory.c - the probe of scripts/cuda_memory.sh: device bytes per world
 * of the CUDA backend by part, from the sizes kernels/cuda/memory.cu's
 * list_arrays allocates, for each scene given. */
#include "articulation_host.h"
#include "collide_pairs.h"
#include "probe_batch.h"
#include "step.h"
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        tp_model *m = NULL;
        tp_batch *b = probe_batch(argv[i], &m); /* one world on the CPU: its capacities */
        size_t B = (size_t)tp_model_body_count(m), f = sizeof(float);
        size_t cap = (tp_batch_contact_memory_bytes(b) - 2 * sizeof(int32_t)) / (2 * (sizeof(tp_contact) + sizeof(tp_contact_ref)));
        /* per body: pos 3, quat 4, v 3, w 3, force 3, torque 3, inv_mass 1, inv_inertia 6, friction 1,
         * quiet_timer 1, quiet_v 3, contact_f 3 floats; island int32; flags, sleep_state, body_awake bytes */
        size_t state = B * (34 * f + 4 + 3) + 3 * f + 1 + 4 * sizeof(int32_t);
        size_t points = 2 * cap * sizeof(tp_contact) + 2 * sizeof(int32_t), refs = 2 * cap * sizeof(tp_contact_ref);
        size_t scratch = tp_solver_align(tp_step_scratch_bytes((int)B, (int)cap));
        size_t pairs = (size_t)tp_pair_capacity((int)cap) * sizeof(tp_pair_slot) + 2 * sizeof(int32_t);
        size_t sort = cap * (2 * sizeof(uint64_t) + 2 * sizeof(int32_t)), busy = 1 + sizeof(int32_t);
        /* joint arrays (nq + 4 nv floats) and the articulation scratch: the host's sizes, twinned */
        size_t joints = tp_artic_batch_bytes_per_world(b);
        size_t total = state + points + refs + scratch + pairs + sort + busy + joints;
        printf("%s: %zu bodies, %zu contact slots: %zu bytes per world (%.1f KiB): contact points %.1f KiB, their "
               "reference poses %.1f KiB, step scratch %.1f KiB, pair slots %.1f KiB, sort keys and slots %.1f KiB, "
               "state %.1f KiB, joints %.1f KiB; %.2f GiB at 16,384 worlds\n",
               argv[i], B, cap, total, total / 1024.0, points / 1024.0, refs / 1024.0, scratch / 1024.0,
               pairs / 1024.0, sort / 1024.0, (state + busy) / 1024.0, joints / 1024.0, total * 16384.0 / (1024.0 * 1024 * 1024));
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
    return 0;
}
