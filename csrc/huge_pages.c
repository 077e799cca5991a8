/* huge_pages.c - transparent huge pages for a batch's large arrays.
 *
 * Stepping thousands of worlds walks each world's slice of every array once
 * per step; with 4 KiB pages the contact buffers alone (capacity x 140 bytes
 * a world, two of each) need a new page every world or two, and each TLB miss
 * costs a page walk (two levels of them in a virtual machine). 2 MiB pages
 * keep those walks off the step (bench/README.md, "Robots"). */
#define _DEFAULT_SOURCE /* madvise */
#include "huge_pages.h"

#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define TP_HUGE_PAGE ((size_t)2 << 20)

void tp_advise_huge_pages(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (!p || bytes < TP_HUGE_PAGE) return;
    const uintptr_t page = 4096u;
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: a refusal changes nothing */
#else
    (void)p, (void)bytes;
#endif
}
