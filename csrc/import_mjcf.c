/* import_mjcf.c - MuJoCo's MJCF read into a torpor scene (docs/import.md).
 *
 * The model is read into bodies, joints and actuators of its own (MuJoCo's
 * conventions: body poses relative to the parent, radii and half sizes,
 * capsules along z, quaternions w x y z, angles in degrees by default), then
 * written as a torpor scene (csrc/mjcf_scene.c): link poses in the world frame at
 * q = 0, full extents, capsules along x, quaternions x y z w. A body with
 * several joints becomes a chain of massless placeholder links, one per joint,
 * since a torpor link has one joint. This file reads the top level in order
 * and frees the model; the parts are the mjcf_*.c files (csrc/mjcf_model.h).
 * MuJoCo's reference: its XML reference (mujoco.readthedocs.io, "XML Reference"). */
#define _DEFAULT_SOURCE /* strdup under -std=c11 */
#include "import_mjcf.h"

#include "mjcf_model.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- top level */

static int read_top(mjcf *m, json_t *scene)
{
    /* compiler and defaults first: they shape everything else */
    for (int i = 0; i < m->top.count; ++i) {
        xmlNodePtr c = m->top.items[i];
        if (xi_is(c, "compiler") && !mjcf_read_compiler(m, c)) return 0;
    }
    for (int i = 0; i < m->top.count; ++i) {
        xmlNodePtr c = m->top.items[i];
        if (xi_is(c, "default") && !mjcf_read_default(m, c, -1)) return 0;
        if (xi_is(c, "option") && !mjcf_read_option(m, c, scene)) return 0;
    }
    for (int i = 0; i < m->top.count; ++i)
        if (xi_is(m->top.items[i], "asset") && !mjcf_read_meshes(m, m->top.items[i])) return 0;
    fr_pose origin;
    memset(&origin, 0, sizeof origin);
    fq_identity(origin.quat);
    int worldbodies = 0;
    for (int i = 0; i < m->top.count; ++i) {
        xmlNodePtr c = m->top.items[i];
        if (!xi_is(c, "worldbody")) continue;
        worldbodies++;
        xi_list kids = {0};
        int ok = xi_children(m->x, c, "include", m->dir, &kids);
        for (int k = 0; ok && k < kids.count; ++k) {
            xmlNodePtr e = kids.items[k];
            int cls;
            if (xi_is(e, "body")) ok = mjcf_walk_body(m, e, -1, &origin, 0);
            else if (xi_is(e, "geom")) ok = mjcf_element_class(m, e, 0, &cls) && mjcf_read_geom(m, e, cls, -1, &origin);
            else if (xi_is(e, "site")) ok = mjcf_element_class(m, e, 0, &cls) && mjcf_read_site(m, e, cls, -1);
            else if (xi_is(e, "camera") || xi_is(e, "light"))
                xi_warn(m->x, (const char *)e->name, "ignored (torpor has no %ss)", (const char *)e->name);
            else ok = xi_fail(m->x, e, NULL, "element not supported in <worldbody>");
        }
        xi_list_free(&kids);
        if (!ok) return 0;
    }
    mjcf_finish_masses(m);
    mjcf_mark_static(m);
    for (int i = 0; i < m->top.count; ++i) {
        xmlNodePtr c = m->top.items[i];
        const char *n = (const char *)c->name;
        if (xi_is(c, "compiler") || xi_is(c, "default") || xi_is(c, "option") || xi_is(c, "worldbody") ||
            xi_is(c, "size"))
            continue;
        if (xi_is(c, "actuator")) { if (!mjcf_read_actuators(m, c)) return 0; }
        else if (xi_is(c, "contact")) { if (!mjcf_read_contact(m, c)) return 0; }
        else if (xi_is(c, "keyframe")) { if (!mjcf_read_keyframe(m, c)) return 0; }
        else if (xi_is(c, "asset")) {
            for (xmlNodePtr a = c->children; a; a = a->next)
                if (a->type == XML_ELEMENT_NODE && !xi_is(a, "mesh"))
                    xi_warn(m->x, (const char *)a->name, "ignored (visual only)");
        } else if (xi_is(c, "tendon")) {
            if (!mjcf_read_tendons(m, c)) return 0;
        }
        else if (xi_is(c, "sensor") || xi_is(c, "visual") || xi_is(c, "statistic") || xi_is(c, "custom"))
            xi_warn(m->x, n, "ignored (torpor has no %s)", n);
        else
            return xi_fail(m->x, c, NULL, "element not supported: it would change the model's dynamics");
    }
    if (worldbodies == 0) return xi_fail(m->x, m->root, NULL, "no <worldbody>");
    return mjcf_build_scene(m, scene) && mjcf_build_actuators(m, scene) && mjcf_build_sites(m, scene) && mjcf_build_keyframes(m, scene);
}

static void mjcf_free(mjcf *m)
{
    for (int i = 0; i < m->class_count; ++i) free(m->classes[i].name);
    for (int b = 0; b < m->body_count; ++b) {
        free(m->bodies[b].name);
        json_decref(m->bodies[b].shapes);
    }
    for (int i = 0; i < m->joint_count; ++i) free(m->joints[i].name);
    for (int i = 0; i < m->act_count; ++i) free(m->acts[i].name);
    for (int i = 0; i < m->site_count; ++i) free(m->sites[i].name);
    free(m->sites);
    for (int i = 0; i < m->key_count; ++i) {
        free(m->keys[i].name);
        free(m->keys[i].q);
        free(m->keys[i].qd);
        free(m->keys[i].ctrl);
    }
    free(m->keys);
    for (int i = 0; i < m->mesh_count; ++i) {
        free(m->meshes[i].name);
        free(m->meshes[i].path);
    }
    free(m->meshes);
    free(m->classes);
    free(m->bodies);
    free(m->joints);
    free(m->acts);
    free(m->dir);
    free(m->meshdir);
    json_decref(m->statics);
    json_decref(m->excludes);
    xi_list_free(&m->top);
}

int tp_import_mjcf(xi *x, const char *path, xmlNodePtr root)
{
    mjcf m;
    memset(&m, 0, sizeof m);
    m.x = x;
    m.root = root;
    m.angle_deg = 1;
    m.autolimits = 1;
    m.inertia_from_geom = 2;
    memcpy(m.eulerseq, "xyz", 4);
    m.dir = xi_dirname(path);
    m.classes = calloc(1, sizeof *m.classes);
    m.statics = json_array();
    m.excludes = json_array();
    int ok = m.dir && m.classes && m.statics && m.excludes;
    if (ok) {
        m.class_count = 1;
        m.classes[0].name = strdup("main");
        m.classes[0].parent = -1;
        ok = m.classes[0].name != NULL;
    }
    if (!ok) {
        mjcf_free(&m);
        return xi_oom(x);
    }
    char *model = xi_attr(root, "model");
    json_object_set_new(x->scene, "name", json_string(model ? model : "mjcf"));
    xmlFree(model);
    ok = xi_children(x, root, "include", m.dir, &m.top) && read_top(&m, x->scene);
    mjcf_free(&m);
    return ok;
}
