/* huge_pages.h - asking the kernel for huge pages behind a batch's large
 * world-major arrays (csrc/huge_pages.c). */
#ifndef TP_HUGE_PAGES_H
#define TP_HUGE_PAGES_H

#include <stddef.h>

/* Advise Linux to back the whole pages inside [p, p + bytes) with transparent
 * huge pages (madvise MADV_HUGEPAGE; the system's setting decides). Nothing
 * elsewhere, for small arrays, or if the advice is refused: only the speed
 * changes, never the contents. */
void tp_advise_huge_pages(void *p, size_t bytes);

#endif
