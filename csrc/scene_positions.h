/* scene_positions.h - where a value sits in the text of a JSON document.
 *
 * jansson parses a scene but keeps no positions of values. Positions are only
 * needed to report an error, so instead of indexing every value on every load
 * the loader asks, once it has found a problem, for the line and column of the
 * offending path; tp_json_locate then walks the (already validated) text once
 * and stops there. */
#ifndef TP_SCENE_POSITIONS_H
#define TP_SCENE_POSITIONS_H

/* One step of a path into a JSON document: an object key (key != NULL) or an
 * array index (key == NULL). Keys are compared with the decoded JSON strings,
 * escapes included, so any key jansson accepted can be found. */
typedef struct tp_json_step {
    const char *key;
    int index;
} tp_json_step;

/* Find the value at path[0..depth) in `text`, which must be JSON that jansson
 * accepted (UTF-8, no NUL). Writes the 1-based line and column (columns count
 * code points, as jansson's do) of the first character of that value, or of its
 * key when `at_key` is set and the last step is a key. When the path is not all
 * there, the position is that of the deepest value that is (so a missing key is
 * reported at its enclosing object). Returns the number of steps found. */
int tp_json_locate(const char *text, const tp_json_step *path, int depth, int at_key, int *line, int *col);

#endif
