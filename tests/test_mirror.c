/* test_mirror.c - the per-world host mirror of the CUDA backend (csrc/mirror.c),
 * against a fake device: the "device" is host memory and a copy is memcpy.
 *
 * What it must guarantee: reads see the device's bytes, writes reach the device
 * before the next step, a host change is never overwritten by a read, and only
 * the worlds involved move (one world's bytes for a one-world write, one copy
 * per array for a run of neighbouring worlds). */
#include <criterion/criterion.h>

#include "error.h"
#include "mirror.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define W 10

typedef struct fake {
    float host_pos[3 * W], dev_pos[3 * W];   /* bodies group, 12 bytes a world */
    uint8_t host_flag[W], dev_flag[W];       /* counts group, 1 byte a world */
    int32_t host_cont[4 * W], dev_cont[4 * W]; /* contacts group, 16 bytes a world */
    int waits;
    int fail_wait;                           /* the next wait fails */
    tp_mirror m;
} fake;

static tp_status fake_copy(void *ctx, void *dst, const void *src, size_t bytes, int to_device)
{
    (void)ctx;
    (void)to_device;
    memcpy(dst, src, bytes);
    return TP_OK;
}

static tp_status fake_wait(void *ctx)
{
    fake *f = ctx;
    f->waits++;
    if (f->fail_wait) {
        f->fail_wait = 0;
        return tp_fail(TP_ERR_CUDA, "fake device: the copy failed");
    }
    return TP_OK;
}

/* Host and device hold different values in every slot, so any copy shows. */
static void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < 3 * W; ++i) {
        f->host_pos[i] = (float)i;
        f->dev_pos[i] = 1000.0f + (float)i;
    }
    for (int w = 0; w < W; ++w) {
        f->host_flag[w] = 1;
        f->dev_flag[w] = 2;
    }
    for (int i = 0; i < 4 * W; ++i) {
        f->host_cont[i] = -i;
        f->dev_cont[i] = 5000 + i;
    }
    cr_assert_eq(tp_mirror_init(&f->m, W, fake_copy, fake_wait, f), TP_OK);
    cr_assert_eq(tp_mirror_add(&f->m, f->host_pos, f->dev_pos, 3 * sizeof(float), TP_MIRROR_BODIES), TP_OK);
    cr_assert_eq(tp_mirror_add(&f->m, f->host_flag, f->dev_flag, 1, TP_MIRROR_COUNTS), TP_OK);
    cr_assert_eq(tp_mirror_add(&f->m, f->host_cont, f->dev_cont, 4 * sizeof(int32_t), TP_MIRROR_CONTACTS), TP_OK);
}

static int host_world_is_device(const fake *f, int w, int groups)
{
    int same = 1;
    if (groups & TP_MIRROR_STATE)
        same &= !memcmp(f->host_pos + 3 * w, f->dev_pos + 3 * w, 3 * sizeof(float)) && f->host_flag[w] == f->dev_flag[w];
    if (groups & TP_MIRROR_CONTACTS) same &= !memcmp(f->host_cont + 4 * w, f->dev_cont + 4 * w, 4 * sizeof(int32_t));
    return same;
}

static int host_world_untouched(const fake *f, int w)
{
    return f->host_pos[3 * w] == (float)(3 * w) && f->host_flag[w] == 1 && f->host_cont[4 * w] == -4 * w;
}

Test(mirror, a_fresh_mirror_copies_nothing)
{
    fake f;
    fake_init(&f);
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_ALL), TP_OK);
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert_eq(f.m.copies, 0);
    cr_assert_eq(f.waits, 0, "nothing copied, nothing to wait for");
    tp_mirror_free(&f.m);
}

Test(mirror, pulling_one_world_moves_that_world_only)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1); /* a step */
    cr_assert_eq(tp_mirror_pull(&f.m, 3, 3, TP_MIRROR_STATE), TP_OK);
    cr_assert(host_world_is_device(&f, 3, TP_MIRROR_STATE));
    cr_assert_eq(f.host_cont[12], -12, "the contacts group was not asked for");
    for (int w = 0; w < W; ++w)
        if (w != 3) cr_assert(host_world_untouched(&f, w), "world %d was copied", w);
    cr_assert_eq(f.m.bytes_pulled, 3 * sizeof(float) + 1);
    cr_assert_eq(f.m.copies, 2);
    cr_assert_eq(f.waits, 1);
    tp_mirror_free(&f.m);
}

