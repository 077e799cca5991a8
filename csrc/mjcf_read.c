/* mjcf_read.c - the MJCF importer's reading helpers (csrc/mjcf_model.h):
 * attributes with their <default> classes, numbers and keywords, frames,
 * classes. Every other part of the importer calls these; they call none of it. */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "mjcf_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const mjcf_kind_tags[K_COUNT] = {"joint", "geom", "motor", "position", "velocity", "general", "mesh",
                                             "tendon", "site"};
const char *const mjcf_joint_types[] = {"free", "ball", "slide", "hinge"};
const char *const mjcf_geom_types[] = {"plane", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};
const char *const mjcf_bool_words[] = {"false", "true", "auto"};

int mjcf_grow_array(void **p, int count, size_t elem)
{
    if (count & (count - 1)) return 1; /* capacity is the next power of two */
    void *g = realloc(*p, (size_t)(count ? 2 * count : 1) * elem);
    if (!g) return 0;
    *p = g;
    return 1;
}

/* ---------------------------------------------------------------- attributes */

/* The value of `attr` for `node` (of default kind `kind`, class `cls`): its
 * own, else from its class and the classes above (kind -1: no defaults).
 * *where is the element the value was written on. */
char *mjcf_get(const mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, xmlNodePtr *where)
{
    char *v = xi_attr(node, attr);
    if (v || kind < 0) {
        *where = node;
        return v;
    }
    int actuator = kind >= K_MOTOR && kind <= K_GENERAL;
    for (int c = cls; c >= 0; c = m->classes[c].parent) {
        for (int k = -1; k <= (actuator ? K_GENERAL : -1); ++k) { /* own kind first, then the other actuators' */
            int kk = k < 0 ? kind : k;
            if (k >= 0 && (k < K_MOTOR || k == kind)) continue;
            xmlNodePtr d = m->classes[c].node[kk];
            if (d && (v = xi_attr(d, attr))) {
                *where = d;
                return v;
            }
        }
    }
    return NULL;
}

/* n numbers (n < 0: 1 to -n, count to *got); *found 0 leaves out untouched. */
int mjcf_get_nums(mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, double *out, int n, int *got)
{
    xmlNodePtr where;
    char *v = mjcf_get(m, node, kind, cls, attr, &where);
    if (got) *got = 0;
    if (!v) return 1;
    int ok = xi_numbers(m->x, where, attr, v, out, n, got);
    if (ok && got && n > 0) *got = n;
    xmlFree(v);
    return ok;
}

/* A keyword among `names` (index to *out), or default when absent. */
int mjcf_get_word(mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, const char *const *names, int count,
                    int *out)
{
    xmlNodePtr where;
    char *v = mjcf_get(m, node, kind, cls, attr, &where);
    if (!v) return 1;
    for (int i = 0; i < count; ++i)
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            xmlFree(v);
            return 1;
        }
    char list[256] = "";
    for (int i = 0; i < count; ++i) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    xi_fail(m->x, where, attr, "unknown value \"%s\"; expected one of %s", v, list);
    xmlFree(v);
    return 0;
}

char *mjcf_dup_or(const char *s, const char *fallback)
{
    return strdup(s ? s : fallback);
}

