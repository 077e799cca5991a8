/* scene_positions.c - line and column of a value in a JSON text, by path.
 *
 * A minimal scanner over text that jansson has already accepted: it never has to
 * diagnose anything, only skip values and compare keys, so it is short. Lines
 * and columns are counted as jansson counts them (lines split at '\n', columns
 * in code points, both from 1), so scanner and parser positions agree. */
#include "scene_positions.h"

#include <stddef.h>

typedef struct cursor {
    const unsigned char *p;
    int line, col; /* of the character at p */
} cursor;

/* Move past one byte; the column advances once per code point. */
static void advance(cursor *c)
{
    unsigned char ch = *c->p++;
    if (ch == '\n') {
        c->line++;
        c->col = 1;
    } else if ((*c->p & 0xC0) != 0x80) { /* next byte starts a new code point */
        c->col++;
    }
}

static void skip_ws(cursor *c)
{
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n') advance(c);
}

static void skip_string(cursor *c)
{
    advance(c); /* opening quote */
    while (*c->p != '"') {
        if (*c->p == '\\') advance(c); /* the escaped character cannot end the string */
        advance(c);
    }
    advance(c);
}

/* Skip one value of any kind. Containers are skipped by counting brackets
 * outside strings, which is enough because the text is valid JSON. */
static void skip_value(cursor *c)
{
    if (*c->p == '"') {
        skip_string(c);
    } else if (*c->p == '{' || *c->p == '[') {
        int depth = 0;
        do {
            if (*c->p == '"') {
                skip_string(c);
                continue;
            }
            if (*c->p == '{' || *c->p == '[') depth++;
            if (*c->p == '}' || *c->p == ']') depth--;
            advance(c);
        } while (depth > 0);
    } else { /* number, true, false, null */
        while (*c->p && *c->p != ',' && *c->p != '}' && *c->p != ']' && *c->p != ' ' && *c->p != '\t' &&
               *c->p != '\r' && *c->p != '\n')
            advance(c);
    }
}

static unsigned read_hex4(cursor *c)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        unsigned char h = *c->p;
        v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
        advance(c);
    }
    return v;
}

/* Decode the escape at c (a backslash) into UTF-8 bytes; returns their count. */
static int decode_escape(cursor *c, unsigned char out[4])
{
    advance(c); /* backslash */
    unsigned char e = *c->p;
    advance(c);
    unsigned cp;
    switch (e) {
    case 'b': cp = '\b'; break;
    case 'f': cp = '\f'; break;
    case 'n': cp = '\n'; break;
    case 'r': cp = '\r'; break;
    case 't': cp = '\t'; break;
    case 'u':
        cp = read_hex4(c);
        if (cp >= 0xD800 && cp < 0xDC00) { /* high surrogate: jansson made sure a low one follows */
            advance(c);
            advance(c);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (read_hex4(c) - 0xDC00);
        }
        break;
    default: cp = e; break; /* \" \\ \/ */
    }
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Read the string at c and tell whether it decodes to `key`. */
static int string_matches(cursor *c, const char *key)
{
    const unsigned char *k = (const unsigned char *)key;
    int same = 1;
    advance(c); /* opening quote */
    while (*c->p != '"') {
        unsigned char bytes[4];
        int n = 1;
        if (*c->p == '\\') {
            n = decode_escape(c, bytes);
        } else {
            bytes[0] = *c->p;
            advance(c);
        }
        for (int i = 0; i < n; ++i) {
            if (same && *k == bytes[i]) k++;
            else same = 0;
        }
    }
    advance(c);
    return same && *k == '\0';
}

/* With c at a value, move c to the child named by `step` (its key position goes
 * to *key_at). Returns 0, c anywhere, if the value has no such child. */
static int enter(cursor *c, const tp_json_step *step, cursor *key_at)
{
    if (step->key) {
        if (*c->p != '{') return 0;
        advance(c);
        skip_ws(c);
        while (*c->p == '"') {
            *key_at = *c;
            int match = string_matches(c, step->key);
            skip_ws(c);
            advance(c); /* colon */
            skip_ws(c);
            if (match) return 1;
            skip_value(c);
            skip_ws(c);
            if (*c->p != ',') return 0;
            advance(c);
            skip_ws(c);
        }
        return 0;
    }
    if (*c->p != '[' || step->index < 0) return 0;
    advance(c);
    skip_ws(c);
    if (*c->p == ']') return 0;
    for (int i = 0; i < step->index; ++i) {
        skip_value(c);
        skip_ws(c);
        if (*c->p != ',') return 0;
        advance(c);
        skip_ws(c);
    }
    *key_at = *c;
    return 1;
}

int tp_json_locate(const char *text, const tp_json_step *path, int depth, int at_key, int *line, int *col)
{
    cursor c = {(const unsigned char *)text, 1, 1};
    skip_ws(&c);
    cursor found = c, key_at = c;
    int n = 0;
    while (n < depth && enter(&c, &path[n], &key_at)) {
        found = c;
        n++;
    }
    if (n == depth && depth > 0 && at_key && path[depth - 1].key) found = key_at;
    *line = found.line;
    *col = found.col;
    return n;
}
