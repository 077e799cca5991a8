/* cuda_launch.h - the C entry points of the CUDA kernels (kernels/ *.cu).
 *
 * A plain C header: no CUDA types, streams are passed as void * (a
 * cudaStream_t, NULL for the default stream), every pointer is device memory
 * unless said otherwise, and every function returns the cudaError_t of its
 * launch as an int (0 = success). Implemented only when the CUDA backend is
 * built (TP_HAVE_CUDA). */
#ifndef TP_CUDA_LAUNCH_H
#define TP_CUDA_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tp_world;
struct tp_contact;

/* Collision stage (collision.h), one thread per world.
 * worlds:             [world_count] tp_world records whose pointers are device pointers
 * scratch:            world_count x scratch_per_world bytes, scratch_per_world a
 *                     multiple of 8 and >= tp_collide_scratch_bytes(bodies, capacity)
 * contacts:           [world_count][capacity]; slots past a world's count get the
 *                     sentinel key, so the whole buffer can be sorted by key
 * counts, overflow:   [world_count] contacts written and points that did not fit */
int tp_cuda_collide_worlds(const struct tp_world *worlds, int world_count, void *scratch,
                           size_t scratch_per_world, struct tp_contact *contacts, int capacity,
                           int32_t *counts, int32_t *overflow, void *stream);

/* keys[i] = contacts[i].key, values[i] = i for the n slots of a contact buffer
 * (sentinel keys included): the input of tp_cub_sort_pairs. */
int tp_cuda_contact_keys(const struct tp_contact *contacts, int n, uint64_t *keys, int32_t *values,
                         void *stream);

/* CUB DeviceRadixSort::SortPairs over n (uint64 key, int32 value) pairs, all
 * 64 key bits, stable (kernels/cub_sort.cu, the only file that includes CUB).
 * Call with temp == NULL to get the temporary storage size in *temp_bytes. */
int tp_cub_sort_pairs(void *temp, size_t *temp_bytes, const uint64_t *keys_in, uint64_t *keys_out,
                      const int32_t *values_in, int32_t *values_out, int n, void *stream);

#ifdef __cplusplus
}
#endif

#endif