/* Warn about attributes of `node` not in `known` (names separated by spaces). */
void mjcf_check_attrs(mjcf *m, xmlNodePtr node, const char *known)
{
    for (xmlAttrPtr a = node->properties; a; a = a->next) {
        const char *n = (const char *)a->name;
        size_t len = strlen(n);
        int hit = 0;
        for (const char *p = known; (p = strstr(p, n)) != NULL; p += len)
            if ((p == known || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) { hit = 1; break; }
        if (!hit) xi_warn(m->x, (const char *)node->name, "attribute \"%s\" ignored (not supported)", n);
    }
}

/* ---------------------------------------------------------------- frames */

static void euler_quat(const mjcf *m, const double e[3], double out[4])
{
    fq_identity(out);
    for (int i = 0; i < 3; ++i) {
        char c = m->eulerseq[i];
        double axis[3] = {0, 0, 0}, r[4];
        axis[(c | 0x20) - 'x'] = 1.0;
        fq_axis_angle(axis, e[i], r);
        if (c >= 'a') fq_mul(out, r, out); /* lower case: axes that turn with the frame */
        else fq_mul(r, out, out);          /* upper case: fixed axes */
    }
}

/* pos and orientation of an element (one of quat, axisangle, euler, xyaxes, zaxis). */
int mjcf_read_frame(mjcf *m, xmlNodePtr node, int kind, int cls, fr_pose *out)
{
    static const char *const keys[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
    static const int sizes[] = {4, 4, 3, 6, 3};
    memset(out->pos, 0, sizeof out->pos);
    fq_identity(out->quat);
    if (!mjcf_get_nums(m, node, kind, cls, "pos", out->pos, 3, NULL)) return 0;
    int given = -1;
    double v[6];
    for (int i = 0; i < 5; ++i) {
        int got = 0;
        double t[6];
        if (!mjcf_get_nums(m, node, kind, cls, keys[i], t, sizes[i], &got)) return 0;
        if (!got) continue;
        if (given >= 0)
            return xi_fail(m->x, node, keys[i], "give at most one of quat, axisangle, euler, xyaxes, zaxis (also %s)",
                           keys[given]);
        given = i;
        memcpy(v, t, sizeof t);
    }
    double unit = m->angle_deg ? M_PI / 180.0 : 1.0;
    switch (given) {
    case 0: out->quat[0] = v[1]; out->quat[1] = v[2]; out->quat[2] = v[3]; out->quat[3] = v[0]; break;
    case 1:
        if (v[0] == 0 && v[1] == 0 && v[2] == 0) return xi_fail(m->x, node, "axisangle", "the axis is zero");
        fq_axis_angle(v, v[3] * unit, out->quat);
        break;
    case 2: {
        double e[3] = {v[0] * unit, v[1] * unit, v[2] * unit};
        euler_quat(m, e, out->quat);
        break;
    }
    case 3: {
        double *xa = v, *ya = v + 3, r[3][3];
        double nx = sqrt(xa[0] * xa[0] + xa[1] * xa[1] + xa[2] * xa[2]);
        if (nx == 0) return xi_fail(m->x, node, "xyaxes", "the x axis is zero");
        for (int k = 0; k < 3; ++k) xa[k] /= nx;
        double d = xa[0] * ya[0] + xa[1] * ya[1] + xa[2] * ya[2];
        for (int k = 0; k < 3; ++k) ya[k] -= d * xa[k];
        double ny = sqrt(ya[0] * ya[0] + ya[1] * ya[1] + ya[2] * ya[2]);
        if (ny == 0) return xi_fail(m->x, node, "xyaxes", "the y axis is parallel to the x axis");
        for (int k = 0; k < 3; ++k) ya[k] /= ny;
        double za[3] = {xa[1] * ya[2] - xa[2] * ya[1], xa[2] * ya[0] - xa[0] * ya[2], xa[0] * ya[1] - xa[1] * ya[0]};
        for (int k = 0; k < 3; ++k) { r[k][0] = xa[k]; r[k][1] = ya[k]; r[k][2] = za[k]; }
        fq_from_matrix(r, out->quat);
        break;
    }
    case 4: {
        double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), z[3] = {0, 0, 1};
        if (n == 0) return xi_fail(m->x, node, "zaxis", "the axis is zero");
        for (int k = 0; k < 3; ++k) v[k] /= n;
        fq_between(z, v, out->quat);
        break;
    }
    default: break;
    }
    fq_normalize(out->quat);
    return 1;
}

int mjcf_find_class(const mjcf *m, const char *name)
{
    for (int i = 0; i < m->class_count; ++i)
        if (strcmp(m->classes[i].name, name) == 0) return i;
    return -1;
}

/* The class of an element: its own `class`, else the inherited childclass. */
int mjcf_element_class(mjcf *m, xmlNodePtr node, int inherited, int *out)
{
    char *name = xi_attr(node, "class");
    if (!name) { *out = inherited; return 1; }
    int c = mjcf_find_class(m, name);
    if (c < 0) xi_fail(m->x, node, "class", "unknown class \"%s\"", name);
    xmlFree(name);
    *out = c;
    return c >= 0;
}

/* Coordinates and dofs of an MJCF joint type in qpos / qvel. */
int mjcf_nq_of(int type) { return type == J_FREE ? 7 : type == J_BALL ? 4 : 1; }
int mjcf_nv_of(int type) { return type == J_FREE ? 6 : type == J_BALL ? 3 : 1; }
