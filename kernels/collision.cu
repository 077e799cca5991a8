/* collision.cu - the collision stage on the GPU: one thread per world runs
 * tp_collide_world (kernels/collision.h), the same code as the CPU backend,
 * compiled with --fmad=false so both round alike. Each thread owns its world's
 * slice of the scratch and of the contact buffer; no atomics, so the result
 * does not depend on scheduling. */
#include "collision.h"
#include "cuda_launch.h"

#include <cuda_runtime.h>

__global__ void tp_collide_worlds_kernel(const tp_world *worlds, int world_count, char *scratch,
                                         size_t scratch_per_world, tp_contact *contacts, int capacity,
                                         int32_t *counts, int32_t *overflow)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= world_count) return;
    tp_contact *out = contacts + (size_t)w * (size_t)capacity;
    int over = 0;
    int n = tp_collide_world(&worlds[w], scratch + (size_t)w * scratch_per_world, out, capacity, &over);
    for (int i = n; i < capacity; ++i) out[i].key = TP_CONTACT_KEY_SENTINEL;
    counts[w] = n;
    overflow[w] = over;
}

__global__ void tp_contact_keys_kernel(const tp_contact *contacts, int n, uint64_t *keys, int32_t *values)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    keys[i] = contacts[i].key;
    values[i] = i;
}

extern "C" int tp_cuda_collide_worlds(const struct tp_world *worlds, int world_count, void *scratch,
                                      size_t scratch_per_world, struct tp_contact *contacts, int capacity,
                                      int32_t *counts, int32_t *overflow, void *stream)
{
    if (world_count <= 0) return 0;
    const int block = 64;
    int grid = (world_count + block - 1) / block;
    tp_collide_worlds_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(
        worlds, world_count, (char *)scratch, scratch_per_world, contacts, capacity, counts, overflow);
    return (int)cudaGetLastError();
}

extern "C" int tp_cuda_contact_keys(const struct tp_contact *contacts, int n, uint64_t *keys, int32_t *values,
                                    void *stream)
{
    if (n <= 0) return 0;
    const int block = 256;
    tp_contact_keys_kernel<<<(n + block - 1) / block, block, 0, (cudaStream_t)stream>>>(contacts, n, keys,
                                                                                        values);
    return (int)cudaGetLastError();
}
