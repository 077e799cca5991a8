/* fuzz_scene.c - libFuzzer target: the scene loader (csrc/scene.c, model.c).
 *
 * Any input must either load or be refused with TP_ERR_PARSE (or capacity /
 * memory) and a message; a model that loads must answer its queries. Built and
 * run by scripts/fuzz.sh (clang -fsanitize=fuzzer,address,undefined). */
#include "torpor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    tp_model *m = (tp_model *)text; /* must come back NULL on failure */
    tp_status st = tp_model_load_string(text, "fuzz.json", &m);
    if (st != TP_OK) {
        if (m != NULL || tp_last_error()[0] == '\0') abort(); /* a failure leaves no model and says why */
    } else {
        int n = tp_model_body_count(m);
        for (int i = 0; i < n; ++i) {
            tp_body_def d;
            float mass, inertia[3];
            if (tp_model_body(m, i, &d) != TP_OK || !tp_model_body_name(m, i)) abort();
            if (tp_model_body_mass(m, i, &mass, inertia) != TP_OK) abort();
            float q2 = d.quat[0] * d.quat[0] + d.quat[1] * d.quat[1] + d.quat[2] * d.quat[2] + d.quat[3] * d.quat[3];
            if (!(q2 > 0.99f && q2 < 1.01f)) abort(); /* stored normalized (C20) */
        }
        tp_model_destroy(m);
    }
    free(text);
    return 0;
}
