/* hint.h - "did you mean" hints for misspelt keys, names and values. */
#ifndef TP_HINT_H
#define TP_HINT_H

#include <stddef.h>

/* The nearest candidate seen so far, kept only if close enough to be a likely typo. */
typedef struct tp_hint {
    const char *word;
    const char *best;
    int distance;
} tp_hint;

/* Offer one candidate: it becomes the hint if it is within one typo of a short
 * word (one in three letters of a word of 6 or more) and nearer than the last. */
void tp_hint_consider(tp_hint *h, const char *candidate);

/* "; did you mean "x"?" or, without a close candidate, "; expected one of "a",
 * "b"", into out. */
void tp_hint_text(const char *word, const char *const *names, int count, char *out, size_t len);

#endif
