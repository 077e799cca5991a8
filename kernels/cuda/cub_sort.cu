/* cub_sort.cu - the only translation unit that includes CUB (DESIGN.md
 * section 5): the two forms of the CUDA sort stage.
 *
 * Per world in a block (capacity <= TP_SORT_BLOCK_MAX): each busy world of
 * the busy list gets one block that loads its keys (slots [n, tile) padded
 * with UINT64_MAX, which no real key equals: a real key's low 47 bits are
 * never all set, tp_world_sentinel_key), sorts (key, slot) pairs with
 * cub::BlockRadixSort over all 64 bits (stable, documented so in CUB), writes
 * the first n sorted slots and permutes the contacts with the CPU's
 * tp_contacts_permute. The CPU's tp_contacts_sort is a stable radix sort of
 * the same n keys, so the permutation is the same; only busy worlds sort,
 * and a world's sort costs its own tile, not W x capacity.
 *
 * Global (larger capacities): a C wrapper around
 * cub::DeviceRadixSort::SortPairs over every world's keys (stages.cu
 * exports and permutes). It sorts the full buffer (unused slots carry a
 * sentinel key that sorts after the world's contacts), so the call has a
 * fixed size and can be captured in a CUDA graph. CUB's radix sort is stable. */
#include "cub_sort.h"
#include "cuda_batch.cuh"

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

extern "C" int tp_cub_sort_pairs(void *temp, size_t *temp_bytes, const uint64_t *keys_in, uint64_t *keys_out,
                                 const int32_t *values_in, int32_t *values_out, int n, void *stream)
{
    cudaError_t err = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, keys_in, keys_out, values_in,
                                                      values_out, n, 0, 64, (cudaStream_t)stream);
    return (int)err;
}

/* Block b sorts the contacts of busy world busy_list[b] (tile THREADS x ITEMS
 * >= capacity); blocks past the list's length leave at once. */
template <int THREADS, int ITEMS> __global__ void __launch_bounds__(THREADS) tp_block_sort_kernel(tp_dev d, int current)
{
    using block_sort = cub::BlockRadixSort<uint64_t, THREADS, ITEMS, int32_t>;
    __shared__ typename block_sort::TempStorage temp;
    if ((int)blockIdx.x >= *d.busy_count) return; /* the whole block leaves together */
    int w = d.busy_list[blockIdx.x];
    tp_world_step s = tp_world_step_at(&d.L, w, current, d.scratch + (size_t)w * d.scratch_bytes);
    if (s.rec->work != TP_WORK_BUSY) return;
    int n = *s.contact_count;
    uint64_t keys[ITEMS];
    int32_t slots[ITEMS];
    for (int k = 0; k < ITEMS; ++k) { /* blocked arrangement: thread t holds items t x ITEMS .. */
        int i = (int)threadIdx.x * ITEMS + k;
        keys[k] = i < n ? s.contacts[i].key : UINT64_MAX;
        slots[k] = i;
    }
    block_sort(temp).Sort(keys, slots, 0, 64);
    int32_t *perm = d.slots_out + (size_t)w * (size_t)d.L.capacity;
    for (int k = 0; k < ITEMS; ++k) {
        int i = (int)threadIdx.x * ITEMS + k;
        if (i < n) perm[i] = slots[k];
    }
    __syncthreads(); /* every slot written before one thread permutes */
    if (threadIdx.x == 0) tp_contacts_permute(s.contacts, n, perm);
}

template <int THREADS, int ITEMS> static cudaError_t launch_tile(const tp_dev &d, int current, cudaStream_t s)
{
    tp_block_sort_kernel<THREADS, ITEMS><<<(unsigned int)d.L.worlds, THREADS, 0, s>>>(d, current);
    return cudaGetLastError();
}

cudaError_t tp_launch_block_sort(const tp_dev &d, int current, cudaStream_t s)
{
    if (d.L.capacity <= 256) return launch_tile<64, 4>(d, current, s);
    if (d.L.capacity <= 1024) return launch_tile<128, 8>(d, current, s);
    if (d.L.capacity <= TP_SORT_BLOCK_MAX) return launch_tile<256, 16>(d, current, s);
    return cudaErrorInvalidValue; /* the caller takes the global form */
}
