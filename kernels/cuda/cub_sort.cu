/* cub_sort.cu - the only translation unit that includes CUB (DESIGN.md
 * section 5): a C wrapper around cub::DeviceRadixSort::SortPairs for the
 * contact sort. It sorts the full buffer (unused slots carry a sentinel key
 * that sorts after the world's contacts), so the call has a fixed size and can be captured
 * in a CUDA graph. CUB's radix sort is stable. */
#include "cub_sort.h"

#include <cub/device/device_radix_sort.cuh>

extern "C" int tp_cub_sort_pairs(void *temp, size_t *temp_bytes, const uint64_t *keys_in, uint64_t *keys_out,
                                 const int32_t *values_in, int32_t *values_out, int n, void *stream)
{
    cudaError_t err = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, keys_in, keys_out, values_in,
                                                      values_out, n, 0, 64, (cudaStream_t)stream);
    return (int)err;
}
