/* error.c - thread-local error records and status names.
 *
 * One record per thread, so calls on different threads never see each other's
 * failures; tp_last_error() and tp_last_error_info() read the same record. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local tp_error_info tp_error_record;
static _Thread_local const char *tp_error_list; /* tp_fail_item */
static _Thread_local int tp_error_index;

/* Copy src into dst[size], cut to fit and always NUL-terminated. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= size) n = size - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

tp_status tp_fail(tp_status status, const char *fmt, ...)
{
    tp_error_info *e = &tp_error_record;
    char message[sizeof e->message];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args); /* a copy first: an argument may be tp_last_error() */
    va_end(args);
    memset(e, 0, sizeof *e);
    tp_error_list = NULL;
    e->status = status;
    copy_text(e->message, sizeof e->message, message);
    copy_text(e->reason, sizeof e->reason, message);
    return status;
}

tp_status tp_fail_at(tp_status status, const char *path, int line, int column, const char *field,
                     const char *reason)
{
    tp_error_info *e = &tp_error_record;
    tp_error_info next;
    memset(&next, 0, sizeof next);
    next.status = status;
    next.line = line > 0 ? line : 0;
    next.column = line > 0 && column > 0 ? column : 0;
    copy_text(next.path, sizeof next.path, path);
    copy_text(next.field, sizeof next.field, field);
    copy_text(next.reason, sizeof next.reason, reason);
    char place[32] = "";
    if (next.line > 0) snprintf(place, sizeof place, ":%d:%d", next.line, next.column);
    int n = snprintf(next.message, sizeof next.message, "%s%s: %s%s", next.path, place, next.field,
                     next.field[0] ? ": " : "");
    if (n >= 0 && (size_t)n < sizeof next.message)
        copy_text(next.message + n, sizeof next.message - (size_t)n, next.reason);
    *e = next; /* built aside: `reason` may point into the record */
    tp_error_list = NULL;
    return status;
}

void tp_fail_item(const char *list, int index)
{
    tp_error_list = list;
    tp_error_index = index;
}

const char *tp_failed_item(int *index)
{
    *index = tp_error_index;
    return tp_error_list;
}

void tp_clear_error(void)
{
    memset(&tp_error_record, 0, sizeof tp_error_record);
    tp_error_list = NULL;
}

const char *tp_last_error(void) { return tp_error_record.message; }

tp_status tp_last_error_info(tp_error_info *out)
{
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_last_error_info: out is NULL");
    *out = tp_error_record;
    return TP_OK;
}

const char *tp_status_name(tp_status status)
{
    switch (status) {
    case TP_OK: return "ok";
    case TP_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TP_ERR_PARSE: return "scene error";
    case TP_ERR_IO: return "i/o error";
    case TP_ERR_OUT_OF_MEMORY: return "out of memory";
    case TP_ERR_CAPACITY: return "capacity exceeded";
    case TP_ERR_BACKEND: return "backend unavailable";
    case TP_ERR_CUDA: return "cuda error";
    }
    return "unknown status";
}

int tp_check_fail(char *field, size_t field_len, char *reason, size_t reason_len, const char *path, const char *fmt,
                  ...)
{
    va_list args;
    va_start(args, fmt);
    snprintf(field, field_len, "%s", path);
    vsnprintf(reason, reason_len, fmt, args);
    va_end(args);
    return 0;
}
