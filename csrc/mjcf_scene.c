/* mjcf_scene.c - the model as read, written as a torpor scene (JSON): link
 * poses in the world frame at q = 0, full extents, capsules along x,
 * quaternions x y z w; a body with several joints as a chain of massless
 * placeholder links, one per joint; then the sites, keyframes and actuators. */
#include "mjcf_model.h"

#include <stdlib.h>
#include <string.h>

static json_t *num_array(const double *v, int n) { return xi_vec(v, n); }

static json_t *body_json(const char *name, const fr_pose *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "pos", num_array(p->pos, 3));
    json_object_set_new(o, "quat", num_array(p->quat, 4));
    return o;
}

/* A body with no colliding geom still needs a shape: a small ball that touches nothing. */
static void set_collision(json_t *o, json_t *shapes, unsigned contype, unsigned conaffinity, int contact_off)
{
    if (json_array_size(shapes) == 0) {
        double s[3] = {1e-3, 1e-3, 1e-3};
        json_t *ball = json_object();
        json_object_set_new(ball, "shape", json_string("ball"));
        json_object_set_new(ball, "size", num_array(s, 3));
        json_array_append_new(shapes, ball);
        contype = conaffinity = 0;
    }
    json_object_set(o, "shapes", shapes);
    if (contact_off) contype = 0;
    json_object_set_new(o, "contype", json_integer(contype));
    json_object_set_new(o, "conaffinity", json_integer(conaffinity));
}

static void set_mass(json_t *o, double mass, const double com[3], const double inertia[6])
{
    json_object_set_new(o, "mass", json_real(mass));
    json_object_set_new(o, "com", num_array(com, 3));
    json_object_set_new(o, "inertia", num_array(inertia, 6));
}

static json_t *joint_json(const mj_joint *j, const char *name, const char *parent, const char *child)
{
    static const char *const torpor_types[] = {"free", "ball", "prismatic", "revolute"};
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "type", json_string(torpor_types[j->type]));
    json_object_set_new(o, "parent", json_string(parent));
    json_object_set_new(o, "child", json_string(child));
    if (j->type == J_FREE) return o;
    json_object_set_new(o, "anchor", num_array(j->pos, 3));
    if (j->damping > 0) json_object_set_new(o, "damping", json_real(j->damping));
    if (j->armature > 0) json_object_set_new(o, "armature", json_real(j->armature));
    if (j->friction > 0) json_object_set_new(o, "friction", json_real(j->friction));
    if (j->type == J_BALL) return o;
    json_object_set_new(o, "axis", num_array(j->axis, 3));
    if (j->limited) {
        double lim[2] = {j->range[0] - j->ref, j->range[1] - j->ref};
        json_object_set_new(o, "limits", num_array(lim, 2));
    }
    if (j->stiffness > 0) {
        json_object_set_new(o, "stiffness", json_real(j->stiffness));
        json_object_set_new(o, "rest", json_real(j->springref - j->ref));
    }
    if (j->ref != 0) json_object_set_new(o, "ref", json_real(j->ref));
    return o;
}

static int check_joint_fits(mjcf *m, const mj_joint *j, int parent_static)
{
    if (j->type == J_FREE && !parent_static)
        return xi_fail(m->x, j->node, NULL, "a free joint is allowed only in a body of the world");
    if (j->type == J_FREE && (j->damping > 0 || j->armature > 0 || j->friction > 0))
        xi_warn(m->x, "joint", "\"%s\": damping, armature and frictionloss of a free joint ignored (torpor's free "
                               "joints have none)", j->name);
    if (j->type == J_BALL && (j->limited || j->stiffness > 0))
        xi_warn(m->x, "joint", "\"%s\": range and stiffness of a ball joint ignored (torpor's ball joints have none)",
                j->name);
    return 1;
}

