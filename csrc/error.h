/* error.h - the thread-local last error behind tp_last_error() and
 * tp_last_error_info(). */
#ifndef TP_ERROR_H
#define TP_ERROR_H

#include "torpor.h"

#include <stddef.h>

/* Format a message into this thread's error record and return `status`, so a
 * failing call can end with: return tp_fail(TP_ERR_INVALID_ARGUMENT, "...", ...).
 * The record's parts: status, reason = message, no file, place or field. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
tp_status tp_fail(tp_status status, const char *fmt, ...);

/* A failure at a place in a file: the message is "path:line:column: field: reason"
 * (line 0: "path: field: reason"; an empty field is left out), and every part
 * is kept for tp_last_error_info. Returns `status`. */
tp_status tp_fail_at(tp_status status, const char *path, int line, int column, const char *field,
                     const char *reason);

/* Write `path` into field and the formatted reason into reason; returns 0 (a
 * failed check). CHECK_FAIL(path, "reason", ...) calls it inside a *_check
 * function whose arguments are named field, field_len, reason, reason_len. */
#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
int tp_check_fail(char *field, size_t field_len, char *reason, size_t reason_len, const char *path, const char *fmt,
                  ...);
#define CHECK_FAIL(path, ...) tp_check_fail(field, field_len, reason, reason_len, path, __VA_ARGS__)

/* The element a failure names in one of the builder's lists ("joints",
 * "constraints", "events"; index as added), set after tp_fail by
 * tp_builder_finish's checks so that the scene loader can place the error at
 * that element of the scene. Every tp_fail, tp_fail_at and tp_clear_error
 * clears it. */
void tp_fail_item(const char *list, int index);
/* The last failure's list (NULL: it named none) and *index. */
const char *tp_failed_item(int *index);

/* Clear the record (status TP_OK, empty message): what a successful load does. */
void tp_clear_error(void);

#endif
