/* error.h - the thread-local last-error message behind tp_last_error(). */
#ifndef TP_ERROR_H
#define TP_ERROR_H

#include "torpor.h"

/* Format a message into this thread's error buffer and return `status`, so a
 * failing call can end with: return tp_fail(TP_ERR_INVALID_ARGUMENT, "...", ...). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
tp_status tp_fail(tp_status status, const char *fmt, ...);

/* Clear the message (called by nothing on success: the message stays until the
 * next failure, as documented). */
void tp_clear_error(void);

#endif
