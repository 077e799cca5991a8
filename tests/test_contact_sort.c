/* test_contact_sort.c - contact keys, the radix sorts, and the promise that
 * the sorted contact list of a world depends neither on the order in which
 * pairs are found nor on how the bodies are numbered; overflow is counted and
 * memory-safe. */
#include "collision_world.h"

#include <criterion/criterion.h>

Test(contact_sort, key_fields_round_trip_and_order_world_first)
{
    uint64_t k = tp_contact_key(TP_MAX_WORLDS - 1, TP_MAX_BODIES_PER_WORLD - 2, TP_MAX_BODIES_PER_WORLD - 1, 0x1FFFF);
    cr_assert_eq(tp_contact_key_world(k), TP_MAX_WORLDS - 1);
    cr_assert_eq(tp_contact_key_body_a(k), TP_MAX_BODIES_PER_WORLD - 2);
    cr_assert_eq(tp_contact_key_body_b(k), TP_MAX_BODIES_PER_WORLD - 1);
    cr_assert_eq(tp_contact_key_feature(k), 0x1FFFFu);
    cr_assert(k < TP_CONTACT_KEY_SENTINEL, "the largest real key is below the sentinel");
    cr_assert(tp_contact_key(1, 0, 1, 0) > tp_contact_key(0, 32766, 32767, 0x1FFFF));
    cr_assert(tp_contact_key(0, 1, 2, 0) > tp_contact_key(0, 0, 32767, 0x1FFFF));
    cr_assert(tp_contact_key(0, 1, 3, 0) > tp_contact_key(0, 1, 2, 0x1FFFF));
}

static int cmp_pair(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y; /* (key, original index) */
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : (a[1] > b[1]);
}

Test(contact_sort, global_radix_sort_is_sorted_and_stable)
{
    const int n = 5000;
    uint64_t *keys = malloc(n * sizeof *keys), (*ref)[2] = malloc(n * sizeof *ref);
    int32_t *vals = malloc(n * sizeof *vals);
    uint64_t *tmp_keys = malloc(n * sizeof *tmp_keys);
    int32_t *tmp_vals = malloc(n * sizeof *tmp_vals);
    uint64_t st = 1;
    for (int i = 0; i < n; ++i) {
        /* few distinct keys, spread over all 64 bits, sentinels included */
        uint64_t r = (uint64_t)(test_rand(&st) * 40.0);
        keys[i] = r == 39 ? TP_CONTACT_KEY_SENTINEL : tp_contact_key((int)(r % 7) * 9000, (int)r * 700, (int)r * 800, (uint32_t)r);
        vals[i] = i;
        ref[i][0] = keys[i];
        ref[i][1] = (uint64_t)i;
    }
    qsort(ref, (size_t)n, sizeof *ref, cmp_pair);
    tp_radix_sort_u64(keys, vals, tmp_keys, tmp_vals, n, 0, 8); /* the global sort of the SORT stage */
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(keys[i], ref[i][0], "key %d", i);
        cr_assert_eq((uint64_t)vals[i], ref[i][1], "value %d: stability", i);
    }
    free(keys);
    free(ref);
    free(vals);
    free(tmp_keys);
    free(tmp_vals);
}

/* A world's few contacts are sorted by insertion (tp_contacts_sort): the
 * same order as the radix sort, ties included, at every n up to the cut-off
 * and in the orders contacts arrive in (shuffled, reversed, almost sorted). */
Test(contact_sort, insertion_sort_orders_as_the_radix_sort)
{
    enum { N = TP_INSERTION_SORT_MAX };
    uint64_t keys[N], radix_keys[N], tmp_keys[N];
    int32_t vals[N], radix_vals[N], tmp_vals[N];
    uint64_t st = 7;
    for (int n = 0; n <= N; ++n)
        for (int arrival = 0; arrival < 3; ++arrival) {
            for (int i = 0; i < n; ++i) {
                uint64_t r = (uint64_t)(test_rand(&st) * 12.0); /* few distinct keys: ties */
                if (arrival == 1) r = (uint64_t)(n - i) / 3;
                if (arrival == 2) r = (uint64_t)i / 2 + (i % 9 == 4 ? 3u : 0u);
                keys[i] = radix_keys[i] = tp_contact_key(0, (int)r, (int)r + 1, (uint32_t)(r * 977u) & 0x1FFFFu);
                vals[i] = radix_vals[i] = i;
            }
            tp_insertion_sort_u64(keys, vals, n);
            tp_radix_sort_u64(radix_keys, radix_vals, tmp_keys, tmp_vals, n, 0, 8);
            for (int i = 0; i < n; ++i) {
                cr_assert_eq(keys[i], radix_keys[i], "n %d arrival %d: key %d", n, arrival, i);
                cr_assert_eq(vals[i], radix_vals[i], "n %d arrival %d: value %d (stability)", n, arrival, i);
            }
        }
}

/* The broadphase's sort (tp_sort_u32): by insertion for a few boxes, the
 * same order as the radix sort, ties kept in body order. */