Test(mirror, a_run_of_worlds_is_one_copy_per_array)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_ALL), TP_OK);
    for (int w = 0; w < W; ++w) cr_assert(host_world_is_device(&f, w, TP_MIRROR_ALL), "world %d", w);
    cr_assert_eq(f.m.copies, 3);
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_ALL), TP_OK);
    cr_assert_eq(f.m.copies, 3, "a current host pulls nothing");
    tp_mirror_free(&f.m);
}

/* A world that is already current is copied along rather than splitting the
 * run: after a one-world pull, pulling everything is one copy per array. With
 * bridging off, the run splits around it. */
Test(mirror, runs_bridge_current_worlds)
{
    for (int bridging = 1; bridging >= 0; --bridging) {
        fake f;
        fake_init(&f);
        if (!bridging) f.m.bridge_bytes = 0;
        tp_mirror_device_changed(&f.m, 0, W - 1);
        cr_assert_eq(tp_mirror_pull(&f.m, 3, 3, TP_MIRROR_STATE), TP_OK);
        f.m.copies = 0;
        cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_ALL), TP_OK);
        for (int w = 0; w < W; ++w) cr_assert(host_world_is_device(&f, w, TP_MIRROR_ALL), "world %d", w);
        if (bridging)
            cr_assert_eq(f.m.copies, 3, "worlds 0-9 in one run per array");
        else
            cr_assert_eq(f.m.copies, 2 + 2 + 1, "state of 0-2 and of 4-9 (2 arrays each), contacts of 0-9");
        tp_mirror_free(&f.m);
    }
}

/* A pull never bridges a world the host wrote (it would undo the write); a
 * gap wider than bridge_bytes is not bridged. */
Test(mirror, a_pull_does_not_bridge_a_written_world_or_a_wide_gap)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    cr_assert_eq(tp_mirror_begin_write(&f.m, 3, 3), TP_OK);
    f.host_pos[9] = 42.0f;
    f.m.copies = 0;
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_STATE), TP_OK);
    cr_assert_eq(f.host_pos[9], 42.0f, "the pull overwrote a host write");
    cr_assert_eq(f.m.copies, 4, "worlds 0-2 and 4-9, 2 state arrays each");

    fake g;
    fake_init(&g);
    g.m.bridge_bytes = 2 * 3 * sizeof(float); /* gaps of up to 2 worlds of the bodies group */
    tp_mirror_device_changed(&g.m, 0, 0);
    tp_mirror_device_changed(&g.m, 3, 3);
    tp_mirror_device_changed(&g.m, 7, 7);
    cr_assert_eq(tp_mirror_pull(&g.m, 0, W - 1, TP_MIRROR_BODIES), TP_OK);
    cr_assert_eq(g.m.copies, 2, "worlds 0-3 bridged (gap of 2), 7 alone (gap of 3)");
    cr_assert_eq(g.m.bytes_pulled, 5 * 3 * sizeof(float));
    const int beyond_the_runs[] = {4, 5, 6, 8, 9};
    for (int i = 0; i < 5; ++i)
        cr_assert(host_world_untouched(&g, beyond_the_runs[i]), "world %d was copied", beyond_the_runs[i]);
    tp_mirror_free(&f.m);
    tp_mirror_free(&g.m);
}

/* Writes to every other world go back in one run; a world the device reset in
 * between is never pushed over. */
Test(mirror, a_push_bridges_clean_worlds_but_not_reset_ones)
{
    fake f;
    fake_init(&f);
    for (int w = 1; w < W; w += 2) {
        cr_assert_eq(tp_mirror_begin_write(&f.m, w, w), TP_OK);
        f.host_pos[3 * w] = -(float)w;
    }
    f.dev_pos[3 * 4] = 77.0f; /* the device resets world 4 */
    tp_mirror_device_changed(&f.m, 4, 4);
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    for (int w = 1; w < W; w += 2) cr_assert_eq(f.dev_pos[3 * w], -(float)w, "world %d's write was lost", w);
    cr_assert_eq(f.dev_pos[3 * 4], 77.0f, "a bridged push overwrote the reset world");
    cr_assert_eq(f.m.copies, 4, "worlds 1-3 and 5-9, 2 state arrays each");
    tp_mirror_free(&f.m);
}