int mjcf_build_scene(mjcf *m, json_t *scene)
{
    json_t *bodies = json_array(), *joints = json_array();
    json_object_set_new(scene, "bodies", bodies);
    json_object_set_new(scene, "joints", joints);
    for (size_t i = 0; i < json_array_size(m->statics); ++i) {
        json_t *s = json_array_get(m->statics, i);
        if (m->contact_off) json_object_set_new(s, "contype", json_integer(0));
        json_array_append(bodies, s);
    }
    for (int b = 0; b < m->body_count; ++b) {
        mj_body *body = &m->bodies[b];
        int parent_static = body->parent < 0 || m->bodies[body->parent].is_static;
        const char *parent = parent_static ? "world" : m->bodies[body->parent].name;
        if (body->is_static) {
            if (json_array_size(body->shapes) == 0) continue; /* nothing to collide with: leave it out */
            json_t *o = body_json(body->name, &body->world);
            json_object_set_new(o, "static", json_true());
            set_collision(o, body->shapes, body->contype, body->conaffinity, m->contact_off);
            json_object_set_new(o, "friction", json_real(body->friction));
            json_array_append_new(bodies, o);
            body->emitted = 1;
            continue;
        }
        /* placeholder links for all joints but the last */
        const char *prev = parent;
        char *prev_owned = NULL;
        for (int k = 0; k < body->joint_count; ++k) {
            const mj_joint *j = &m->joints[body->joint_first + k];
            if (!check_joint_fits(m, j, parent_static && k == 0)) { free(prev_owned); return 0; }
            char *child = NULL;
            if (k + 1 < body->joint_count) {
                size_t n = strlen(body->name) + strlen(j->name) + 2;
                child = malloc(n);
                if (!child) { free(prev_owned); return xi_oom(m->x); }
                snprintf(child, n, "%s:%s", body->name, j->name);
                json_t *o = body_json(child, &body->world);
                double com[3] = {0, 0, 0}, in[6] = {MJ_PLACEHOLDER_INERTIA, MJ_PLACEHOLDER_INERTIA, MJ_PLACEHOLDER_INERTIA, 0, 0, 0};
                set_collision(o, json_array(), 0, 0, 1);
                json_decref(json_object_get(o, "shapes")); /* set_collision kept a reference of its own */
                set_mass(o, MJ_PLACEHOLDER_MASS, com, in);
                json_array_append_new(bodies, o);
            }
            json_array_append_new(joints, joint_json(j, j->name, prev, child ? child : body->name));
            free(prev_owned);
            prev_owned = child;
            prev = child;
        }
        free(prev_owned);
        if (body->joint_count == 0) { /* welded to a moving parent */
            mj_joint weld;
            memset(&weld, 0, sizeof weld);
            size_t n = strlen(body->name) + 8;
            char *wname = malloc(n);
            if (!wname) return xi_oom(m->x);
            snprintf(wname, n, "%s:weld", body->name);
            json_t *o = json_object();
            json_object_set_new(o, "name", json_string(wname));
            json_object_set_new(o, "type", json_string("fixed"));
            json_object_set_new(o, "parent", json_string(parent));
            json_object_set_new(o, "child", json_string(body->name));
            json_array_append_new(joints, o);
            free(wname);
        }
        json_t *o = body_json(body->name, &body->world);
        set_collision(o, body->shapes, body->contype, body->conaffinity, m->contact_off);
        if (body->friction > 0) json_object_set_new(o, "friction", json_real(body->friction));
        if (!(body->mass > 0.0)) {
            xi_warn(m->x, "body", "\"%s\" has no mass; torpor gives it %g kg (a link must have mass)", body->name,
                    MJ_PLACEHOLDER_MASS);
            double com[3] = {0, 0, 0}, in[6] = {MJ_PLACEHOLDER_INERTIA, MJ_PLACEHOLDER_INERTIA, MJ_PLACEHOLDER_INERTIA, 0, 0, 0};
            set_mass(o, MJ_PLACEHOLDER_MASS, com, in);
        } else if (body->mass < TP_MIN_MASS) { /* below torpor's bound: scaled up to it, the shape of the inertia kept */
            double scale = TP_MIN_MASS / body->mass, in[6];
            for (int k = 0; k < 6; ++k) in[k] = body->inertia[k] * scale;
            xi_warn(m->x, "body", "\"%s\": mass %g kg raised to torpor's least mass %g kg (docs/scene-format.md, "
                                  "\"Bounds\")", body->name, body->mass, (double)TP_MIN_MASS);
            set_mass(o, TP_MIN_MASS, body->com, in);
        } else {
            set_mass(o, body->mass, body->com, body->inertia);
        }
        json_array_append_new(bodies, o);
        body->emitted = 1;
        /* MuJoCo never lets a body touch its parent; with placeholder links between them they are not adjacent */
        if (!parent_static && body->joint_count > 1 && !m->filterparent_off) {
            json_t *pair = json_array();
            json_array_append_new(pair, json_string(body->name));
            json_array_append_new(pair, json_string(parent));
            json_array_append_new(m->excludes, pair);
        }
    }
    if (json_array_size(m->excludes)) json_object_set(scene, "exclude", m->excludes);
    if (json_array_size(joints) == 0) json_object_del(scene, "joints");
    return 1;
}

