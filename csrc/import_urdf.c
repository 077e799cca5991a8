/* import_urdf.c - a URDF robot read into a torpor scene (docs/import.md).
 *
 * URDF (ROS's robot description; wiki.ros.org/urdf/XML) places each link's
 * frame by its parent joint's origin; a joint's axis is in that frame, which
 * is the child link's. Links become torpor bodies posed at q = 0 in the world
 * frame; the root link is welded to the world (a static body), as MuJoCo's
 * URDF reader does, unless a floating joint frees a link. */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "import_urdf.h"

#include "import_frames.h"
#include "import_geoms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define URDF_PLACEHOLDER_MASS 1e-6
#define URDF_PLACEHOLDER_INERTIA 1e-10

typedef struct u_link {
    xmlNodePtr node;
    char *name;
    int parent_joint; /* -1 for the root */
    fr_pose world;
    int placed;
} u_link;

typedef struct u_joint {
    xmlNodePtr node;
    char *name;
    int type; /* index in joint_types */
    int parent, child;
} u_joint;

static const char *const joint_types[] = {"revolute", "continuous", "prismatic", "fixed", "floating", "planar"};

typedef struct urdf {
    xi *x;
    char *dir;
    u_link *links;
    int link_count;
    u_joint *joints;
    int joint_count;
} urdf;

static char *req_attr(urdf *u, xmlNodePtr node, const char *name)
{
    char *v = xi_attr(node, name);
    if (!v) xi_fail(u->x, node, NULL, "needs \"%s\"", name);
    return v;
}

static int nums(urdf *u, xmlNodePtr node, const char *attr, double *out, int n, int *got)
{
    char *v = xi_attr(node, attr);
    if (got) *got = 0;
    if (!v) return 1;
    int ok = xi_numbers(u->x, node, attr, v, out, n, NULL);
    if (ok && got) *got = 1;
    xmlFree(v);
    return ok;
}

static xmlNodePtr child(xmlNodePtr node, const char *name)
{
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (xi_is(c, name)) return c;
    return NULL;
}

/* <origin xyz rpy>: rpy are fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll). */
static int read_origin(urdf *u, xmlNodePtr parent, fr_pose *out)
{
    memset(out, 0, sizeof *out);
    fq_identity(out->quat);
    xmlNodePtr o = child(parent, "origin");
    if (!o) return 1;
    double rpy[3] = {0, 0, 0};
    if (!nums(u, o, "xyz", out->pos, 3, NULL) || !nums(u, o, "rpy", rpy, 3, NULL)) return 0;
    static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    double qx[4], qy[4], qz[4], t[4];
    fq_axis_angle(ex, rpy[0], qx);
    fq_axis_angle(ey, rpy[1], qy);
    fq_axis_angle(ez, rpy[2], qz);
    fq_mul(qz, qy, t);
    fq_mul(t, qx, out->quat);
    fq_normalize(out->quat);
    return 1;
}

static int find_link(const urdf *u, const char *name)
{
    for (int i = 0; i < u->link_count; ++i)
        if (strcmp(u->links[i].name, name) == 0) return i;
    return -1;
}

/* A joint's parent or child link by name. */
static int joint_link(urdf *u, xmlNodePtr joint, const char *which, int *out)
{
    xmlNodePtr e = child(joint, which);
    if (!e) return xi_fail(u->x, joint, NULL, "needs <%s link=\"...\">", which);
    char *name = req_attr(u, e, "link");
    if (!name) return 0;
    *out = find_link(u, name);
    if (*out < 0) xi_fail(u->x, e, "link", "unknown link \"%s\"", name);
    xmlFree(name);
    return *out >= 0;
}