Test(mirror, a_write_reaches_the_device_and_nothing_else_does)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    cr_assert_eq(tp_mirror_begin_write(&f.m, 5, 5), TP_OK);
    cr_assert(host_world_is_device(&f, 5, TP_MIRROR_STATE), "a write starts from the device's state");
    f.host_pos[15] = -1.0f;
    f.host_flag[5] = 9;
    uint64_t pulled = f.m.bytes_pulled;
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert_eq(f.dev_pos[15], -1.0f);
    cr_assert_eq(f.dev_flag[5], 9);
    cr_assert_eq(f.m.bytes_pushed, 3 * sizeof(float) + 1, "one world's state, no contacts");
    for (int w = 0; w < W; ++w)
        if (w != 5) cr_assert_eq(f.dev_pos[3 * w], 1000.0f + (float)(3 * w), "device world %d overwritten", w);
    cr_assert_eq(f.dev_cont[20], 5020, "contacts are never pushed");
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert_eq(f.m.bytes_pushed, 3 * sizeof(float) + 1, "a second push has nothing to send");
    cr_assert_eq(f.m.bytes_pulled, pulled);
    tp_mirror_free(&f.m);
}

/* A read between a write and the next step must not undo the write. */
Test(mirror, a_read_keeps_the_hosts_changes)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    cr_assert_eq(tp_mirror_begin_write(&f.m, 2, 2), TP_OK);
    f.host_pos[6] = 42.0f;
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_ALL), TP_OK);
    cr_assert_eq(f.host_pos[6], 42.0f, "the pull overwrote a host write");
    cr_assert(host_world_is_device(&f, 2, TP_MIRROR_CONTACTS), "world 2's contacts were still stale");
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert_eq(f.dev_pos[6], 42.0f);
    tp_mirror_free(&f.m);
}

/* A device reset of a world drops the host's pending change to it; the others
 * are still pushed. */
Test(mirror, a_device_reset_drops_pending_host_changes)
{
    fake f;
    fake_init(&f);
    cr_assert_eq(tp_mirror_begin_write(&f.m, 2, 4), TP_OK);
    f.host_pos[6] = 42.0f;  /* world 2 */
    f.host_pos[12] = 43.0f; /* world 4 */
    f.dev_pos[6] = 7.0f;    /* the device resets world 2 */
    tp_mirror_device_changed(&f.m, 2, 2);
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert_eq(f.dev_pos[6], 7.0f, "a dropped change was pushed over the reset");
    cr_assert_eq(f.dev_pos[12], 43.0f);
    cr_assert_eq(f.m.copies, 2, "worlds 3-4 in one run, 2 state arrays");
    cr_assert_eq(tp_mirror_pull(&f.m, 2, 2, TP_MIRROR_STATE), TP_OK);
    cr_assert_eq(f.host_pos[6], 7.0f, "the host reads the reset world");
    tp_mirror_free(&f.m);
}

/* Counts read every step, then a write and a push: the push bridges over a
 * world whose counts are current but whose bodies are stale only for the
 * counts, and never sends that world's stale bodies. */
Test(mirror, a_counts_read_then_a_write_pushes_no_stale_bodies)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_COUNTS), TP_OK); /* tp_batch_counts */
    cr_assert_eq(tp_mirror_begin_write(&f.m, 2, 2), TP_OK);
    cr_assert_eq(tp_mirror_begin_write(&f.m, 4, 4), TP_OK);
    f.host_pos[6] = -2.0f;
    f.host_pos[12] = -4.0f;
    f.host_flag[2] = 8;
    f.host_flag[4] = 9;
    f.m.copies = 0;
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert(f.dev_pos[6] == -2.0f && f.dev_pos[12] == -4.0f && f.dev_flag[2] == 8 && f.dev_flag[4] == 9);
    cr_assert_eq(f.dev_pos[9], 1000.0f + 9.0f, "world 3's stale bodies were pushed over the device's");
    cr_assert_eq(f.m.copies, 2 + 1, "bodies of 2 and of 4 apart, counts of 2-4 in one run");
    tp_mirror_free(&f.m);
}

