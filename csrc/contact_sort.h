/* contact_sort.h (host) - the global contact sort of the CPU backend.
 *
 * Sorts (key, value) pairs by the 64-bit contact key (kernels/contact_sort.h
 * gives the layout) with a stable LSD radix sort, using scratch the caller
 * allocated at batch creation: a step never allocates. The CUDA backend sorts
 * the same pairs with CUB (kernels/cub_sort.cu); both are stable and sort by
 * the full key, so they give the same order. */
#ifndef TP_HOST_CONTACT_SORT_H
#define TP_HOST_CONTACT_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Scratch bytes tp_contact_sort_pairs needs for n pairs. */
size_t tp_contact_sort_scratch_bytes(int n);

/* Sort keys[n] ascending, carrying values[n] along; equal keys keep their
 * order. scratch: tp_contact_sort_scratch_bytes(n) bytes, 8-byte aligned. */
void tp_contact_sort_pairs(uint64_t *keys, int32_t *values, int n, void *scratch);

#endif
