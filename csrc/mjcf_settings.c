/* mjcf_settings.c - MJCF's <compiler>, <option> and <default> (docs/import.md). */
#define _DEFAULT_SOURCE /* strdup under -std=c11 */
#include "mjcf_model.h"

#include <stdlib.h>
#include <string.h>

int mjcf_read_compiler(mjcf *m, xmlNodePtr node)
{
    mjcf_check_attrs(m, node, "angle autolimits inertiafromgeom meshdir assetdir texturedir eulerseq coordinate "
                         "settotalmass discardvisual strippath");
    static const char *const angles[] = {"radian", "degree"};
    static const char *const ifg[] = {"false", "true", "auto"};
    if (!mjcf_get_word(m, node, -1, 0, "angle", angles, 2, &m->angle_deg)) return 0;
    int v = m->autolimits;
    if (!mjcf_get_word(m, node, -1, 0, "autolimits", mjcf_bool_words, 2, &v)) return 0;
    m->autolimits = v;
    if (!mjcf_get_word(m, node, -1, 0, "inertiafromgeom", ifg, 3, &m->inertia_from_geom)) return 0;
    static const char *const coords[] = {"local"};
    int c = 0;
    if (!mjcf_get_word(m, node, -1, 0, "coordinate", coords, 1, &c)) return 0;
    double total[1];
    int got = 0;
    if (!mjcf_get_nums(m, node, -1, 0, "settotalmass", total, 1, &got)) return 0;
    if (got) m->settotalmass = total[0];
    char *seq = xi_attr(node, "eulerseq");
    if (seq) {
        int ok = strlen(seq) == 3;
        for (int i = 0; ok && i < 3; ++i) ok = strchr("xyzXYZ", seq[i]) != NULL;
        if (ok) memcpy(m->eulerseq, seq, 4);
        else xi_fail(m->x, node, "eulerseq", "\"%s\": expected three of x, y, z, X, Y, Z", seq);
        xmlFree(seq);
        if (!ok) return 0;
    }
    const char *dirs[] = {"assetdir", "meshdir"};
    for (int i = 0; i < 2; ++i) {
        char *d = xi_attr(node, dirs[i]);
        if (!d) continue;
        free(m->meshdir);
        m->meshdir = xi_join(m->dir, d);
        xmlFree(d);
        if (!m->meshdir) return xi_oom(m->x);
    }
    return 1;
}

int mjcf_read_option(mjcf *m, xmlNodePtr node, json_t *scene)
{
    mjcf_check_attrs(m, node, "timestep gravity integrator density viscosity wind magnetic iterations solver tolerance "
                         "ls_iterations ls_tolerance noslip_iterations cone impratio jacobian o_margin o_solref o_solimp");
    double t[1], g[3];
    int got = 0;
    if (!mjcf_get_nums(m, node, -1, 0, "timestep", t, 1, &got)) return 0;
    if (got) {
        if (!(t[0] > 0.0)) return xi_fail(m->x, node, "timestep", "must be > 0 s, got %g", t[0]);
        json_object_set_new(scene, "dt", json_real(t[0]));
    }
    if (!mjcf_get_nums(m, node, -1, 0, "gravity", g, 3, &got)) return 0;
    if (got) json_object_set_new(scene, "gravity", xi_vec(g, 3));
    char *integ = xi_attr(node, "integrator");
    if (integ) {
        xi_warn(m->x, "option", "integrator \"%s\" noted; torpor steps with its own scheme (docs/import.md)", integ);
        xmlFree(integ);
    }
    const char *fluid[] = {"density", "viscosity"};
    for (int i = 0; i < 2; ++i) {
        double v[1];
        if (!mjcf_get_nums(m, node, -1, 0, fluid[i], v, 1, &got)) return 0;
        if (got && v[0] != 0.0)
            xi_warn(m->x, "option", "%s %g ignored: torpor has no fluid forces", fluid[i], v[0]);
    }
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (!xi_is(c, "flag")) continue;
        for (xmlAttrPtr a = c->properties; a; a = a->next) {
            char *v = xi_attr(c, (const char *)a->name);
            int off = v && strcmp(v, "disable") == 0;
            const char *n = (const char *)a->name;
            if (strcmp(n, "contact") == 0) m->contact_off = off;
            else if (strcmp(n, "gravity") == 0 && off) {
                double zero[3] = {0, 0, 0};
                json_object_set_new(scene, "gravity", xi_vec(zero, 3));
            } else if (strcmp(n, "filterparent") == 0) m->filterparent_off = off;
            else xi_warn(m->x, "flag", "%s=\"%s\" ignored", n, v ? v : "");
            xmlFree(v);
        }
    }
    return 1;
}

int mjcf_read_default(mjcf *m, xmlNodePtr node, int parent)
{
    char *name = xi_attr(node, "class");
    int index;
    if (parent < 0 && (!name || strcmp(name, "main") == 0)) {
        index = 0; /* the top <default> is "main", made at the start */
    } else {
        if (!name) { xmlFree(name); return xi_fail(m->x, node, NULL, "a nested <default> needs a \"class\""); }
        if (mjcf_find_class(m, name) >= 0) {
            xi_fail(m->x, node, "class", "class \"%s\" is defined twice", name);
            xmlFree(name);
            return 0;
        }
        if (!mjcf_grow_array((void **)&m->classes, m->class_count, sizeof *m->classes)) { xmlFree(name); return xi_oom(m->x); }
        index = m->class_count++;
        memset(&m->classes[index], 0, sizeof m->classes[index]);
        m->classes[index].name = strdup(name);
        m->classes[index].parent = parent < 0 ? 0 : parent;
    }
    xmlFree(name);
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (xi_is(c, "default")) {
            if (!mjcf_read_default(m, c, index)) return 0;
            continue;
        }
        int k = 0;
        while (k < K_COUNT && !xi_is(c, mjcf_kind_tags[k])) ++k;
        if (k == K_COUNT) {
            xi_warn(m->x, "default", "defaults of <%s> ignored", (const char *)c->name);
            continue;
        }
        m->classes[index].node[k] = c;
    }
    return 1;
}