/* Mass properties from <inertial> (none: 0). */
static int read_inertial(urdf *u, xmlNodePtr link, double *mass, double com[3], double inertia[6])
{
    *mass = 0;
    xmlNodePtr in = child(link, "inertial");
    if (!in) return 1;
    fr_pose f;
    if (!read_origin(u, in, &f)) return 0;
    xmlNodePtr m = child(in, "mass"), t = child(in, "inertia");
    if (!m) return xi_fail(u->x, in, NULL, "needs <mass value=\"...\">");
    if (!t) return xi_fail(u->x, in, NULL, "needs <inertia ixx=\"...\" .../>");
    double v[1];
    int got;
    if (!nums(u, m, "value", v, 1, &got)) return 0;
    if (!got || !(v[0] >= 0)) return xi_fail(u->x, m, "value", "the mass must be >= 0 kg");
    if (v[0] == 0) return 1; /* massless (a frame on a fixed joint, a static base): as if no <inertial> */
    const char *keys[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
    double e[6];
    for (int k = 0; k < 6; ++k) {
        e[k] = 0;
        if (!nums(u, t, keys[k], e + k, 1, &got)) return 0;
        if (!got && k < 3) return xi_fail(u->x, t, NULL, "needs \"%s\"", keys[k]);
    }
    fm_sum s;
    memset(&s, 0, sizeof s);
    double full[6];
    fm_rotate_tensor(f.quat, e, full);
    char why[200];
    if (fm_inertia_impossible(e, why, sizeof why)) return xi_fail(u->x, t, NULL, "%s", why);
    fm_add_full(&s, v[0], f.pos, full);
    *mass = v[0];
    return fm_result(&s, com, inertia) || 1;
}

/* A mesh collision: the convex hull of its file's points (package:// and
 * file:// resolved against the URDF's folder), times its scale. */
static json_t *mesh_shape(urdf *u, xmlNodePtr mesh, const fr_pose *pose)
{
    char *file = req_attr(u, mesh, "filename");
    if (!file) return NULL;
    const char *rel = file;
    char *path = NULL;
    if (strncmp(rel, "package://", 10) == 0) { /* package://PKG/PATH: PATH, else PKG/PATH, in the URDF's folder */
        rel += 10;
        const char *slash = strchr(rel, '/');
        path = xi_join(u->dir, slash ? slash + 1 : rel);
        if (path && access(path, R_OK) != 0) {
            char *whole = xi_join(u->dir, rel);
            if (whole && access(whole, R_OK) == 0) free(path), path = whole;
            else free(whole);
        }
    } else {
        if (strncmp(rel, "file://", 7) == 0) rel += 7;
        path = xi_join(u->dir, rel);
    }
    double scale[3] = {1, 1, 1};
    float *points = NULL;
    int count = 0;
    char why[400];
    json_t *shape = NULL;
    if (!path) {
        xi_oom(u->x);
    } else if (access(path, R_OK) != 0) {
        xi_fail(u->x, mesh, "filename", "cannot read mesh file \"%s\" (looked for %s)", file, path);
    } else if (nums(u, mesh, "scale", scale, 3, NULL)) {
        if (!ig_mesh_points(path, scale, &points, &count, why, sizeof why)) {
            xi_fail(u->x, mesh, "filename", "%s", why);
        } else {
            double volume, com[3], inertia[6];
            ig_reduction r;
            shape = ig_convex_json(points, count, pose, &volume, com, inertia, &r, why, sizeof why);
            if (!shape) xi_fail(u->x, mesh, "filename", "%s", why);
            else if (r.kept_vertices < r.full_vertices) {
                ig_reduction_text(&r, why, sizeof why);
                xi_warn(u->x, "mesh", "\"%s\": %s", file, why);
            }
        }
    }
    free(points);
    free(path);
    xmlFree(file);
    return shape;
}

static int read_collisions(urdf *u, xmlNodePtr link, json_t *shapes)
{
    for (xmlNodePtr c = link->children; c; c = c->next) {
        if (!xi_is(c, "collision")) continue;
        ig_geom g;
        memset(&g, 0, sizeof g);
        if (!read_origin(u, c, &g.pose)) return 0;
        xmlNodePtr geo = child(c, "geometry"), s = NULL;
        if (geo)
            for (s = geo->children; s && s->type != XML_ELEMENT_NODE; s = s->next) {}
        if (!s) return xi_fail(u->x, c, NULL, "needs <geometry> with a shape");
        double v[3];
        if (xi_is(s, "box")) {
            int got;
            if (!nums(u, s, "size", v, 3, &got)) return 0;
            if (!got) return xi_fail(u->x, s, NULL, "needs \"size\"");
            g.kind = IG_BOX;
            for (int k = 0; k < 3; ++k) g.size[k] = 0.5 * v[k];
        } else if (xi_is(s, "sphere") || xi_is(s, "cylinder")) {
            int got;
            if (!nums(u, s, "radius", v, 1, &got)) return 0;
            if (!got) return xi_fail(u->x, s, NULL, "needs \"radius\"");
            g.size[0] = v[0];
            g.kind = IG_SPHERE;
            if (xi_is(s, "cylinder")) {
                if (!nums(u, s, "length", v, 1, &got)) return 0;
                if (!got) return xi_fail(u->x, s, NULL, "needs \"length\"");
                g.kind = IG_CYLINDER;
                g.size[1] = 0.5 * v[0];
            }
        } else if (xi_is(s, "mesh")) {
            json_t *shape = mesh_shape(u, s, &g.pose);
            if (!shape) return 0;
            if (json_array_size(shapes) >= TP_MAX_BODY_SHAPES) {
                json_decref(shape);
                return xi_fail(u->x, c, NULL, "more than %d collision shapes on one link, the most a torpor body holds",
                               TP_MAX_BODY_SHAPES);
            }
            json_array_append_new(shapes, shape);
            continue;
        } else {
            return xi_fail(u->x, s, NULL, "unknown collision geometry; URDF has box, sphere, cylinder, mesh");
        }
        for (int k = 0; k < (g.kind == IG_BOX ? 3 : g.kind == IG_CYLINDER ? 2 : 1); ++k)
            if (!(g.size[k] > 0)) return xi_fail(u->x, s, NULL, "sizes must be > 0");
        char why[256];
        json_t *shape = ig_shape_json(&g, why, sizeof why);
        if (!shape) return xi_fail(u->x, s, NULL, "cannot be a torpor shape: %s", why);
        if (json_array_size(shapes) >= TP_MAX_BODY_SHAPES) {
            json_decref(shape);
            return xi_fail(u->x, c, NULL, "more than %d collision shapes on one link, the most a torpor body holds",
                           TP_MAX_BODY_SHAPES);
        }
        json_array_append_new(shapes, shape);
    }
    return 1;
}

/* World poses at q = 0, parents first; a loop leaves links unplaced. */
static int place_links(urdf *u, int root)
{
    fq_identity(u->links[root].world.quat);
    u->links[root].placed = 1;
    for (int pass = 0, placed = 1; placed && pass < u->link_count; ++pass) {
        placed = 0;
        for (int j = 0; j < u->joint_count; ++j) {
            u_joint *jt = &u->joints[j];
            if (!u->links[jt->parent].placed || u->links[jt->child].placed) continue;
            fr_pose origin;
            if (!read_origin(u, jt->node, &origin)) return 0;
            fr_compose(&u->links[jt->parent].world, &origin, &u->links[jt->child].world);
            u->links[jt->child].placed = 1;
            placed = 1;
        }
    }
    for (int j = 0; j < u->joint_count; ++j)
        if (!u->links[u->joints[j].child].placed)
            return xi_fail(u->x, u->joints[j].node, NULL, "joint \"%s\" is on a cycle of joints (its links do not "
                                                          "lead back to the root link \"%s\")", u->joints[j].name,
                           u->links[root].name);
    return 1;
}

static json_t *vec(const double *v, int n) { return xi_vec(v, n); }

static int emit(urdf *u, json_t *scene, int root)
{
    json_t *bodies = json_array(), *joints = json_array();
    json_object_set_new(scene, "bodies", bodies);
    json_object_set_new(scene, "joints", joints);
    for (int i = 0; i < u->link_count; ++i) {
        u_link *l = &u->links[i];
        json_t *shapes = json_array(), *o = json_object();
        json_object_set_new(o, "name", json_string(l->name));
        json_object_set_new(o, "pos", vec(l->world.pos, 3));
        json_object_set_new(o, "quat", vec(l->world.quat, 4));
        if (!read_collisions(u, l->node, shapes)) { json_decref(shapes); json_decref(o); return 0; }
        int touches = json_array_size(shapes) > 0;
        if (!touches) {
            json_t *ball = json_object();
            double s[3] = {1e-3, 1e-3, 1e-3};
            json_object_set_new(ball, "shape", json_string("ball"));
            json_object_set_new(ball, "size", vec(s, 3));
            json_array_append_new(shapes, ball);
            json_object_set_new(o, "contype", json_integer(0));
            json_object_set_new(o, "conaffinity", json_integer(0));
        }
        json_object_set_new(o, "shapes", shapes);
        double mass, com[3] = {0, 0, 0}, inertia[6];
        if (!read_inertial(u, l->node, &mass, com, inertia)) { json_decref(o); return 0; }
        int is_static = i == root;
        if (is_static) {
            if (!touches) { json_decref(o); continue; } /* a root with nothing to collide with: the world itself */
            json_object_set_new(o, "static", json_true());
        } else {
            if (!(mass > 0)) {
                xi_warn(u->x, "link", "\"%s\" has no mass (no <inertial> or mass 0); torpor gives it %g kg (a moving "
                        "link must have mass)",
                        l->name, URDF_PLACEHOLDER_MASS);
                mass = URDF_PLACEHOLDER_MASS;
                double in[6] = {URDF_PLACEHOLDER_INERTIA, URDF_PLACEHOLDER_INERTIA, URDF_PLACEHOLDER_INERTIA, 0, 0, 0};
                memcpy(inertia, in, sizeof in);
                memset(com, 0, sizeof com);
            }
            json_object_set_new(o, "mass", json_real(mass));
            json_object_set_new(o, "com", vec(com, 3));
            json_object_set_new(o, "inertia", vec(inertia, 6));
        }
        json_array_append_new(bodies, o);
    }
    for (int j = 0; j < u->joint_count; ++j) {
        u_joint *jt = &u->joints[j];
        static const char *const torpor_types[] = {"revolute", "revolute", "prismatic", "fixed", "free"};
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(jt->name));
        json_object_set_new(o, "type", json_string(torpor_types[jt->type]));
        json_object_set_new(o, "parent", json_string(jt->parent == root ? "world" : u->links[jt->parent].name));
        json_object_set_new(o, "child", json_string(u->links[jt->child].name));
        if (jt->type == 4 && jt->parent != root) {
            json_decref(o);
            return xi_fail(u->x, jt->node, "type", "a floating joint must hang from the root link");
        }
        if (jt->type <= 2) {
            double axis[3] = {1, 0, 0};
            xmlNodePtr a = child(jt->node, "axis");
            if (a && !nums(u, a, "xyz", axis, 3, NULL)) { json_decref(o); return 0; }
            if (axis[0] == 0 && axis[1] == 0 && axis[2] == 0) {
                json_decref(o);
                return xi_fail(u->x, a, "xyz", "the axis must not be zero");
            }
            json_object_set_new(o, "axis", vec(axis, 3));
            xmlNodePtr lim = child(jt->node, "limit");
            if (jt->type != 1 && lim) {
                double lo[1] = {0}, hi[1] = {0};
                if (!nums(u, lim, "lower", lo, 1, NULL) || !nums(u, lim, "upper", hi, 1, NULL)) { json_decref(o); return 0; }
                if (lo[0] > hi[0]) {
                    json_decref(o);
                    return xi_fail(u->x, lim, "lower", "lower must be <= upper, got lower %g > upper %g", lo[0], hi[0]);
                }
                double r[2] = {lo[0], hi[0]};
                json_object_set_new(o, "limits", vec(r, 2));
            } else if (jt->type == 0 && !lim) {
                json_decref(o);
                return xi_fail(u->x, jt->node, NULL, "a revolute joint needs <limit> (continuous has none)");
            }
            xmlNodePtr dyn = child(jt->node, "dynamics");
            if (dyn) {
                double d[1] = {0}, f[1] = {0};
                if (!nums(u, dyn, "damping", d, 1, NULL) || !nums(u, dyn, "friction", f, 1, NULL)) { json_decref(o); return 0; }
                if (d[0] < 0 || f[0] < 0) {
                    json_decref(o);
                    return xi_fail(u->x, dyn, d[0] < 0 ? "damping" : "friction", "must be >= 0");
                }
                if (d[0] > 0) json_object_set_new(o, "damping", json_real(d[0]));
                if (f[0] > 0) json_object_set_new(o, "friction", json_real(f[0]));
            }
            if (child(jt->node, "mimic")) xi_warn(u->x, "mimic", "ignored: the joint moves on its own");
        }
        json_array_append_new(joints, o);
    }
    if (json_array_size(joints) == 0) json_object_del(scene, "joints");
    if (json_array_size(bodies) == 0) return xi_fail(u->x, xmlDocGetRootElement(u->links ? u->links[0].node->doc : NULL), NULL, "the robot has no link torpor can simulate");
    return 1;
}

