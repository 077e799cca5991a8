/* contact_sort.h - the 64-bit contact key and deterministic radix sorts.
 *
 * The `sort` stage: every contact point gets a key and the contact
 * list is sorted by it, so nothing downstream depends on the order in which
 * contacts were appended. Key layout, most significant bits first:
 *
 *   bits 63..47  world     (17 bits, 0 .. TP_MAX_WORLDS - 1)
 *   bits 46..32  body_a    (15 bits, 0 .. TP_MAX_BODIES_PER_WORLD - 1)
 *   bits 31..17  body_b    (15 bits), body_a < body_b
 *   bits 16..0   feature   (17 bits, narrowphase.h says what they mean)
 *
 * Unused slots of a contact buffer hold TP_CONTACT_KEY_SENTINEL (all ones),
 * which no real contact can have because the world field never reaches 2^17 - 1.
 * Sorting by key therefore orders contacts by world, then by body pair, then by
 * feature, and puts empty slots last.
 *
 * The sorts here are LSD radix sorts with 8-bit digits (Knuth, TAOCP vol. 3,
 * 5.2.5): stable, no comparisons, no allocation (the caller passes scratch), the
 * same on one CPU thread and one CUDA thread. A world's sort of a few contacts
 * is a straight insertion (Knuth 5.2.1), stable too, so the order is the same:
 * each radix pass costs three loops over 256 digit counts whatever n is. */
#ifndef TP_CONTACT_SORT_H
#define TP_CONTACT_SORT_H

#include "contact.h"
#include "tp_hd.h"
#include <stddef.h>
#include <stdint.h>

#define TP_MAX_WORLDS 131071           /* worlds 0 .. 2^17 - 2 fit the key */
#define TP_MAX_BODIES_PER_WORLD 32768  /* bodies 0 .. 2^15 - 1 */
#define TP_KEY_WORLD_SHIFT 47
#define TP_KEY_BODY_A_SHIFT 32
#define TP_KEY_BODY_B_SHIFT 17
#define TP_KEY_FEATURE_BITS 17
#define TP_KEY_FEATURE_MASK 0x1FFFFu
#define TP_CONTACT_KEY_SENTINEL UINT64_MAX

TP_HD size_t tp_align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

TP_HD uint64_t tp_contact_key(int world, int body_a, int body_b, uint32_t feature)
{
    return ((uint64_t)(uint32_t)world << TP_KEY_WORLD_SHIFT) |
           ((uint64_t)((uint32_t)body_a & 0x7FFFu) << TP_KEY_BODY_A_SHIFT) |
           ((uint64_t)((uint32_t)body_b & 0x7FFFu) << TP_KEY_BODY_B_SHIFT) |
           (uint64_t)(feature & TP_KEY_FEATURE_MASK);
}
TP_HD int tp_contact_key_world(uint64_t key) { return (int)(key >> TP_KEY_WORLD_SHIFT); }
TP_HD int tp_contact_key_body_a(uint64_t key) { return (int)((key >> TP_KEY_BODY_A_SHIFT) & 0x7FFFu); }
TP_HD int tp_contact_key_body_b(uint64_t key) { return (int)((key >> TP_KEY_BODY_B_SHIFT) & 0x7FFFu); }
TP_HD uint32_t tp_contact_key_feature(uint64_t key) { return (uint32_t)(key & TP_KEY_FEATURE_MASK); }

/* Stable LSD radix sort of n (key, value) pairs by bytes [first_byte, end_byte)
 * of the 64-bit key. keys/vals: [n] in and out; tmp_keys/tmp_vals: [n] scratch.
 * A pass whose digit is the same for every key is skipped (it would not move
 * anything), which keeps sorts of one world's keys (world bits constant) short. */
