/* mjcf_bodies.c - MJCF's body tree: bodies, their joints, <inertial> and
 * <site>s, then each body's mass properties and which bodies are static. */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "mjcf_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int read_inertial(mjcf *m, xmlNodePtr node, mj_body *body)
{
    mjcf_check_attrs(m, node, "pos quat axisangle euler xyaxes zaxis mass diaginertia fullinertia");
    fr_pose f;
    if (!mjcf_read_frame(m, node, -1, 0, &f)) return 0;
    double mass[1], diag[3], full[6];
    int got_m = 0, got_d = 0, got_f = 0;
    if (!mjcf_get_nums(m, node, -1, 0, "mass", mass, 1, &got_m) || !mjcf_get_nums(m, node, -1, 0, "diaginertia", diag, 3, &got_d) ||
        !mjcf_get_nums(m, node, -1, 0, "fullinertia", full, 6, &got_f))
        return 0;
    if (!got_m) return xi_fail(m->x, node, NULL, "needs \"mass\"");
    if (mass[0] < 0) return xi_fail(m->x, node, "mass", "must be >= 0, got %g", mass[0]);
    if (got_d == got_f) return xi_fail(m->x, node, NULL, "give one of diaginertia and fullinertia");
    body->has_inertial = 1;
    double check[6] = {got_d ? diag[0] : full[0], got_d ? diag[1] : full[1], got_d ? diag[2] : full[2],
                       got_d ? 0 : full[3], got_d ? 0 : full[4], got_d ? 0 : full[5]};
    char why[200];
    if (mass[0] > 0 && fm_inertia_impossible(check, why, sizeof why))
        return xi_fail(m->x, node, got_d ? "diaginertia" : "fullinertia", "%s", why);
    if (got_d) {
        fm_add(&body->inertial, mass[0], f.pos, f.quat, diag);
    } else { /* fullinertia: ixx iyy izz ixy ixz iyz, in the inertial frame */
        double w[6];
        fm_rotate_tensor(f.quat, full, w);
        fm_add_full(&body->inertial, mass[0], f.pos, w);
    }
    return 1;
}

static int add_joint(mjcf *m, mj_joint *j)
{
    if (!mjcf_grow_array((void **)&m->joints, m->joint_count, sizeof *m->joints)) return xi_oom(m->x);
    m->joints[m->joint_count++] = *j;
    return 1;
}