/* The sites, on the torpor body of their MJCF body (whose frame is the
 * same), or on the world where that body is the world or a static body left
 * out (no shapes). */
int mjcf_build_sites(mjcf *m, json_t *scene)
{
    if (m->site_count == 0) return 1;
    json_t *list = json_array();
    json_object_set_new(scene, "sites", list);
    for (int i = 0; i < m->site_count; ++i) {
        const mj_site *site = &m->sites[i];
        const mj_body *body = site->body >= 0 ? &m->bodies[site->body] : NULL;
        fr_pose pose = site->local;
        if (body && !body->emitted) fr_compose(&body->world, &site->local, &pose);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(site->name));
        json_object_set_new(o, "body", json_string(body && body->emitted ? body->name : "world"));
        json_object_set_new(o, "pos", num_array(pose.pos, 3));
        json_object_set_new(o, "quat", num_array(pose.quat, 4));
        json_array_append_new(list, o);
    }
    return 1;
}

/* The keys as the scene's keyframes (q and qd always full: a keyframe without
 * them would take the initial state); the first is where every reset starts
 * (randomize.keyframe), as MJCF files with a keyframe are meant to start. */
int mjcf_build_keyframes(mjcf *m, json_t *scene)
{
    if (m->key_count == 0) return 1;
    int nq = 0, nv = 0;
    for (int i = 0; i < m->joint_count; ++i) nq += mjcf_nq_of(m->joints[i].type), nv += mjcf_nv_of(m->joints[i].type);
    json_t *list = json_array();
    json_object_set_new(scene, "keyframes", list);
    for (int i = 0; i < m->key_count; ++i) {
        const mj_key *k = &m->keys[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(k->name));
        json_object_set_new(o, "q", num_array(k->q, nq));
        json_object_set_new(o, "qd", num_array(k->qd, nv));
        if (k->has_ctrl) json_object_set_new(o, "ctrl", num_array(k->ctrl, m->act_count));
        json_array_append_new(list, o);
    }
    json_t *randomize = json_object();
    json_object_set_new(randomize, "keyframe", json_string(m->keys[0].name));
    json_object_set_new(scene, "randomize", randomize);
    return 1;
}

/* MuJoCo's actuators as torpor's (the same affine law, docs/scene-format.md "Actuators"). */
int mjcf_build_actuators(mjcf *m, json_t *scene)
{
    if (m->act_count == 0) return 1;
    static const char *const types[] = {"motor", "position", "velocity", "general"};
    json_t *list = json_array();
    json_object_set_new(scene, "actuators", list);
    for (int i = 0; i < m->act_count; ++i) {
        const mj_actuator *a = &m->acts[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(a->name));
        json_object_set_new(o, "type", json_string(types[a->kind - K_MOTOR]));
        json_object_set_new(o, "joint", json_string(m->joints[a->joint].name));
        if (a->gear == 0) return xi_fail(m->x, a->node, "gear", "must not be 0");
        json_object_set_new(o, "gear", json_real(a->gear));
        if (a->ctrllimited) json_object_set_new(o, "ctrl_range", xi_vec(a->ctrlrange, 2));
        if (a->forcelimited) json_object_set_new(o, "force_range", xi_vec(a->forcerange, 2));
        if (a->kind == K_POSITION) {
            json_object_set_new(o, "kp", json_real(a->gain[0]));
            if (a->bias[2] != 0) json_object_set_new(o, "kv", json_real(-a->bias[2]));
        } else if (a->kind == K_VELOCITY) {
            json_object_set_new(o, "kv", json_real(a->gain[0]));
        } else if (a->kind == K_GENERAL) {
            double gain[3] = {a->gain[0], 0, 0};
            json_object_set_new(o, "gain", xi_vec(gain, 3));
            json_object_set_new(o, "bias", xi_vec(a->bias, 3));
        }
        json_array_append_new(list, o);
    }
    return 1;
}