TP_HD void tp_radix_sort_u64(uint64_t *keys, int32_t *vals, uint64_t *tmp_keys, int32_t *tmp_vals, int n,
                             int first_byte, int end_byte)
{
    int count[256];
    uint64_t *src_k = keys, *dst_k = tmp_keys;
    int32_t *src_v = vals, *dst_v = tmp_vals;
    for (int byte = first_byte; byte < end_byte; ++byte) {
        int shift = 8 * byte;
        for (int i = 0; i < 256; ++i) count[i] = 0;
        for (int i = 0; i < n; ++i) count[(int)((src_k[i] >> shift) & 0xFFu)]++;
        if (n == 0 || count[(int)((src_k[0] >> shift) & 0xFFu)] == n) continue;
        int sum = 0;
        for (int i = 0; i < 256; ++i) {
            int c = count[i];
            count[i] = sum;
            sum += c;
        }
        for (int i = 0; i < n; ++i) {
            int d = (int)((src_k[i] >> shift) & 0xFFu);
            int at = count[d]++;
            dst_k[at] = src_k[i];
            dst_v[at] = src_v[i];
        }
        uint64_t *tk = src_k; src_k = dst_k; dst_k = tk;
        int32_t *tv = src_v; src_v = dst_v; dst_v = tv;
    }
    if (src_k != keys)
        for (int i = 0; i < n; ++i) {
            keys[i] = src_k[i];
            vals[i] = src_v[i];
        }
}

/* Stable insertion sort of n (key, value) pairs; for small n (a tower's
 * contacts arrive almost in order: a pass of n comparisons). One body for
 * both key widths. */
#define TP_INSERTION_SORT_MAX 64
#define TP_DEFINE_INSERTION_SORT(name, key_t)                                                                  \
    TP_HD void name(key_t *keys, int32_t *vals, int n)                                                         \
    {                                                                                                          \
        for (int i = 1; i < n; ++i) {                                                                          \
            key_t k = keys[i];                                                                                 \
            int32_t v = vals[i];                                                                               \
            int j = i;                                                                                         \
            for (; j > 0 && keys[j - 1] > k; --j) { /* strictly greater: equal keys keep their order */       \
                keys[j] = keys[j - 1];                                                                         \
                vals[j] = vals[j - 1];                                                                         \
            }                                                                                                  \
            keys[j] = k;                                                                                       \
            vals[j] = v;                                                                                       \
        }                                                                                                      \
    }
TP_DEFINE_INSERTION_SORT(tp_insertion_sort_u64, uint64_t)
TP_DEFINE_INSERTION_SORT(tp_insertion_sort_u32, uint32_t)

/* Stable radix sort of n (uint32 key, value) pairs, all four bytes. */
TP_HD void tp_radix_sort_u32(uint32_t *keys, int32_t *vals, uint32_t *tmp_keys, int32_t *tmp_vals, int n)
{
    int count[256];
    uint32_t *src_k = keys, *dst_k = tmp_keys;
    int32_t *src_v = vals, *dst_v = tmp_vals;
    for (int shift = 0; shift < 32; shift += 8) {
        for (int i = 0; i < 256; ++i) count[i] = 0;
        for (int i = 0; i < n; ++i) count[(src_k[i] >> shift) & 0xFFu]++;
        if (n == 0 || count[(src_k[0] >> shift) & 0xFFu] == n) continue;
        int sum = 0;
        for (int i = 0; i < 256; ++i) {
            int c = count[i];
            count[i] = sum;
            sum += c;
        }
        for (int i = 0; i < n; ++i) {
            int at = count[(src_k[i] >> shift) & 0xFFu]++;
            dst_k[at] = src_k[i];
            dst_v[at] = src_v[i];
        }
        uint32_t *tk = src_k; src_k = dst_k; dst_k = tk;
        int32_t *tv = src_v; src_v = dst_v; dst_v = tv;
    }
    if (src_k != keys)
        for (int i = 0; i < n; ++i) {
            keys[i] = src_k[i];
            vals[i] = src_v[i];
        }
}

/* Below this many pairs the insertion sort costs less than the radix sort's
 * four passes over 256 buckets (a robot's handful of links and its ground:
 * the radix sort was 12 % of the cart-pole's step, bench/README.md "Robots"). */
#define TP_INSERTION_SORT_U32_MAX 16

/* Stable sort of n (uint32 key, value) pairs: by insertion up to
 * TP_INSERTION_SORT_U32_MAX, else by radix; both stable, so the same order. */