static int read_joint(mjcf *m, xmlNodePtr node, int cls, int b, int free_joint)
{
    mj_joint j;
    memset(&j, 0, sizeof j);
    j.node = node;
    j.body = b;
    j.axis[2] = 1.0;
    j.type = free_joint ? J_FREE : J_HINGE;
    char *name = xi_attr(node, "name");
    char auto_name[64];
    snprintf(auto_name, sizeof auto_name, "%s_joint%d", m->bodies[b].name, m->bodies[b].joint_count);
    j.name = mjcf_dup_or(name, auto_name);
    xmlFree(name);
    if (!j.name) return xi_oom(m->x);
    if (free_joint) {
        mjcf_check_attrs(m, node, "name group align");
        return add_joint(m, &j);
    }
    mjcf_check_attrs(m, node, "name class type pos axis range limited damping armature frictionloss stiffness springref ref "
                         "group user margin solreflimit solimplimit solreffriction solimpfriction springdamper "
                         "actuatorfrclimited actuatorfrcrange");
    if (!mjcf_get_word(m, node, K_JOINT, cls, "type", mjcf_joint_types, 4, &j.type)) goto fail;
    double range[2];
    int got_range = 0, limited = 2;
    if (!mjcf_get_nums(m, node, K_JOINT, cls, "pos", j.pos, 3, NULL) || !mjcf_get_nums(m, node, K_JOINT, cls, "axis", j.axis, 3, NULL) ||
        !mjcf_get_nums(m, node, K_JOINT, cls, "range", range, 2, &got_range) ||
        !mjcf_get_word(m, node, K_JOINT, cls, "limited", mjcf_bool_words, 3, &limited))
        goto fail;
    const char *scalars[] = {"damping", "armature", "frictionloss", "stiffness", "springref", "ref"};
    double *dest[] = {&j.damping, &j.armature, &j.friction, &j.stiffness, &j.springref, &j.ref};
    for (int i = 0; i < 6; ++i) {
        if (!mjcf_get_nums(m, node, K_JOINT, cls, scalars[i], dest[i], 1, NULL)) goto fail;
        if (i < 4 && *dest[i] < 0) {
            xi_fail(m->x, node, scalars[i], "must be >= 0, got %g", *dest[i]);
            goto fail;
        }
    }
    double n = sqrt(j.axis[0] * j.axis[0] + j.axis[1] * j.axis[1] + j.axis[2] * j.axis[2]);
    if ((j.type == J_HINGE || j.type == J_SLIDE) && n == 0) {
        xi_fail(m->x, node, "axis", "must not be zero");
        goto fail;
    }
    if (n > 0)
        for (int k = 0; k < 3; ++k) j.axis[k] /= n;
    j.limited = limited == 1 || (limited == 2 && m->autolimits && got_range);
    if (limited == 2 && !m->autolimits && got_range)
        xi_warn(m->x, "joint", "a range without limited=\"true\" is not a limit (compiler autolimits=\"false\")");
    double unit = m->angle_deg && (j.type == J_HINGE || j.type == J_BALL) ? M_PI / 180.0 : 1.0;
    if (j.limited) {
        if (!got_range) {
            xi_fail(m->x, node, "limited", "a limited joint needs a range");
            goto fail;
        }
        if (range[0] > range[1]) {
            xi_fail(m->x, node, "range", "lower must be <= upper, got lower %g > upper %g", range[0], range[1]);
            goto fail;
        }
        j.range[0] = range[0] * unit;
        j.range[1] = range[1] * unit;
    }
    if (j.type == J_HINGE) {
        j.ref *= unit;
        j.springref *= unit;
    }
    if (j.type == J_FREE && j.limited) j.limited = 0;
    return add_joint(m, &j);
fail:
    free(j.name);
    return 0;
}

/* ---------------------------------------------------------------- bodies */

/* <site> on body b (-1: the worldbody): kept if named (a site is found by its
 * name); type, size, fromto and the visual attributes are not read. */
int mjcf_read_site(mjcf *m, xmlNodePtr node, int cls, int b)
{
    fr_pose local;
    if (!mjcf_read_frame(m, node, K_SITE, cls, &local)) return 0;
    char *name = xi_attr(node, "name");
    if (!name) return 1;
    for (int i = 0; i < m->site_count; ++i)
        if (strcmp(m->sites[i].name, name) == 0) {
            xi_fail(m->x, node, "name", "site \"%s\" is defined twice", name);
            xmlFree(name);
            return 0;
        }
    if (!mjcf_grow_array((void **)&m->sites, m->site_count, sizeof *m->sites)) { xmlFree(name); return xi_oom(m->x); }
    mj_site *site = &m->sites[m->site_count];
    site->name = strdup(name);
    xmlFree(name);
    if (!site->name) return xi_oom(m->x);
    site->body = b;
    site->local = local;
    m->site_count++;
    return 1;
}