Test(contact_sort, small_u32_sort_orders_as_the_radix_sort)
{
    enum { N = 2 * TP_INSERTION_SORT_U32_MAX };
    uint32_t keys[N], radix_keys[N], tmp_keys[N];
    int32_t vals[N], radix_vals[N], tmp_vals[N];
    uint64_t st = 11;
    for (int n = 0; n <= N; ++n)
        for (int arrival = 0; arrival < 3; ++arrival) {
            for (int i = 0; i < n; ++i) {
                float x = (float)(test_rand(&st) * 8.0) - 4.0f;
                if (arrival == 1) x = (float)((n - i) / 3) - 1.5f; /* descending, with ties */
                if (arrival == 2) x = (float)(i / 2) * (i % 5 == 2 ? -1.0f : 1.0f);
                keys[i] = radix_keys[i] = tp_float_sort_bits(x);
                vals[i] = radix_vals[i] = i;
            }
            tp_sort_u32(keys, vals, tmp_keys, tmp_vals, n);
            tp_radix_sort_u32(radix_keys, radix_vals, tmp_keys, tmp_vals, n);
            for (int i = 0; i < n; ++i) {
                cr_assert_eq(keys[i], radix_keys[i], "n %d arrival %d: key %d", n, arrival, i);
                cr_assert_eq(vals[i], radix_vals[i], "n %d arrival %d: value %d (stability)", n, arrival, i);
                if (i > 0) cr_assert_leq(keys[i - 1], keys[i], "n %d arrival %d: order at %d", n, arrival, i);
            }
        }
}

/* ------------------------------------------------------------ worlds */

typedef struct run { tp_contact *c; int n, overflow; } run;

static run collide(const tp_world *wd, int capacity)
{
    run r;
    r.c = malloc((size_t)(capacity > 0 ? capacity : 1) * sizeof(tp_contact));
    void *scratch = malloc(tp_collide_scratch_bytes(wd->bodies, capacity) + 8);
    r.n = tp_collide_world(wd, scratch, r.c, capacity, &r.overflow);
    free(scratch);
    return r;
}

/* Bitwise equality of the fields this stage writes (struct padding and the
 * solver's output fields are not compared). */
static int same_contact(const tp_contact *x, const tp_contact *y)
{
#define SAME(f) (memcmp(&x->f, &y->f, sizeof x->f) == 0)
    return SAME(key) && SAME(body_a) && SAME(body_b) && SAME(normal) && SAME(separation) && SAME(local_a) &&
           SAME(local_b) && SAME(feature) && SAME(friction) && SAME(restitution) && SAME(normal_impulse) &&
           SAME(tangent_impulse);
#undef SAME
}

static int same_list(const tp_contact *x, const tp_contact *y, int n)
{
    for (int i = 0; i < n; ++i)
        if (!same_contact(&x[i], &y[i])) return 0;
    return 1;
}

static void assert_sorted_unique(const run *r)
{
    for (int i = 1; i < r->n; ++i)
        cr_assert(r->c[i - 1].key < r->c[i].key, "keys not strictly increasing at %d", i);
}

Test(contact_sort, world_contacts_come_sorted_with_distinct_keys)
{
    test_world t;
    test_world_init(&t, 200, 3);
    test_world_scene(&t, 150, 8, 21);
    run r = collide(&t.wd, 4096);
    cr_assert(r.n > 50, "only %d contacts", r.n);
    cr_assert_eq(r.overflow, 0);
    assert_sorted_unique(&r);
    for (int i = 0; i < r.n; ++i) {
        cr_assert_eq(tp_contact_key_world(r.c[i].key), 3);
        cr_assert(r.c[i].body_a < r.c[i].body_b);
        cr_assert_eq(r.c[i].key, tp_contact_key(3, r.c[i].body_a, r.c[i].body_b, r.c[i].feature));
    }
    free(r.c);
    test_world_free(&t);
}

/* The same contacts produced pair by pair in a shuffled order, through the
 * same append and sort, give the same bytes. */
static run collide_shuffled_pairs(const tp_world *wd, int capacity, uint64_t seed)
{
    int bodies = wd->bodies, np = 0;
    int (*pairs)[2] = malloc(sizeof(int[2]) * (size_t)bodies * (size_t)bodies / 2 + sizeof(int[2]));
    for (int a = 0; a < bodies; ++a)
        for (int b = a + 1; b < bodies; ++b) {
            if (!tp_body_is_simulated(wd, a) && !tp_body_is_simulated(wd, b)) continue;
            pairs[np][0] = a;
            pairs[np][1] = b;
            np++;
        }
    uint64_t st = seed;
    for (int i = np - 1; i > 0; --i) { /* Fisher-Yates */
        int j = (int)(test_rand(&st) * (i + 1));
        int ta = pairs[i][0], tb = pairs[i][1];
        pairs[i][0] = pairs[j][0];
        pairs[i][1] = pairs[j][1];
        pairs[j][0] = ta;
        pairs[j][1] = tb;
    }
    run r;
    r.c = malloc((size_t)(capacity > 0 ? capacity : 1) * sizeof(tp_contact));
    tp_contact_buffer cb = {r.c, capacity, 0, 0, 0};
    tp_contact pts[4];
    for (int i = 0; i < np; ++i) {
        int n = tp_collide_pair(wd, pairs[i][0], pairs[i][1], TP_CONTACT_MARGIN, pts);
        for (int k = 0; k < n; ++k) tp_contact_push(&cb, &pts[k]);
    }
    void *scratch = malloc(tp_collide_scratch_bytes(0, capacity) + 8);
    tp_contacts_sort(r.c, cb.count, scratch, capacity);
    free(scratch);
    free(pairs);
    r.n = cb.count;
    r.overflow = cb.overflow;
    return r;
}

