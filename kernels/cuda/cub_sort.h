/* cub_sort.h - the C entry point of CUB's sort (kernels/cuda/cub_sort.cu).
 *
 * A plain C header: no CUDA types, streams are passed as void * (a
 * cudaStream_t, NULL for the default stream), every pointer is device memory
 * unless said otherwise, and every function returns the cudaError_t of its
 * launch as an int (0 = success). Implemented only when the CUDA backend is
 * built (TP_HAVE_CUDA). */
#ifndef TP_CUB_SORT_H
#define TP_CUB_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Contact capacity up to which the CUDA sort stage sorts each busy world's
 * contacts inside one thread block (CUB BlockRadixSort, tiles of 256, 1,024
 * and 4,096 keys: tp_launch_block_sort in cub_sort.cu); above it, the global
 * form (one DeviceRadixSort of every world's keys). tests/test_stages.c
 * replays both. */
#define TP_SORT_BLOCK_MAX 4096

#ifdef __cplusplus
extern "C" {
#endif

/* CUB DeviceRadixSort::SortPairs over n (uint64 key, int32 value) pairs, all
 * 64 key bits, stable (cub_sort.cu, the only file that includes CUB).
 * Call with temp == NULL to get the temporary storage size in *temp_bytes. */
int tp_cub_sort_pairs(void *temp, size_t *temp_bytes, const uint64_t *keys_in, uint64_t *keys_out,
                      const int32_t *values_in, int32_t *values_out, int n, void *stream);

#ifdef __cplusplus
}
#endif

#endif
