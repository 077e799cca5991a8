/* mjcf_actuators.c - MJCF's <actuator> (joint transmissions), <tendon>
 * (inert ones left out) and <contact> (exclusions). */
#include "mjcf_model.h"

#include <stdlib.h>
#include <string.h>

static int find_joint(const mjcf *m, const char *name)
{
    for (int i = 0; i < m->joint_count; ++i)
        if (strcmp(m->joints[i].name, name) == 0) return i;
    return -1;
}

static int read_actuator(mjcf *m, xmlNodePtr node, int kind)
{
    mjcf_check_attrs(m, node, "name class joint tendon gear ctrllimited ctrlrange forcelimited forcerange kp kv gainprm biasprm "
                         "gaintype biastype dyntype group user");
    int cls;
    if (!mjcf_element_class(m, node, 0, &cls)) return 0;
    mj_actuator a;
    memset(&a, 0, sizeof a);
    a.node = node;
    a.kind = kind;
    a.gear = 1.0;
    xmlNodePtr where;
    char *tendon = mjcf_get(m, node, kind, cls, "tendon", &where);
    int on_tendon = tendon != NULL;
    xmlFree(tendon);
    if (on_tendon) return xi_fail(m->x, where, "tendon", "tendon transmissions are not supported (torpor has no tendons)");
    char *joint = mjcf_get(m, node, kind, cls, "joint", &where);
    if (!joint) return xi_fail(m->x, node, NULL, "only joint transmissions are read: give \"joint\"");
    a.joint = find_joint(m, joint);
    if (a.joint < 0) xi_fail(m->x, where, "joint", "unknown joint \"%s\"", joint);
    xmlFree(joint);
    if (a.joint < 0) return 0;
    if (m->joints[a.joint].type != J_HINGE && m->joints[a.joint].type != J_SLIDE)
        return xi_fail(m->x, node, "joint", "joint \"%s\" is not a hinge or a slide", m->joints[a.joint].name);
    double gear[6] = {1, 0, 0, 0, 0, 0}, kp[1] = {1}, kv[1] = {kind == K_VELOCITY ? 1 : 0};
    int got_c = 0, got_f = 0, cl = 2, fl = 2;
    if (!mjcf_get_nums(m, node, kind, cls, "gear", gear, -6, NULL) ||
        !mjcf_get_nums(m, node, kind, cls, "ctrlrange", a.ctrlrange, 2, &got_c) ||
        !mjcf_get_nums(m, node, kind, cls, "forcerange", a.forcerange, 2, &got_f) ||
        !mjcf_get_word(m, node, kind, cls, "ctrllimited", mjcf_bool_words, 3, &cl) ||
        !mjcf_get_word(m, node, kind, cls, "forcelimited", mjcf_bool_words, 3, &fl) || !mjcf_get_nums(m, node, kind, cls, "kp", kp, 1, NULL) ||
        !mjcf_get_nums(m, node, kind, cls, "kv", kv, 1, NULL))
        return 0;
    a.gear = gear[0];
    a.ctrllimited = cl == 1 || (cl == 2 && m->autolimits && got_c);
    a.forcelimited = fl == 1 || (fl == 2 && m->autolimits && got_f);
    if (a.ctrllimited && a.ctrlrange[0] > a.ctrlrange[1])
        return xi_fail(m->x, node, "ctrlrange", "lower must be <= upper, got %g > %g", a.ctrlrange[0], a.ctrlrange[1]);
    if (a.forcelimited && a.forcerange[0] > a.forcerange[1])
        return xi_fail(m->x, node, "forcerange", "lower must be <= upper, got %g > %g", a.forcerange[0], a.forcerange[1]);
    switch (kind) {
    case K_MOTOR: a.gain[0] = 1; break;
    case K_POSITION: a.gain[0] = kp[0]; a.bias[1] = -kp[0]; a.bias[2] = -kv[0]; break;
    case K_VELOCITY: a.gain[0] = kv[0]; a.bias[2] = -kv[0]; break;
    default: {
        double gp[10] = {1}, bp[10] = {0};
        if (!mjcf_get_nums(m, node, kind, cls, "gainprm", gp, -10, NULL) || !mjcf_get_nums(m, node, kind, cls, "biasprm", bp, -10, NULL))
            return 0;
        static const char *const gtypes[] = {"fixed"}, *const btypes[] = {"none", "affine"}, *const dtypes[] = {"none"};
        int gt = 0, bt = 0, dt = 0;
        if (!mjcf_get_word(m, node, kind, cls, "gaintype", gtypes, 1, &gt) || !mjcf_get_word(m, node, kind, cls, "biastype", btypes, 2, &bt) ||
            !mjcf_get_word(m, node, kind, cls, "dyntype", dtypes, 1, &dt))
            return 0;
        a.gain[0] = gp[0];
        if (bt == 1) memcpy(a.bias, bp, sizeof a.bias);
        break;
    }
    }
    char *name = xi_attr(node, "name");
    char auto_name[48];
    snprintf(auto_name, sizeof auto_name, "actuator%d", m->act_count);
    a.name = mjcf_dup_or(name, auto_name);
    xmlFree(name);
    if (!a.name || !mjcf_grow_array((void **)&m->acts, m->act_count, sizeof *m->acts)) { free(a.name); return xi_oom(m->x); }
    m->acts[m->act_count++] = a;
    return 1;
}