/* A pull whose copy fails reports it and leaves the worlds stale, so the next
 * read copies them again instead of trusting half-copied bytes. */
Test(mirror, a_failed_pull_leaves_the_worlds_stale)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    f.fail_wait = 1;
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_ALL), TP_ERR_CUDA);
    for (int w = 0; w < W; ++w) cr_assert_eq(f.m.stale[w], TP_MIRROR_ALL, "world %d", w);
    f.m.copies = 0;
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_ALL), TP_OK);
    cr_assert_eq(f.m.copies, 3, "copied again");
    tp_mirror_free(&f.m);
}

Test(mirror, too_many_arrays_is_an_error)
{
    fake f;
    fake_init(&f);
    cr_assert_eq(tp_mirror_add(&f.m, f.host_flag, f.dev_flag, 1, TP_MIRROR_STATE), TP_ERR_INVALID_ARGUMENT,
                 "two groups at once");
    while (f.m.count < TP_MIRROR_MAX_ARRAYS) tp_mirror_add(&f.m, f.host_flag, f.dev_flag, 1, TP_MIRROR_COUNTS);
    cr_assert_eq(tp_mirror_add(&f.m, f.host_flag, f.dev_flag, 1, TP_MIRROR_COUNTS), TP_ERR_CAPACITY);
    char want[64];
    snprintf(want, sizeof want, "more than %d arrays", TP_MIRROR_MAX_ARRAYS);
    cr_assert(strstr(tp_last_error(), want), "%s", tp_last_error());
    tp_mirror_free(&f.m);
}

/* The counts of every world in one copy: with a span declared over a group's
 * arrays (laid out back to back on both sides, as csrc/batch.c and
 * kernels/cuda/memory.cu lay out the counts), a pull of every world is a
 * single copy of the span; a pull of some worlds still copies per array and
 * leaves the others alone. */
Test(mirror, a_span_pulls_every_world_in_one_copy)
{
    struct side {
        int32_t count[2 * W]; /* two arrays back to back, 4 bytes a world each */
        uint8_t awake[W];
    } host, dev;
    for (int i = 0; i < 2 * W; ++i) {
        host.count[i] = i;
        dev.count[i] = 100 + i;
    }
    memset(host.awake, 1, sizeof host.awake);
    memset(dev.awake, 2, sizeof dev.awake);
    fake f;
    fake_init(&f);
    tp_mirror *m = &f.m;
    m->count = 0; /* this test's arrays only */
    cr_assert_eq(tp_mirror_add(m, host.count, dev.count, sizeof(int32_t), TP_MIRROR_COUNTS), TP_OK);
    cr_assert_eq(tp_mirror_add(m, host.count + W, dev.count + W, sizeof(int32_t), TP_MIRROR_COUNTS), TP_OK);
    cr_assert_eq(tp_mirror_add(m, host.awake, dev.awake, 1, TP_MIRROR_COUNTS), TP_OK);
    /* a span that leaves an array out, or puts it at another offset on the device, is refused */
    cr_assert_eq(tp_mirror_set_span(m, TP_MIRROR_COUNTS, &host, &dev, sizeof(int32_t) * 2 * W), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_mirror_set_span(m, TP_MIRROR_COUNTS, &host, dev.count + 1, sizeof host), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_mirror_set_span(m, TP_MIRROR_COUNTS, &host, &dev, offsetof(struct side, awake) + W), TP_OK);

    tp_mirror_device_changed(m, 0, W - 1);
    cr_assert_eq(tp_mirror_pull(m, 4, 5, TP_MIRROR_COUNTS), TP_OK);
    cr_assert_eq(m->copies, 3, "two worlds: a copy per array");
    cr_assert_eq(host.count[3], 3, "world 3 was not asked for");
    cr_assert_eq(host.count[4], 104);
    cr_assert_eq(host.count[W + 5], 100 + W + 5);
    cr_assert_eq(host.awake[5], 2);
    cr_assert_eq(host.awake[6], 1);

    tp_mirror_device_changed(m, 0, W - 1); /* a step */
    cr_assert_eq(tp_mirror_pull(m, 0, W - 1, TP_MIRROR_COUNTS), TP_OK);
    cr_assert_eq(m->copies, 4, "every world: one copy of the span");
    cr_assert_eq(m->bytes_pulled, 2 * (2 * sizeof(int32_t) + 1) + offsetof(struct side, awake) + W);
    cr_assert(!memcmp(host.count, dev.count, sizeof host.count));
    cr_assert(!memcmp(host.awake, dev.awake, sizeof host.awake));
    tp_mirror_free(m);
}

