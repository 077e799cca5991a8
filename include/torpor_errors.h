/* torpor_errors.h - the last failure in parts (file, line, column, field,
 * reason), for callers that want more than tp_last_error()'s string.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_ERRORS_H
#define TORPOR_ERRORS_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_errors.h"
#endif

/* The last failure on this thread, in parts, for callers that want more than
 * tp_last_error()'s string (an editor marking the place in a scene file). */
typedef struct tp_error_info {
    tp_status status;  /* TP_OK when there is no failure to report */
    char path[512];    /* the file or source the error is in (scene loads), "" otherwise */
    int line, column;  /* 1-based place in `path`; 0 when not known (I/O errors, API misuse) */
    char field[256];   /* the offending value's path in the scene ("bodies[3].size[1]"), "" when none */
    char reason[1024]; /* what is wrong ("must be > 0, got -1"); for errors without parts, the message */
    char message[2048];/* the whole message, as tp_last_error() gives it */
} tp_error_info;

/* Copy this thread's last failure into *out (status TP_OK and empty strings
 * when none). Scene loads fill every part; other calls fill status, reason and
 * message. TP_ERR_INVALID_ARGUMENT if out is NULL. Loads (tp_model_load,
 * tp_model_load_string and the two below) clear the last failure when they
 * succeed, so after a successful load this reports TP_OK. */
tp_status tp_last_error_info(tp_error_info *out);
/* tp_model_load / tp_model_load_string that also write their outcome into
 * *error (if not NULL): status TP_OK and empty parts on success, the failure's
 * parts otherwise. Nothing global needs to be read afterwards. */
tp_status tp_model_load_with_error(const char *path, tp_model **out, tp_error_info *error);
tp_status tp_model_load_string_with_error(const char *json, const char *source, tp_model **out, tp_error_info *error);

#endif