static int read_body_children(mjcf *m, xmlNodePtr node, int b, const fr_pose *world, int childclass)
{
    xi_list kids = {0};
    int ok = xi_children(m->x, node, "include", m->dir, &kids);
    int inertial_seen = 0;
    for (int i = 0; ok && i < kids.count; ++i) { /* joints and inertial first: geoms and bodies need them */
        xmlNodePtr c = kids.items[i];
        int cls;
        if (xi_is(c, "joint") || xi_is(c, "freejoint")) {
            ok = mjcf_element_class(m, c, childclass, &cls) && read_joint(m, c, cls, b, xi_is(c, "freejoint"));
            if (ok) m->bodies[b].joint_count++;
        } else if (xi_is(c, "inertial")) {
            if (inertial_seen++) ok = xi_fail(m->x, c, NULL, "a body has at most one <inertial>");
            else ok = read_inertial(m, c, &m->bodies[b]);
        }
    }
    for (int i = 0; ok && i < kids.count; ++i) {
        xmlNodePtr c = kids.items[i];
        int cls;
        if (xi_is(c, "geom")) ok = mjcf_element_class(m, c, childclass, &cls) && mjcf_read_geom(m, c, cls, b, world);
        else if (xi_is(c, "body")) ok = mjcf_walk_body(m, c, b, world, childclass);
        else if (xi_is(c, "site")) ok = mjcf_element_class(m, c, childclass, &cls) && mjcf_read_site(m, c, cls, b);
        else if (xi_is(c, "camera") || xi_is(c, "light"))
            xi_warn(m->x, (const char *)c->name, "ignored (torpor has no %ss)", (const char *)c->name);
        else if (!xi_is(c, "joint") && !xi_is(c, "freejoint") && !xi_is(c, "inertial"))
            ok = xi_fail(m->x, c, NULL, "element not supported in a body");
    }
    xi_list_free(&kids);
    return ok;
}

int mjcf_walk_body(mjcf *m, xmlNodePtr node, int parent, const fr_pose *parent_world, int childclass)
{
    mjcf_check_attrs(m, node, "name childclass pos quat axisangle euler xyaxes zaxis user gravcomp");
    char *cc = xi_attr(node, "childclass");
    if (cc) {
        childclass = mjcf_find_class(m, cc);
        if (childclass < 0) xi_fail(m->x, node, "childclass", "unknown class \"%s\"", cc);
        xmlFree(cc);
        if (childclass < 0) return 0;
    }
    if (!mjcf_grow_array((void **)&m->bodies, m->body_count, sizeof *m->bodies)) return xi_oom(m->x);
    int b = m->body_count++;
    mj_body *body = &m->bodies[b];
    memset(body, 0, sizeof *body);
    body->node = node;
    body->parent = parent;
    body->joint_first = m->joint_count;
    char *name = xi_attr(node, "name");
    char auto_name[48];
    snprintf(auto_name, sizeof auto_name, "body%d", b + 1); /* MuJoCo's body number (world is 0) */
    body->name = mjcf_dup_or(name, auto_name);
    xmlFree(name);
    body->shapes = json_array();
    if (!body->name || !body->shapes) return xi_oom(m->x);
    fr_pose local;
    if (!mjcf_read_frame(m, node, -1, 0, &local)) return 0;
    fr_compose(parent_world, &local, &body->world);
    fr_pose world = body->world;
    return read_body_children(m, node, b, &world, childclass);
}

/* Mass properties of each body from its inertial or its geoms (compiler
 * inertiafromgeom), then settotalmass. */
int mjcf_finish_masses(mjcf *m)
{
    double total = 0.0;
    for (int b = 0; b < m->body_count; ++b) {
        mj_body *body = &m->bodies[b];
        int from_geoms = m->inertia_from_geom == 1 || (m->inertia_from_geom == 2 && !body->has_inertial);
        const fm_sum *s = from_geoms ? &body->geoms : &body->inertial;
        body->mass = s->mass;
        if (!fm_result(s, body->com, body->inertia)) memset(body->com, 0, sizeof body->com);
        total += body->mass;
    }
    if (m->settotalmass > 0.0 && total > 0.0) {
        double scale = m->settotalmass / total;
        for (int b = 0; b < m->body_count; ++b) {
            m->bodies[b].mass *= scale;
            for (int k = 0; k < 6; ++k) m->bodies[b].inertia[k] *= scale;
        }
    }
    return 1;
}

/* A body welded to the world (no joint, parent the world or welded to it) is static. */
void mjcf_mark_static(mjcf *m)
{
    for (int b = 0; b < m->body_count; ++b) {
        mj_body *body = &m->bodies[b];
        body->is_static = body->joint_count == 0 && (body->parent < 0 || m->bodies[body->parent].is_static);
    }
}