TP_HD void tp_sort_u32(uint32_t *keys, int32_t *vals, uint32_t *tmp_keys, int32_t *tmp_vals, int n)
{
    if (n <= TP_INSERTION_SORT_U32_MAX) tp_insertion_sort_u32(keys, vals, n);
    else tp_radix_sort_u32(keys, vals, tmp_keys, tmp_vals, n);
}

/* Map a float to a uint32 whose unsigned order is the float's order
 * (-0 sorts just before +0; NaN is not expected). */
TP_HD uint32_t tp_float_sort_bits(float f)
{
    union { float f; uint32_t u; } c;
    c.f = f;
    return (c.u & 0x80000000u) ? ~c.u : (c.u | 0x80000000u);
}

/* Put out[0..n) in the order `perm` gives: slot i receives out[perm[i]]
 * (perm is a permutation of 0..n-1), in place by following the permutation's
 * cycles; perm is consumed (set to -1). */
TP_HD void tp_contacts_permute(tp_contact *out, int n, int32_t *perm)
{
    for (int i = 0; i < n; ++i) {
        if (perm[i] == i || perm[i] < 0) continue;
        tp_contact first = out[i];
        int j = i;
        for (;;) {
            int from = perm[j];
            perm[j] = -1;
            if (from == i) {
                out[j] = first;
                break;
            }
            out[j] = out[from];
            j = from;
        }
    }
}

/* Sort out[0..n) by key: radix sort of (key, slot) pairs, then the records are
 * permuted in place (tp_contacts_permute). `scratch` holds 2 x n keys then
 * 2 x n slots (8-byte aligned segments). The CUDA backend gets the same
 * permutation from one CUB sort over every world's keys instead
 * (the SORT stage's global form below, docs/cuda.md): the sort is stable and keys differ
 * in their world bits between worlds, so the order within a world is the same. */
TP_HD void tp_contacts_sort(tp_contact *out, int n, void *scratch, int capacity)
{
    char *s = (char *)scratch;
    size_t c = (size_t)capacity;
    uint64_t *keys = (uint64_t *)s, *tmp_keys = (uint64_t *)(s + tp_align8(c * sizeof(uint64_t)));
    int32_t *perm = (int32_t *)(s + 2 * tp_align8(c * sizeof(uint64_t)));
    int32_t *tmp_perm = (int32_t *)(s + 2 * tp_align8(c * sizeof(uint64_t)) + tp_align8(c * sizeof(int32_t)));
    for (int i = 0; i < n; ++i) {
        keys[i] = out[i].key;
        perm[i] = i;
    }
    /* bits 47 and up (the world) are the same for every contact of a world */
    if (n <= TP_INSERTION_SORT_MAX) tp_insertion_sort_u64(keys, perm, n);
    else tp_radix_sort_u64(keys, perm, tmp_keys, tmp_perm, n, 0, 8);
    tp_contacts_permute(out, n, perm); /* slot i must receive out[perm[i]] */
}

/* The key no contact of world w can have, above all of w's real keys and
 * below all of world w + 1's: the world field w, every lower bit set (a real
 * key has body_a < body_b <= 32767, so body_a never is 0x7FFF). Filling a
 * world's unused slots with it keeps each world's keys together when the keys
 * of every world are sorted at once: world w's sorted keys are the slots
 * [w capacity, (w + 1) capacity). */
TP_HD uint64_t tp_world_sentinel_key(int w)
{
    return ((uint64_t)(uint32_t)w << TP_KEY_WORLD_SHIFT) | ((UINT64_C(1) << TP_KEY_WORLD_SHIFT) - 1u);
}

/* The global form of the sort (the CUDA backend's, docs/cuda.md): each world
 * exports its keys into its segment of one array, padded with its sentinel
 * (beside them, the slot numbers 0 .. capacity - 1, written once); one stable sort of all segments at once; each world then
 * permutes its contacts by the sorted slots of its own segment (which stays
 * in place, see tp_world_sentinel_key). The order within a world is the one
 * tp_contacts_sort gives, since both sorts are stable over the full key. */
TP_HD void tp_contact_keys_export(const tp_contact *contacts, int n, int w, int capacity, uint64_t *keys)
{
    for (int i = 0; i < n; ++i) keys[i] = contacts[i].key;
    for (int i = n; i < capacity; ++i) keys[i] = tp_world_sentinel_key(w);
}

#endif