Test(contact_sort, pair_order_does_not_change_the_sorted_list)
{
    test_world t;
    test_world_init(&t, 200, 0);
    test_world_scene(&t, 120, 8, 4);
    run ref = collide(&t.wd, 4096);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        run r = collide_shuffled_pairs(&t.wd, 4096, seed);
        cr_assert_eq(r.n, ref.n);
        cr_assert(same_list(r.c, ref.c, r.n), "seed %llu: lists differ",
                  (unsigned long long)seed);
        free(r.c);
    }
    free(ref.c);
    test_world_free(&t);
}

/* Map a contact of the renumbered world back to the original numbering. */
static tp_contact map_back(tp_contact c, const int *new_to_old, int world)
{
    int a = new_to_old[c.body_a], b = new_to_old[c.body_b];
    tp_contact m = c;
    if (a > b) {
        int t = a;
        a = b;
        b = t;
        for (int k = 0; k < 3; ++k) {
            m.normal[k] = -c.normal[k];
            m.local_a[k] = c.local_b[k];
            m.local_b[k] = c.local_a[k];
        }
        m.feature = tp_feature_swap(c.feature);
    }
    m.body_a = a;
    m.body_b = b;
    m.key = tp_contact_key(world, a, b, m.feature);
    return m;
}

static int cmp_contact(const void *x, const void *y)
{
    const tp_contact *a = x, *b = y;
    return a->key < b->key ? -1 : (a->key > b->key);
}

Test(contact_sort, renumbering_the_bodies_gives_the_same_contacts_bitwise)
{
    test_world t, u;
    test_world_init(&t, 200, 2);
    test_world_scene(&t, 120, 8, 9);
    int n = t.wd.bodies;
    int *new_to_old = malloc(sizeof(int) * (size_t)n), *old_to_new = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) new_to_old[i] = i;
    uint64_t st = 77;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)(test_rand(&st) * (i + 1)), tmp = new_to_old[i];
        new_to_old[i] = new_to_old[j];
        new_to_old[j] = tmp;
    }
    test_world_init(&u, n, 2);
    for (int i = 0; i < n; ++i) {
        int o = new_to_old[i];
        old_to_new[o] = i;
        const tp_body_model *m = &t.model[o];
        test_world_add(&u, m->type, m->shape, m->size[0], m->size[1], m->size[2], tp_v3_load(t.pos + 3 * o),
                       tp_q_load(t.quat + 4 * o));
    }
    run ref = collide(&t.wd, 4096), r = collide(&u.wd, 4096);
    cr_assert_eq(r.n, ref.n);
    cr_assert(ref.n > 50, "only %d contacts", ref.n);
    for (int i = 0; i < r.n; ++i) r.c[i] = map_back(r.c[i], new_to_old, 2);
    qsort(r.c, (size_t)r.n, sizeof(tp_contact), cmp_contact);
    for (int i = 0; i < r.n; ++i)
        cr_assert(same_contact(&r.c[i], &ref.c[i]), "contact %d differs (bodies %d %d)", i,
                  ref.c[i].body_a, ref.c[i].body_b);
    free(r.c);
    free(ref.c);
    free(new_to_old);
    free(old_to_new);
    test_world_free(&u);
    test_world_free(&t);
}

Test(contact_sort, overflow_is_counted_keeps_the_smallest_keys_and_stays_in_bounds)
{
    test_world t;
    test_world_init(&t, 200, 1);
    test_world_scene(&t, 120, 8, 4);
    run full = collide(&t.wd, 4096);
    cr_assert(full.n > 60);
    const int caps[3] = {0, 1, 37};
    for (int i = 0; i < 3; ++i) {
        int cap = caps[i];
        /* exactly `cap` records: AddressSanitizer flags any write past them */
        run r = collide(&t.wd, cap);
        cr_assert_eq(r.n, cap);
        cr_assert_eq(r.overflow, full.n - cap);
        cr_assert(same_list(r.c, full.c, cap), "capacity %d: not the smallest keys",
                  cap);
        run s = collide_shuffled_pairs(&t.wd, cap, 5);
        cr_assert_eq(s.overflow, full.n - cap);
        cr_assert(same_list(s.c, full.c, cap), "capacity %d: depends on pair order",
                  cap);
        free(r.c);
        free(s.c);
    }
    free(full.c);
    test_world_free(&t);
}
