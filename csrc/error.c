/* error.c - thread-local error messages and status names. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char tp_error_buffer[2048];

tp_status tp_fail(tp_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(tp_error_buffer, sizeof tp_error_buffer, fmt, args);
    va_end(args);
    return status;
}

void tp_clear_error(void) { tp_error_buffer[0] = '\0'; }

const char *tp_last_error(void) { return tp_error_buffer; }

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
