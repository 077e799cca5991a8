/* test_golden.c - golden determinism: five scenes in 16 worlds must give the
 * hashes and all-asleep steps of the table in tests/golden.h, bit for bit, at 1
 * and at 2 threads, in every build the suite runs in (Release and Sanitize), as
 * Box2D's and Jolt's determinism tests keep expected hashes in the tree.
 * tests/golden.h says how to regenerate the table when results change on
 * purpose. */
#include "golden.h"
#include "helpers.h"

#include <stdio.h>

#define GOLDEN_WORLDS 16

/* Run one row's scene; *asleep gets the step after which every world is asleep
 * and stays so to the end of the run (-1 if some world is awake at the end). */
static uint64_t run_golden(const char *scene, int steps, int threads, int *asleep)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", TP_SOURCE_DIR, scene);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, GOLDEN_WORLDS, threads);
    *asleep = -1;
    for (int s = 1; s <= steps; ++s) {
        batch_steps(b, 1);
        tp_state_view c;
        cr_assert_eq(tp_batch_counts(b, &c), TP_OK);
        int awake = 0;
        for (int w = 0; w < GOLDEN_WORLDS; ++w) awake += c.awake_count[w];
        if (awake > 0) *asleep = -1;
        else if (*asleep < 0) *asleep = s;
    }
    uint64_t h = golden_hash(b);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return h;
}

static void check_row(int i)
{
    const golden_row *r = &golden_table[i];
    for (int threads = 1; threads <= 2; ++threads) {
        int asleep = 0;
        uint64_t h = run_golden(r->scene, r->steps, threads, &asleep);
        cr_expect_eq(asleep, r->all_asleep_step, "%s at %d thread(s): all asleep after step %d, golden %d", r->scene,
                     threads, asleep, r->all_asleep_step);
        cr_expect_eq(h, r->hash,
                     "%s at %d thread(s): hash %016llx, golden %016llx (if results changed on purpose, regenerate "
                     "tests/golden.h as it says)",
                     r->scene, threads, (unsigned long long)h, (unsigned long long)r->hash);
    }
}

Test(golden, tower, .timeout = 600) { check_row(0); }
Test(golden, pyramid, .timeout = 600) { check_row(1); }
Test(golden, jenga, .timeout = 600) { check_row(2); }
Test(golden, heap, .timeout = 600) { check_row(3); }
Test(golden, dominoes, .timeout = 600) { check_row(4); }

/* TORPOR_GOLDEN_PRINT=1: print the table's rows for tests/golden.h. */
Test(golden, print, .timeout = 600)
{
    const char *print = getenv("TORPOR_GOLDEN_PRINT");
    if (!(print && strcmp(print, "1") == 0)) cr_skip_test("set TORPOR_GOLDEN_PRINT=1 to print the golden table");
    for (size_t i = 0; i < sizeof golden_table / sizeof golden_table[0]; ++i) {
        int asleep = 0;
        uint64_t h = run_golden(golden_table[i].scene, golden_table[i].steps, 1, &asleep);
        printf("    {\"%s\", %d, %d, 0x%016llxull},\n", golden_table[i].scene, golden_table[i].steps, asleep,
               (unsigned long long)h);
    }
    fflush(stdout);
}
