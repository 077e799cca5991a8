/* hint.c - "did you mean" hints: the nearest name by Levenshtein distance. */
#include "hint.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Levenshtein distance (insertions, deletions, substitutions), or INT_MAX for
 * words too long to be worth a hint. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return INT_MAX;
    int prev[64], cur[64];
    for (size_t j = 0; j <= lb; ++j) prev[j] = (int)j;
    for (size_t i = 1; i <= la; ++i) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; ++j) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

void tp_hint_consider(tp_hint *h, const char *candidate)
{
    int d = edit_distance(h->word, candidate);
    int len = (int)strlen(h->word);
    int close = len >= 6 ? len / 3 : 1; /* one typo in a short word, one in three letters in a long one */
    if (d <= close && (!h->best || d < h->distance)) {
        h->best = candidate;
        h->distance = d;
    }
}

/* "; did you mean "x"?" or "; expected one of "a", "b"" into out. */
void tp_hint_text(const char *word, const char *const *names, int count, char *out, size_t len)
{
    tp_hint h = {word, NULL, 0};
    for (int i = 0; i < count; ++i) tp_hint_consider(&h, names[i]);
    if (h.best) {
        snprintf(out, len, "; did you mean \"%s\"?", h.best);
        return;
    }
    size_t at = (size_t)snprintf(out, len, "; expected one of");
    for (int i = 0; i < count && at < len; ++i)
        at += (size_t)snprintf(out + at, len - at, "%s \"%s\"", i ? "," : "", names[i]);
}

