/* contact_sort.c - stable LSD radix sort of (contact key, value) pairs on the
 * CPU with caller-provided scratch; the digit passes are those of
 * kernels/contact_sort.h, shared with the per-world sort. */
#include "contact_sort.h"

#include "../kernels/contact_sort.h"

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

size_t tp_contact_sort_scratch_bytes(int n)
{
    size_t c = (size_t)(n > 0 ? n : 0);
    return align8(c * sizeof(uint64_t)) + align8(c * sizeof(int32_t));
}

void tp_contact_sort_pairs(uint64_t *keys, int32_t *values, int n, void *scratch)
{
    if (n <= 1) return;
    char *s = (char *)scratch;
    uint64_t *tmp_keys = (uint64_t *)s;
    int32_t *tmp_values = (int32_t *)(s + align8((size_t)n * sizeof(uint64_t)));
    tp_radix_sort_u64(keys, values, tmp_keys, tmp_values, n, 0, 8);
}