static void urdf_free(urdf *u)
{
    for (int i = 0; i < u->link_count; ++i) free(u->links[i].name);
    for (int i = 0; i < u->joint_count; ++i) free(u->joints[i].name);
    free(u->links);
    free(u->joints);
    free(u->dir);
}

static int read_robot(urdf *u, xmlNodePtr root)
{
    int nl = 0, nj = 0;
    for (xmlNodePtr c = root->children; c; c = c->next) {
        if (xi_is(c, "link")) nl++;
        else if (xi_is(c, "joint")) nj++;
        else if (c->type == XML_ELEMENT_NODE && !xi_is(c, "material") && !xi_is(c, "gazebo") &&
                 !xi_is(c, "transmission"))
            return xi_fail(u->x, c, NULL, "element not supported in <robot>");
        else if (c->type == XML_ELEMENT_NODE)
            xi_warn(u->x, (const char *)c->name, "ignored");
    }
    if (nl == 0) return xi_fail(u->x, root, NULL, "a robot needs at least one <link>");
    u->links = calloc((size_t)nl, sizeof *u->links);
    u->joints = calloc((size_t)nj + 1, sizeof *u->joints);
    if (!u->links || !u->joints) return xi_oom(u->x);
    for (xmlNodePtr c = root->children; c; c = c->next) {
        if (!xi_is(c, "link")) continue;
        char *name = req_attr(u, c, "name");
        if (!name) return 0;
        if (find_link(u, name) >= 0) {
            xi_fail(u->x, c, "name", "link \"%s\" is defined twice", name);
            xmlFree(name);
            return 0;
        }
        u_link *l = &u->links[u->link_count++];
        l->node = c;
        l->name = strdup(name);
        l->parent_joint = -1;
        xmlFree(name);
        if (!l->name) return xi_oom(u->x);
        if (child(c, "visual")) xi_warn(u->x, "visual", "ignored (torpor draws collision shapes)");
    }
    for (xmlNodePtr c = root->children; c; c = c->next) {
        if (!xi_is(c, "joint")) continue;
        u_joint *j = &u->joints[u->joint_count];
        j->node = c;
        char *name = req_attr(u, c, "name"), *type = name ? req_attr(u, c, "type") : NULL;
        if (!name || !type) { xmlFree(name); return 0; }
        j->name = strdup(name);
        xmlFree(name);
        j->type = -1;
        for (int t = 0; t < 6; ++t)
            if (strcmp(type, joint_types[t]) == 0) j->type = t;
        if (j->type < 0 || j->type == 5) {
            xi_fail(u->x, c, "type", "joint type \"%s\" not supported (revolute, continuous, prismatic, fixed, floating)",
                    type);
            xmlFree(type);
            return 0;
        }
        xmlFree(type);
        u->joint_count++;
        if (!j->name) return xi_oom(u->x);
        if (!joint_link(u, c, "parent", &j->parent) || !joint_link(u, c, "child", &j->child)) return 0;
        if (j->parent == j->child) return xi_fail(u->x, c, NULL, "joint \"%s\" joins link \"%s\" to itself", j->name, u->links[j->child].name);
        if (u->links[j->child].parent_joint >= 0)
            return xi_fail(u->x, c, NULL, "link \"%s\" is already the child of joint \"%s\"", u->links[j->child].name,
                           u->joints[u->links[j->child].parent_joint].name);
        u->links[j->child].parent_joint = u->joint_count - 1;
    }
    int root_link = -1;
    for (int i = 0; i < u->link_count; ++i)
        if (u->links[i].parent_joint < 0) {
            if (root_link >= 0)
                return xi_fail(u->x, u->links[i].node, NULL, "links \"%s\" and \"%s\" both have no parent joint: a "
                                                              "robot has one root link", u->links[root_link].name,
                               u->links[i].name);
            root_link = i;
        }
    if (root_link < 0)
        return xi_fail(u->x, u->joints[0].node, NULL, "the joints form a cycle: every link has a parent joint");
    if (!place_links(u, root_link)) return 0;
    return emit(u, u->x->scene, root_link);
}

int tp_import_urdf(xi *x, const char *path, xmlNodePtr root)
{
    urdf u;
    memset(&u, 0, sizeof u);
    u.x = x;
    u.dir = xi_dirname(path);
    if (!u.dir) return xi_oom(x);
    char *name = xi_attr(root, "name");
    json_object_set_new(x->scene, "name", json_string(name ? name : "urdf"));
    xmlFree(name);
    int ok = read_robot(&u, root);
    urdf_free(&u);
    return ok;
}
