/* test_noalloc.c - "tp_batch_step never allocates" (include/torpor.h), checked
 * by counting the allocations made while it runs.
 *
 * In the Release build this binary defines malloc, calloc, realloc,
 * aligned_alloc, posix_memalign and memalign itself, on top of glibc's
 * __libc_* entry points, so that every allocation in the process (the
 * library's, the C runtime's) goes through a counter. AddressSanitizer owns malloc in
 * the Sanitize build; there the counter is its malloc hook
 * (__sanitizer_install_malloc_and_free_hooks). The first step runs before
 * counting starts (it is not counted: lazy first-use set-up in the C runtime;
 * the step's thread pool is made with the batch, csrc/thread_pool.h). */
#define _GNU_SOURCE
#include "helpers.h"

#include <stdatomic.h>
#include <stddef.h>

static atomic_int counting;
static atomic_long allocations;

static void count_one(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&allocations, 1);
}

#ifdef TP_SANITIZE
/* From the sanitizer runtime (compiler-rt's allocator_interface.h, which gcc
 * does not install): called on every allocation and free. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void on_malloc(const volatile void *ptr, size_t size)
{
    (void)ptr, (void)size;
    count_one();
}

static void on_free(const volatile void *ptr) { (void)ptr; }

static void install_counter(void) { __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free); }
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
    count_one();
    return __libc_malloc(n);
}
void *calloc(size_t k, size_t n)
{
    count_one();
    return __libc_calloc(k, n);
}
void *realloc(void *p, size_t n)
{
    count_one();
    return __libc_realloc(p, n);
}
void *memalign(size_t a, size_t n)
{
    count_one();
    return __libc_memalign(a, n);
}
void *aligned_alloc(size_t a, size_t n)
{
    count_one();
    return __libc_memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n)
{
    count_one();
    void *p = __libc_memalign(a, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void free(void *p) { __libc_free(p); }

static void install_counter(void) {}
#endif

/* The counter counts: an allocation made on purpose is seen. */
Test(noalloc, the_counter_sees_allocations)
{
    install_counter();
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
    void *volatile p = malloc(64);
    atomic_store(&counting, 0);
    free(p);
    cr_assert_eq(atomic_load(&allocations), 1);
}

/* tower_push.json runs its four kinds of events (impulse, teleport, gravity,
 * remove), wakes and sleeps, in 8 worlds on 2 threads: no allocation in 8 s. */
Test(noalloc, a_step_never_allocates, .timeout = 300)
{
    const char *backend = getenv("TORPOR_TEST_BACKEND");
    if (backend && strcmp(backend, "cuda") == 0) cr_skip_test("counts host allocations of the CPU backend");
    install_counter();
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(TP_SOURCE_DIR "/scenes/tower_push.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, 8, 2);
    batch_steps(b, 1);
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
    tp_status st = tp_batch_step(b, 479);
    atomic_store(&counting, 0);
    cr_assert_eq(st, TP_OK, "%s", tp_last_error());
    cr_assert_eq(atomic_load(&allocations), 0, "%ld allocations in 479 steps", atomic_load(&allocations));
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.removed[10], 1, "the scene's remove event ran"); /* top cube, removed at 6.5 s */
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