int mjcf_read_actuators(mjcf *m, xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        int kind = K_MOTOR;
        while (kind <= K_GENERAL && !xi_is(c, mjcf_kind_tags[kind])) ++kind;
        if (kind > K_GENERAL)
            return xi_fail(m->x, c, NULL, "actuator type not supported (torpor reads motor, position, velocity, general)");
        if (!read_actuator(m, c, kind)) return 0;
    }
    return 1;
}

/* A <fixed> or <spatial> tendon: torpor has none, so one is read only to be
 * left out, and only when it is inert (no limit, stiffness, damping,
 * frictionloss or armature: then it is a length for sensors and leaves the
 * dynamics as they are, as in Gymnasium's humanoid). An actuator on a tendon
 * is refused where the actuators are read. */
static int read_tendon(mjcf *m, xmlNodePtr node)
{
    mjcf_check_attrs(m, node, "name class group limited range solreflimit solimplimit solreffriction solimpfriction "
                         "frictionloss springlength width material margin stiffness damping armature rgba user "
                         "actuatorfrclimited actuatorfrcrange");
    int cls, limited = 2, got_range = 0;
    double range[2] = {0, 0};
    if (!mjcf_element_class(m, node, 0, &cls) || !mjcf_get_word(m, node, K_TENDON, cls, "limited", mjcf_bool_words, 3, &limited) ||
        !mjcf_get_nums(m, node, K_TENDON, cls, "range", range, 2, &got_range))
        return 0;
    char *name = xi_attr(node, "name");
    char label[160];
    snprintf(label, sizeof label, "%s tendon \"%s\"", (const char *)node->name, name ? name : "(unnamed)");
    xmlFree(name);
    if (limited == 1 || (limited == 2 && m->autolimits && got_range))
        return xi_fail(m->x, node, "range", "%s is limited: torpor has no tendons (only one with no limit, stiffness, "
                       "damping, frictionloss or armature is left out)", label);
    static const char *const effects[] = {"stiffness", "damping", "frictionloss", "armature"};
    for (int i = 0; i < 4; ++i) {
        double v[1] = {0};
        xmlNodePtr where = node;
        char *text = mjcf_get(m, node, K_TENDON, cls, effects[i], &where);
        int ok = !text || xi_numbers(m->x, where, effects[i], text, v, 1, NULL);
        xmlFree(text);
        if (!ok) return 0;
        if (v[0] != 0)
            return xi_fail(m->x, where, effects[i], "%s has %s %g: torpor has no tendons (only one with no limit, "
                           "stiffness, damping, frictionloss or armature is left out)", label, effects[i], v[0]);
    }
    for (xmlNodePtr c = node->children; c; c = c->next) { /* a fixed tendon's joints must exist, as in MuJoCo */
        if (c->type != XML_ELEMENT_NODE || !xi_is(node, "fixed")) continue;
        if (!xi_is(c, "joint")) return xi_fail(m->x, c, NULL, "not allowed in a fixed tendon (give <joint joint coef>)");
        char *j = xi_attr(c, "joint");
        int found = j ? find_joint(m, j) : -1;
        if (!j) xi_fail(m->x, c, NULL, "needs \"joint\"");
        else if (found < 0) xi_fail(m->x, c, "joint", "unknown joint \"%s\"", j);
        xmlFree(j);
        if (found < 0) return 0;
    }
    xi_warn(m->x, "tendon", "%s ignored: it has no limit, stiffness, damping, frictionloss or armature and no "
            "actuator, so it does not change the dynamics", label);
    return 1;
}

int mjcf_read_tendons(mjcf *m, xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!xi_is(c, "fixed") && !xi_is(c, "spatial")) return xi_fail(m->x, c, NULL, "not a tendon (fixed, spatial)");
        if (!read_tendon(m, c)) return 0;
    }
    return 1;
}

static int find_body(const mjcf *m, const char *name)
{
    if (strcmp(name, "world") == 0) return -1;
    for (int b = 0; b < m->body_count; ++b)
        if (strcmp(m->bodies[b].name, name) == 0) return b;
    return -2;
}

int mjcf_read_contact(mjcf *m, xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!xi_is(c, "exclude"))
            return xi_fail(m->x, c, NULL, "not supported (torpor reads <exclude>; explicit contact pairs are not built)");
        mjcf_check_attrs(m, c, "name body1 body2");
        int b[2];
        const char *keys[2] = {"body1", "body2"};
        for (int k = 0; k < 2; ++k) {
            char *n = xi_attr(c, keys[k]);
            if (!n) return xi_fail(m->x, c, NULL, "needs \"%s\"", keys[k]);
            b[k] = find_body(m, n);
            if (b[k] == -2) xi_fail(m->x, c, keys[k], "unknown body \"%s\"", n);
            xmlFree(n);
            if (b[k] == -2) return 0;
        }
        if (b[0] < 0 || b[1] < 0 || m->bodies[b[0]].is_static || m->bodies[b[1]].is_static) {
            xi_warn(m->x, "exclude", "pairs with the world or a body welded to it are kept (torpor's static bodies)");
            continue;
        }
        json_t *pair = json_array();
        json_array_append_new(pair, json_string(m->bodies[b[0]].name));
        json_array_append_new(pair, json_string(m->bodies[b[1]].name));
        json_array_append_new(m->excludes, pair);
    }
    return 1;
}