/* The sensors' group, added after the others (as a sensor is turned on): the
 * host never writes it, so a pull copies a world the host changed (its
 * sensors are the device's all the same) and a push never sends it. */
Test(mirror, sensors_group_is_pulled_never_pushed)
{
    fake f;
    fake_init(&f);
    float host_s[2 * W], dev_s[2 * W];
    for (int i = 0; i < 2 * W; ++i) host_s[i] = -1.0f, dev_s[i] = (float)i;
    cr_assert_eq(tp_mirror_add(&f.m, host_s, dev_s, 2 * sizeof(float), TP_MIRROR_SENSORS), TP_OK);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    cr_assert_eq(tp_mirror_begin_write(&f.m, 3, 3), TP_OK); /* world 3 dirty */
    f.host_pos[9] = -7.0f;
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_SENSORS), TP_OK);
    cr_assert(!memcmp(host_s, dev_s, sizeof host_s), "every world's sensors are the device's");
    cr_assert_eq(f.host_pos[9], -7.0f, "a sensors pull changed the host's write");
    host_s[6] = 99.0f; /* never sent */
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert_eq(dev_s[6], 6.0f);
    cr_assert_eq(f.dev_pos[9], -7.0f);
    tp_mirror_free(&f.m);
}

/* The constraints' group (constraint tables and state, mover state): pulled
 * alone by their read-outs, pulled by a write and pushed after it with the
 * state groups (TP_MIRROR_WRITTEN), never by a read of the state groups; a
 * model without it (no such array) pulls nothing for it and waits for nothing. */
Test(mirror, constraints_group_is_pulled_by_reads_and_writes_and_pushed)
{
    fake f;
    fake_init(&f);
    tp_mirror_device_changed(&f.m, 0, W - 1);
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_CONSTRAINTS), TP_OK);
    cr_assert_eq(f.m.copies, 0, "no array in the group: nothing copied");
    cr_assert_eq(f.waits, 0, "nothing copied, nothing to wait for");
    int32_t host_c[2 * W], dev_c[2 * W];
    for (int i = 0; i < 2 * W; ++i) host_c[i] = -1, dev_c[i] = i;
    cr_assert_eq(tp_mirror_add(&f.m, host_c, dev_c, 2 * sizeof(int32_t), TP_MIRROR_CONSTRAINTS), TP_OK);
    tp_mirror_device_changed(&f.m, 0, W - 1); /* a step */
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_STATE), TP_OK);
    cr_assert_eq(host_c[4], -1, "a state read pulled the constraints");
    cr_assert_eq(tp_mirror_begin_write(&f.m, 2, 2), TP_OK); /* a write of world 2 starts from the device's table */
    cr_assert(host_c[4] == 4 && host_c[5] == 5, "the write did not pull the world's constraints");
    cr_assert_eq(host_c[6], -1, "the write pulled world 3's constraints");
    host_c[5] = 77;
    f.m.bytes_pulled = 0;
    cr_assert_eq(tp_mirror_pull(&f.m, 0, W - 1, TP_MIRROR_CONSTRAINTS), TP_OK); /* a read-out */
    cr_assert_eq(f.m.bytes_pulled, (W - 1) * 2 * sizeof(int32_t), "the read-out pulled more than the other worlds' constraints");
    cr_assert_eq(host_c[5], 77, "a read-out overwrote a host write");
    cr_assert_eq(host_c[0], 0);
    cr_assert_eq(tp_mirror_push(&f.m), TP_OK);
    cr_assert_eq(dev_c[5], 77, "the write was not pushed");
    cr_assert_eq(dev_c[7], 7);
    tp_mirror_free(&f.m);
}
