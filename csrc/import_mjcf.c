/* import_mjcf.c - MuJoCo's MJCF read into a torpor scene (docs/import.md).
 *
 * The model is read into bodies, joints and actuators of its own (MuJoCo's
 * conventions: body poses relative to the parent, radii and half sizes,
 * capsules along z, quaternions w x y z, angles in degrees by default), then
 * written as a torpor scene (import_scene_*): link poses in the world frame at
 * q = 0, full extents, capsules along x, quaternions x y z w. A body with
 * several joints becomes a chain of massless placeholder links, one per joint,
 * since a torpor link has one joint. MuJoCo's reference: its XML reference
 * (mujoco.readthedocs.io, "XML Reference"). */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "import_mjcf.h"

#include "import_frames.h"
#include "import_geoms.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>

/* Elements a <default> class gives attributes to. Actuator shortcuts share one
 * actuator default in MuJoCo; they are looked up in each other's nodes too. */
enum { K_JOINT, K_GEOM, K_MOTOR, K_POSITION, K_VELOCITY, K_GENERAL, K_MESH, K_TENDON, K_SITE, K_COUNT };
static const char *const kind_tags[K_COUNT] = {"joint", "geom", "motor", "position", "velocity", "general", "mesh",
                                               "tendon", "site"};

enum { J_FREE, J_BALL, J_SLIDE, J_HINGE };
static const char *const joint_types[] = {"free", "ball", "slide", "hinge"};
static const char *const geom_types[] = {"plane", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};

/* A placeholder link (one per extra joint of a body): mass and moments small
 * against any real link, within torpor's bounds. */
#define MJ_PLACEHOLDER_MASS 1e-6
#define MJ_PLACEHOLDER_INERTIA 1e-10

typedef struct mj_class {
    char *name;
    int parent;
    xmlNodePtr node[K_COUNT];
} mj_class;

typedef struct mj_joint {
    char *name;
    int type, body;
    double pos[3], axis[3];
    int limited;
    double range[2], damping, armature, friction, stiffness, springref, ref;
    xmlNodePtr node;
} mj_joint;

typedef struct mj_body {
    char *name;
    int parent;
    fr_pose world;
    int is_static, emitted;
    json_t *shapes;
    unsigned contype, conaffinity;
    double friction;
    int has_inertial;
    fm_sum geoms, inertial;
    double mass, com[3], inertia[6];
    int joint_first, joint_count;
    xmlNodePtr node;
} mj_body;

typedef struct mj_actuator {
    char *name;
    int kind, joint;
    double gear;
    int ctrllimited, forcelimited;
    double ctrlrange[2], forcerange[2];
    double gain[3], bias[3]; /* force = gain0 ctrl + bias0 + bias1 q + bias2 qd (MuJoCo's affine form) */
    xmlNodePtr node;
} mj_actuator;

/* A named <site>: its MJCF body (-1: the world) and its pose in that body's frame. */
typedef struct mj_site {
    char *name;
    int body;
    fr_pose local;
} mj_site;

/* A <key> in torpor's layout: joint_q [nq], joint_qd [nv], ctrl [nu] (has_ctrl: given). */
typedef struct mj_key {
    char *name;
    double *q, *qd, *ctrl;
    int has_ctrl;
} mj_key;

typedef struct mj_mesh {
    char *name, *path;
    double scale[3];
    xmlNodePtr node;
} mj_mesh;

typedef struct mjcf {
    xi *x;
    mj_mesh *meshes;
    int mesh_count;
    char *dir;
    char *meshdir;
    int angle_deg, autolimits, inertia_from_geom; /* inertia_from_geom: 0 false, 1 true, 2 auto */
    char eulerseq[4];
    double settotalmass;
    int contact_off, filterparent_off;
    mj_class *classes;
    int class_count;
    mj_body *bodies;
    int body_count;
    mj_joint *joints;
    int joint_count;
    mj_actuator *acts;
    int act_count;
    mj_site *sites;
    int site_count;
    mj_key *keys;
    int key_count;
    json_t *statics;  /* worldbody geoms as static bodies */
    json_t *excludes; /* [name, name] pairs */
    xi_list top;      /* the top-level elements, includes expanded */
    xmlNodePtr root;
} mjcf;

static int grow_array(void **p, int count, size_t elem)
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
static char *mj_get(const mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, xmlNodePtr *where)
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
static int get_nums(mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, double *out, int n, int *got)
{
    xmlNodePtr where;
    char *v = mj_get(m, node, kind, cls, attr, &where);
    if (got) *got = 0;
    if (!v) return 1;
    int ok = xi_numbers(m->x, where, attr, v, out, n, got);
    if (ok && got && n > 0) *got = n;
    xmlFree(v);
    return ok;
}

/* A keyword among `names` (index to *out), or default when absent. */
static int get_word(mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, const char *const *names, int count,
                    int *out)
{
    xmlNodePtr where;
    char *v = mj_get(m, node, kind, cls, attr, &where);
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

static const char *const bool_words[] = {"false", "true", "auto"};

static char *dup_or(const char *s, const char *fallback)
{
    return strdup(s ? s : fallback);
}

/* Warn about attributes of `node` not in `known` (names separated by spaces). */
static void check_attrs(mjcf *m, xmlNodePtr node, const char *known)
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
static int read_frame(mjcf *m, xmlNodePtr node, int kind, int cls, fr_pose *out)
{
    static const char *const keys[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
    static const int sizes[] = {4, 4, 3, 6, 3};
    memset(out->pos, 0, sizeof out->pos);
    fq_identity(out->quat);
    if (!get_nums(m, node, kind, cls, "pos", out->pos, 3, NULL)) return 0;
    int given = -1;
    double v[6];
    for (int i = 0; i < 5; ++i) {
        int got = 0;
        double t[6];
        if (!get_nums(m, node, kind, cls, keys[i], t, sizes[i], &got)) return 0;
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

/* ---------------------------------------------------------------- compiler, option, defaults */

static int read_compiler(mjcf *m, xmlNodePtr node)
{
    check_attrs(m, node, "angle autolimits inertiafromgeom meshdir assetdir texturedir eulerseq coordinate "
                         "settotalmass discardvisual strippath");
    static const char *const angles[] = {"radian", "degree"};
    static const char *const ifg[] = {"false", "true", "auto"};
    if (!get_word(m, node, -1, 0, "angle", angles, 2, &m->angle_deg)) return 0;
    int v = m->autolimits;
    if (!get_word(m, node, -1, 0, "autolimits", bool_words, 2, &v)) return 0;
    m->autolimits = v;
    if (!get_word(m, node, -1, 0, "inertiafromgeom", ifg, 3, &m->inertia_from_geom)) return 0;
    static const char *const coords[] = {"local"};
    int c = 0;
    if (!get_word(m, node, -1, 0, "coordinate", coords, 1, &c)) return 0;
    double total[1];
    int got = 0;
    if (!get_nums(m, node, -1, 0, "settotalmass", total, 1, &got)) return 0;
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

static int read_option(mjcf *m, xmlNodePtr node, json_t *scene)
{
    check_attrs(m, node, "timestep gravity integrator density viscosity wind magnetic iterations solver tolerance "
                         "ls_iterations ls_tolerance noslip_iterations cone impratio jacobian o_margin o_solref o_solimp");
    double t[1], g[3];
    int got = 0;
    if (!get_nums(m, node, -1, 0, "timestep", t, 1, &got)) return 0;
    if (got) {
        if (!(t[0] > 0.0)) return xi_fail(m->x, node, "timestep", "must be > 0 s, got %g", t[0]);
        json_object_set_new(scene, "dt", json_real(t[0]));
    }
    if (!get_nums(m, node, -1, 0, "gravity", g, 3, &got)) return 0;
    if (got) json_object_set_new(scene, "gravity", xi_vec(g, 3));
    char *integ = xi_attr(node, "integrator");
    if (integ) {
        xi_warn(m->x, "option", "integrator \"%s\" noted; torpor steps with its own scheme (docs/import.md)", integ);
        xmlFree(integ);
    }
    const char *fluid[] = {"density", "viscosity"};
    for (int i = 0; i < 2; ++i) {
        double v[1];
        if (!get_nums(m, node, -1, 0, fluid[i], v, 1, &got)) return 0;
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

static int find_class(const mjcf *m, const char *name)
{
    for (int i = 0; i < m->class_count; ++i)
        if (strcmp(m->classes[i].name, name) == 0) return i;
    return -1;
}

static int read_default(mjcf *m, xmlNodePtr node, int parent)
{
    char *name = xi_attr(node, "class");
    int index;
    if (parent < 0 && (!name || strcmp(name, "main") == 0)) {
        index = 0; /* the top <default> is "main", made at the start */
    } else {
        if (!name) { xmlFree(name); return xi_fail(m->x, node, NULL, "a nested <default> needs a \"class\""); }
        if (find_class(m, name) >= 0) {
            xi_fail(m->x, node, "class", "class \"%s\" is defined twice", name);
            xmlFree(name);
            return 0;
        }
        if (!grow_array((void **)&m->classes, m->class_count, sizeof *m->classes)) { xmlFree(name); return xi_oom(m->x); }
        index = m->class_count++;
        memset(&m->classes[index], 0, sizeof m->classes[index]);
        m->classes[index].name = strdup(name);
        m->classes[index].parent = parent < 0 ? 0 : parent;
    }
    xmlFree(name);
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (xi_is(c, "default")) {
            if (!read_default(m, c, index)) return 0;
            continue;
        }
        int k = 0;
        while (k < K_COUNT && !xi_is(c, kind_tags[k])) ++k;
        if (k == K_COUNT) {
            xi_warn(m->x, "default", "defaults of <%s> ignored", (const char *)c->name);
            continue;
        }
        m->classes[index].node[k] = c;
    }
    return 1;
}

/* The class of an element: its own `class`, else the inherited childclass. */
static int element_class(mjcf *m, xmlNodePtr node, int inherited, int *out)
{
    char *name = xi_attr(node, "class");
    if (!name) { *out = inherited; return 1; }
    int c = find_class(m, name);
    if (c < 0) xi_fail(m->x, node, "class", "unknown class \"%s\"", name);
    xmlFree(name);
    *out = c;
    return c >= 0;
}

/* ---------------------------------------------------------------- geoms */

/* <asset><mesh name file scale>: the file must be readable. */
static int read_meshes(mjcf *m, xmlNodePtr asset)
{
    for (xmlNodePtr c = asset->children; c; c = c->next) {
        if (!xi_is(c, "mesh")) continue;
        check_attrs(m, c, "name class file scale content_type inertia maxhullvert refpos refquat smoothnormal");
        int cls;
        if (!element_class(m, c, 0, &cls)) return 0;
        char *file = xi_attr(c, "file");
        if (!file) return xi_fail(m->x, c, NULL, "needs \"file\" (meshes given by vertex lists are not read)");
        char *name = xi_attr(c, "name");
        mj_mesh mesh;
        memset(&mesh, 0, sizeof mesh);
        mesh.node = c;
        mesh.scale[0] = mesh.scale[1] = mesh.scale[2] = 1.0;
        mesh.path = xi_join(m->meshdir ? m->meshdir : m->dir, file);
        if (name) {
            mesh.name = strdup(name);
        } else { /* MuJoCo names an unnamed mesh after its file, without folder and extension */
            const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
            mesh.name = strdup(base);
            char *dot = mesh.name ? strrchr(mesh.name, '.') : NULL;
            if (dot) *dot = '\0';
        }
        int readable = mesh.path && access(mesh.path, R_OK) == 0;
        if (mesh.path && !readable) xi_fail(m->x, c, "file", "cannot read mesh file \"%s\" (looked for %s)", file, mesh.path);
        xmlFree(file);
        xmlFree(name);
        if (readable && !get_nums(m, c, K_MESH, cls, "scale", mesh.scale, 3, NULL)) readable = 0;
        if (!readable || !mesh.name || !grow_array((void **)&m->meshes, m->mesh_count, sizeof *m->meshes)) {
            free(mesh.name);
            free(mesh.path);
            return readable ? xi_oom(m->x) : 0;
        }
        m->meshes[m->mesh_count++] = mesh;
    }
    return 1;
}

/* A mesh geom: its mesh's points, their hull as a torpor shape and its mass properties per unit density. */
static int mesh_hull(mjcf *m, xmlNodePtr node, int cls, const fr_pose *pose, json_t **shape, double *volume,
                     double com[3], double inertia[6])
{
    xmlNodePtr where;
    char *name = mj_get(m, node, K_GEOM, cls, "mesh", &where);
    if (!name) return xi_fail(m->x, node, "type", "a mesh geom needs \"mesh\"");
    int found = -1;
    for (int i = 0; i < m->mesh_count; ++i)
        if (strcmp(m->meshes[i].name, name) == 0) found = i;
    if (found < 0) xi_fail(m->x, where, "mesh", "unknown mesh \"%s\"", name);
    xmlFree(name);
    if (found < 0) return 0;
    const mj_mesh *mesh = &m->meshes[found];
    float *points = NULL;
    int count = 0;
    char why[400];
    if (!ig_mesh_points(mesh->path, mesh->scale, &points, &count, why, sizeof why))
        return xi_fail(m->x, mesh->node, "file", "%s", why);
    ig_reduction r;
    *shape = ig_convex_json(points, count, pose, volume, com, inertia, &r, why, sizeof why);
    free(points);
    if (!*shape) return xi_fail(m->x, node, "mesh", "mesh \"%s\": %s", mesh->name, why);
    if (r.kept_vertices < r.full_vertices) {
        ig_reduction_text(&r, why, sizeof why);
        xi_warn(m->x, "mesh", "\"%s\": %s; mass properties are the full hull's", mesh->name, why);
    }
    return 1;
}

/* A geom of body b (or of the world when b < 0): its mass goes to the body's
 * sum and, if it collides, its shape to the body's shapes. */
static int read_geom(mjcf *m, xmlNodePtr node, int cls, int b, const fr_pose *world)
{
    check_attrs(m, node, "name class type size pos quat axisangle euler xyaxes zaxis fromto density mass friction "
                         "contype conaffinity group rgba material condim margin gap solref solimp solmix priority "
                         "user mesh fitscale fluidshape fluidcoef shellinertia");
    ig_geom g;
    memset(&g, 0, sizeof g);
    int type = 1; /* sphere */
    xmlNodePtr where;
    char *tname = mj_get(m, node, K_GEOM, cls, "type", &where);
    if (tname) {
        int found = -1;
        for (int i = 0; i < IG_KIND_COUNT; ++i)
            if (strcmp(tname, geom_types[i]) == 0) found = i;
        if (found < 0) {
            xi_fail(m->x, where, "type", "unknown geom type \"%s\"; torpor reads plane, sphere, capsule, ellipsoid, "
                                         "cylinder, box, mesh", tname);
            xmlFree(tname);
            return 0;
        }
        type = found;
        xmlFree(tname);
    }
    g.kind = (ig_kind)type;
    if (!read_frame(m, node, K_GEOM, cls, &g.pose)) return 0;
    double size[3] = {0, 0, 0}, ft[6];
    int nsize = 0, nft = 0;
    if (!get_nums(m, node, K_GEOM, cls, "size", size, -3, &nsize)) return 0;
    if (!get_nums(m, node, K_GEOM, cls, "fromto", ft, 6, &nft)) return 0;
    if (nft && (g.kind == IG_SPHERE || g.kind == IG_PLANE || g.kind == IG_MESH))
        return xi_fail(m->x, node, "fromto", "a %s takes no fromto", geom_types[type]);
    if (nft) {
        double d[3] = {ft[3] - ft[0], ft[4] - ft[1], ft[5] - ft[2]}, z[3] = {0, 0, 1};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len == 0) return xi_fail(m->x, node, "fromto", "the two points are the same");
        for (int k = 0; k < 3; ++k) { g.pose.pos[k] = 0.5 * (ft[k] + ft[k + 3]); d[k] /= len; }
        fq_between(z, d, g.pose.quat);
        if (g.kind == IG_CAPSULE || g.kind == IG_CYLINDER) size[1] = 0.5 * len, nsize = nsize < 2 ? 2 : nsize;
        else size[2] = 0.5 * len, nsize = 3;
    }
    static const int need[IG_KIND_COUNT] = {3, 1, 2, 3, 2, 3, 0};
    if (g.kind != IG_PLANE && nsize < need[type])
        return xi_fail(m->x, node, "size", "a %s needs %d size value%s, got %d", geom_types[type], need[type],
                       need[type] > 1 ? "s" : "", nsize);
    for (int k = 0; k < need[type]; ++k)
        if (!(size[k] > 0.0) && g.kind != IG_PLANE)
            return xi_fail(m->x, node, "size", "size[%d] must be > 0, got %g", k, size[k]);
    memcpy(g.size, size, sizeof size);
    /* a mesh: the convex hull of its points, the shape and the mass properties both */
    json_t *convex = NULL;
    double hull_volume = 0, hull_com[3] = {0, 0, 0}, hull_inertia[6] = {0};
    if (g.kind == IG_MESH && !mesh_hull(m, node, cls, &g.pose, &convex, &hull_volume, hull_com, hull_inertia)) return 0;
    /* mass: `mass`, else density x volume */
    double mass[1] = {0}, density[1] = {1000.0};
    int has_mass = 0;
    if (!get_nums(m, node, K_GEOM, cls, "mass", mass, 1, &has_mass)) return 0;
    if (!get_nums(m, node, K_GEOM, cls, "density", density, 1, NULL)) return 0;
    double gm = has_mass ? mass[0] : density[0] * (g.kind == IG_MESH ? hull_volume : ig_volume(&g));
    if (gm < 0) return xi_fail(m->x, node, has_mass ? "mass" : "density", "must be >= 0, got %g", has_mass ? mass[0] : density[0]);
    /* collision */
    double ct[1] = {1}, ca[1] = {1}, fr[3] = {1, 0.005, 0.0001};
    if (!get_nums(m, node, K_GEOM, cls, "contype", ct, 1, NULL)) return 0;
    if (!get_nums(m, node, K_GEOM, cls, "conaffinity", ca, 1, NULL)) return 0;
    if (!get_nums(m, node, K_GEOM, cls, "friction", fr, -3, NULL)) return 0;
    if (ct[0] < 0 || ct[0] > 2147483647.0 || ct[0] != floor(ct[0]))
        return xi_fail(m->x, node, "contype", "must be a bitmask (an integer >= 0), got %g", ct[0]);
    if (ca[0] < 0 || ca[0] > 2147483647.0 || ca[0] != floor(ca[0]))
        return xi_fail(m->x, node, "conaffinity", "must be a bitmask (an integer >= 0), got %g", ca[0]);
    if (fr[0] < 0) return xi_fail(m->x, node, "friction", "must be >= 0, got %g", fr[0]);
    if (g.kind == IG_ELLIPSOID)
        xi_warn(m->x, "geom", "ellipsoids collide as the capsule along their longest semi-axis (docs/import.md)");
    int collides = (unsigned)ct[0] != 0 || (unsigned)ca[0] != 0;
    json_t *shape = NULL;
    if (convex && collides) {
        shape = convex;
        if (b < 0) { /* world geoms: a static body at the origin */
            fr_pose placed;
            fr_compose(world, &g.pose, &placed);
            json_object_set_new(shape, "pos", xi_vec(placed.pos, 3));
            json_object_set_new(shape, "quat", xi_vec(placed.quat, 4));
        }
    } else if (convex) {
        json_decref(convex);
    } else if (collides) {
        char why[256];
        ig_geom placed = g;
        if (b < 0) fr_compose(world, &g.pose, &placed.pose); /* world geoms: a static body at the origin */
        shape = ig_shape_json(&placed, why, sizeof why);
        if (!shape) return xi_fail(m->x, node, "size", "cannot be a torpor shape: %s", why);
    }
    if (b < 0) {
        if (!shape) return 1;
        char *gname = xi_attr(node, "name");
        char auto_name[48];
        snprintf(auto_name, sizeof auto_name, "world_geom%d", (int)json_array_size(m->statics));
        json_t *body = json_object();
        json_object_set_new(body, "name", json_string(gname ? gname : auto_name));
        xmlFree(gname);
        json_object_set_new(body, "static", json_true());
        json_t *shapes = json_array();
        json_array_append_new(shapes, shape);
        json_object_set_new(body, "shapes", shapes);
        json_object_set_new(body, "friction", json_real(fr[0]));
        json_object_set_new(body, "contype", json_integer((json_int_t)ct[0]));
        json_object_set_new(body, "conaffinity", json_integer((json_int_t)ca[0]));
        json_array_append_new(m->statics, body);
        return 1;
    }
    mj_body *body = &m->bodies[b];
    if (g.kind == IG_MESH && gm > 0 && hull_volume > 0) { /* the hull's tensor, turned into the body frame */
        double c[3], full[6];
        fq_rotate(g.pose.quat, hull_com, c);
        for (int k = 0; k < 3; ++k) c[k] += g.pose.pos[k];
        fm_rotate_tensor(g.pose.quat, hull_inertia, full);
        for (int k = 0; k < 6; ++k) full[k] *= gm / hull_volume;
        fm_add_full(&body->geoms, gm, c, full);
    } else if (g.kind != IG_PLANE && g.kind != IG_MESH && gm > 0) {
        double diag[3];
        ig_unit_inertia(&g, diag);
        for (int k = 0; k < 3; ++k) diag[k] *= gm;
        fm_add(&body->geoms, gm, g.pose.pos, g.pose.quat, diag);
    }
    if (shape) {
        if (json_array_size(body->shapes) >= TP_MAX_BODY_SHAPES) {
            json_decref(shape);
            return xi_fail(m->x, node, NULL, "body \"%s\" has more than %d colliding geoms, the most a torpor body holds",
                           body->name, TP_MAX_BODY_SHAPES);
        }
        json_array_append_new(body->shapes, shape);
        body->contype |= (unsigned)ct[0];
        body->conaffinity |= (unsigned)ca[0];
        if (fr[0] > body->friction) body->friction = fr[0];
    }
    return 1;
}

/* ---------------------------------------------------------------- inertial, joints */

static int read_inertial(mjcf *m, xmlNodePtr node, mj_body *body)
{
    check_attrs(m, node, "pos quat axisangle euler xyaxes zaxis mass diaginertia fullinertia");
    fr_pose f;
    if (!read_frame(m, node, -1, 0, &f)) return 0;
    double mass[1], diag[3], full[6];
    int got_m = 0, got_d = 0, got_f = 0;
    if (!get_nums(m, node, -1, 0, "mass", mass, 1, &got_m) || !get_nums(m, node, -1, 0, "diaginertia", diag, 3, &got_d) ||
        !get_nums(m, node, -1, 0, "fullinertia", full, 6, &got_f))
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
    if (!grow_array((void **)&m->joints, m->joint_count, sizeof *m->joints)) return xi_oom(m->x);
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
    j.name = dup_or(name, auto_name);
    xmlFree(name);
    if (!j.name) return xi_oom(m->x);
    if (free_joint) {
        check_attrs(m, node, "name group align");
        return add_joint(m, &j);
    }
    check_attrs(m, node, "name class type pos axis range limited damping armature frictionloss stiffness springref ref "
                         "group user margin solreflimit solimplimit solreffriction solimpfriction springdamper "
                         "actuatorfrclimited actuatorfrcrange");
    if (!get_word(m, node, K_JOINT, cls, "type", joint_types, 4, &j.type)) goto fail;
    double range[2];
    int got_range = 0, limited = 2;
    if (!get_nums(m, node, K_JOINT, cls, "pos", j.pos, 3, NULL) || !get_nums(m, node, K_JOINT, cls, "axis", j.axis, 3, NULL) ||
        !get_nums(m, node, K_JOINT, cls, "range", range, 2, &got_range) ||
        !get_word(m, node, K_JOINT, cls, "limited", bool_words, 3, &limited))
        goto fail;
    const char *scalars[] = {"damping", "armature", "frictionloss", "stiffness", "springref", "ref"};
    double *dest[] = {&j.damping, &j.armature, &j.friction, &j.stiffness, &j.springref, &j.ref};
    for (int i = 0; i < 6; ++i) {
        if (!get_nums(m, node, K_JOINT, cls, scalars[i], dest[i], 1, NULL)) goto fail;
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

static int walk_body(mjcf *m, xmlNodePtr node, int parent, const fr_pose *parent_world, int childclass);

/* <site> on body b (-1: the worldbody): kept if named (a site is found by its
 * name); type, size, fromto and the visual attributes are not read. */
static int read_site(mjcf *m, xmlNodePtr node, int cls, int b)
{
    fr_pose local;
    if (!read_frame(m, node, K_SITE, cls, &local)) return 0;
    char *name = xi_attr(node, "name");
    if (!name) return 1;
    for (int i = 0; i < m->site_count; ++i)
        if (strcmp(m->sites[i].name, name) == 0) {
            xi_fail(m->x, node, "name", "site \"%s\" is defined twice", name);
            xmlFree(name);
            return 0;
        }
    if (!grow_array((void **)&m->sites, m->site_count, sizeof *m->sites)) { xmlFree(name); return xi_oom(m->x); }
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
            ok = element_class(m, c, childclass, &cls) && read_joint(m, c, cls, b, xi_is(c, "freejoint"));
            if (ok) m->bodies[b].joint_count++;
        } else if (xi_is(c, "inertial")) {
            if (inertial_seen++) ok = xi_fail(m->x, c, NULL, "a body has at most one <inertial>");
            else ok = read_inertial(m, c, &m->bodies[b]);
        }
    }
    for (int i = 0; ok && i < kids.count; ++i) {
        xmlNodePtr c = kids.items[i];
        int cls;
        if (xi_is(c, "geom")) ok = element_class(m, c, childclass, &cls) && read_geom(m, c, cls, b, world);
        else if (xi_is(c, "body")) ok = walk_body(m, c, b, world, childclass);
        else if (xi_is(c, "site")) ok = element_class(m, c, childclass, &cls) && read_site(m, c, cls, b);
        else if (xi_is(c, "camera") || xi_is(c, "light"))
            xi_warn(m->x, (const char *)c->name, "ignored (torpor has no %ss)", (const char *)c->name);
        else if (!xi_is(c, "joint") && !xi_is(c, "freejoint") && !xi_is(c, "inertial"))
            ok = xi_fail(m->x, c, NULL, "element not supported in a body");
    }
    xi_list_free(&kids);
    return ok;
}

static int walk_body(mjcf *m, xmlNodePtr node, int parent, const fr_pose *parent_world, int childclass)
{
    check_attrs(m, node, "name childclass pos quat axisangle euler xyaxes zaxis user gravcomp");
    char *cc = xi_attr(node, "childclass");
    if (cc) {
        childclass = find_class(m, cc);
        if (childclass < 0) xi_fail(m->x, node, "childclass", "unknown class \"%s\"", cc);
        xmlFree(cc);
        if (childclass < 0) return 0;
    }
    if (!grow_array((void **)&m->bodies, m->body_count, sizeof *m->bodies)) return xi_oom(m->x);
    int b = m->body_count++;
    mj_body *body = &m->bodies[b];
    memset(body, 0, sizeof *body);
    body->node = node;
    body->parent = parent;
    body->joint_first = m->joint_count;
    char *name = xi_attr(node, "name");
    char auto_name[48];
    snprintf(auto_name, sizeof auto_name, "body%d", b + 1); /* MuJoCo's body number (world is 0) */
    body->name = dup_or(name, auto_name);
    xmlFree(name);
    body->shapes = json_array();
    if (!body->name || !body->shapes) return xi_oom(m->x);
    fr_pose local;
    if (!read_frame(m, node, -1, 0, &local)) return 0;
    fr_compose(parent_world, &local, &body->world);
    fr_pose world = body->world;
    return read_body_children(m, node, b, &world, childclass);
}

/* Mass properties of each body from its inertial or its geoms (compiler
 * inertiafromgeom), then settotalmass. */
static int finish_masses(mjcf *m)
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
static void mark_static(mjcf *m)
{
    for (int b = 0; b < m->body_count; ++b) {
        mj_body *body = &m->bodies[b];
        body->is_static = body->joint_count == 0 && (body->parent < 0 || m->bodies[body->parent].is_static);
    }
}

/* ---------------------------------------------------------------- keyframes */

static int nq_of(int type) { return type == J_FREE ? 7 : type == J_BALL ? 4 : 1; }
static int nv_of(int type) { return type == J_FREE ? 6 : type == J_BALL ? 3 : 1; }

/* MuJoCo's qpos0 of joint j (MJCF's joint frame: the body as the file places it). */
static void joint_qpos0(const mjcf *m, const mj_joint *j, double *qpos)
{
    if (j->type == J_HINGE || j->type == J_SLIDE) {
        qpos[0] = j->ref;
    } else if (j->type == J_BALL) {
        qpos[0] = 1, qpos[1] = qpos[2] = qpos[3] = 0;
    } else {
        const fr_pose *p = &m->bodies[j->body].world;
        memcpy(qpos, p->pos, 3 * sizeof *qpos);
        qpos[3] = p->quat[3], qpos[4] = p->quat[0], qpos[5] = p->quat[1], qpos[6] = p->quat[2];
    }
}

/* Joint j's MuJoCo qpos / qvel as torpor's joint_q / joint_qd (docs/import.md):
 * 1-dof positions less ref; quaternions w x y z to x y z w; a free joint's
 * origin velocity (world) and body-frame angular velocity turned into the
 * centre-of-mass velocity and the angular velocity in the world frame. */
static void joint_state(const mjcf *m, const mj_joint *j, const double *qpos, const double *qvel, double *q, double *qd)
{
    if (j->type == J_HINGE || j->type == J_SLIDE) {
        q[0] = qpos[0] - j->ref;
        qd[0] = qvel[0];
        return;
    }
    int at = j->type == J_FREE ? 3 : 0; /* the quaternion's place */
    memcpy(q, qpos, (size_t)at * sizeof *q);
    q[at] = qpos[at + 1], q[at + 1] = qpos[at + 2], q[at + 2] = qpos[at + 3], q[at + 3] = qpos[at];
    if (j->type == J_BALL) {
        memcpy(qd, qvel, 3 * sizeof *qd);
        return;
    }
    double r[4] = {q[3], q[4], q[5], q[6]}, w[3], c[3];
    fq_normalize(r);
    fq_rotate(r, qvel + 3, w);
    fq_rotate(r, m->bodies[j->body].com, c);
    qd[0] = qvel[0] + w[1] * c[2] - w[2] * c[1];
    qd[1] = qvel[1] + w[2] * c[0] - w[0] * c[2];
    qd[2] = qvel[2] + w[0] * c[1] - w[1] * c[0];
    memcpy(qd + 3, w, sizeof w);
}

/* A <key>: its name (MuJoCo's keys may have none: "key<index>") and its joint
 * state and controls in torpor's layout (the joints in MJCF's order, which the
 * scene's joints keep: it is also torpor's joint_q order). */
static int read_key(mjcf *m, xmlNodePtr node, int index, int nq, int nv)
{
    check_attrs(m, node, "name time qpos qvel act ctrl mpos mquat");
    static const char *const ignored[] = {"time", "act", "mpos", "mquat"};
    static const char *const why[] = {"a reset starts at time 0 s", "torpor's actuators have no activation state",
                                      "torpor has no mocap bodies", "torpor has no mocap bodies"};
    for (int i = 0; i < 4; ++i) {
        char *v = xi_attr(node, ignored[i]);
        if (v) xi_warn(m->x, "key", "%s ignored (%s)", ignored[i], why[i]);
        xmlFree(v);
    }
    mj_key k;
    memset(&k, 0, sizeof k);
    char *name = xi_attr(node, "name");
    char auto_name[32];
    snprintf(auto_name, sizeof auto_name, "key%d", index);
    k.name = dup_or(name, auto_name);
    xmlFree(name);
    double *qpos = calloc((size_t)nq + 1, sizeof *qpos), *qvel = calloc((size_t)nv + 1, sizeof *qvel);
    k.q = calloc((size_t)nq + 1, sizeof *k.q);
    k.qd = calloc((size_t)nv + 1, sizeof *k.qd);
    k.ctrl = calloc((size_t)m->act_count + 1, sizeof *k.ctrl);
    int ok = k.name && qpos && qvel && k.q && k.qd && k.ctrl, got_q = 0, got_c = 0;
    if (!ok) xi_oom(m->x);
    if (ok && nq) ok = get_nums(m, node, -1, 0, "qpos", qpos, nq, &got_q);
    if (ok && nv) ok = get_nums(m, node, -1, 0, "qvel", qvel, nv, NULL);
    if (ok && m->act_count) ok = get_nums(m, node, -1, 0, "ctrl", k.ctrl, m->act_count, &got_c);
    for (int i = 0, iq = 0, iv = 0; ok && i < m->joint_count; iq += nq_of(m->joints[i].type), iv += nv_of(m->joints[i].type), ++i) {
        if (!got_q) joint_qpos0(m, &m->joints[i], qpos + iq);
        joint_state(m, &m->joints[i], qpos + iq, qvel + iv, k.q + iq, k.qd + iv);
    }
    k.has_ctrl = got_c;
    free(qpos);
    free(qvel);
    if (ok && !grow_array((void **)&m->keys, m->key_count, sizeof *m->keys)) ok = xi_oom(m->x);
    if (ok) m->keys[m->key_count++] = k;
    else free(k.name), free(k.q), free(k.qd), free(k.ctrl);
    return ok;
}

static int read_keyframe(mjcf *m, xmlNodePtr node)
{
    int nq = 0, nv = 0;
    for (int i = 0; i < m->joint_count; ++i) nq += nq_of(m->joints[i].type), nv += nv_of(m->joints[i].type);
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (xi_is(c, "key")) {
            if (!read_key(m, c, m->key_count, nq, nv)) return 0;
        } else if (c->type == XML_ELEMENT_NODE) {
            return xi_fail(m->x, c, NULL, "element not supported in <keyframe>");
        }
    return 1;
}

/* ---------------------------------------------------------------- actuators, contact */

static int find_joint(const mjcf *m, const char *name)
{
    for (int i = 0; i < m->joint_count; ++i)
        if (strcmp(m->joints[i].name, name) == 0) return i;
    return -1;
}

static int read_actuator(mjcf *m, xmlNodePtr node, int kind)
{
    check_attrs(m, node, "name class joint tendon gear ctrllimited ctrlrange forcelimited forcerange kp kv gainprm biasprm "
                         "gaintype biastype dyntype group user");
    int cls;
    if (!element_class(m, node, 0, &cls)) return 0;
    mj_actuator a;
    memset(&a, 0, sizeof a);
    a.node = node;
    a.kind = kind;
    a.gear = 1.0;
    xmlNodePtr where;
    char *tendon = mj_get(m, node, kind, cls, "tendon", &where);
    int on_tendon = tendon != NULL;
    xmlFree(tendon);
    if (on_tendon) return xi_fail(m->x, where, "tendon", "tendon transmissions are not supported (torpor has no tendons)");
    char *joint = mj_get(m, node, kind, cls, "joint", &where);
    if (!joint) return xi_fail(m->x, node, NULL, "only joint transmissions are read: give \"joint\"");
    a.joint = find_joint(m, joint);
    if (a.joint < 0) xi_fail(m->x, where, "joint", "unknown joint \"%s\"", joint);
    xmlFree(joint);
    if (a.joint < 0) return 0;
    if (m->joints[a.joint].type != J_HINGE && m->joints[a.joint].type != J_SLIDE)
        return xi_fail(m->x, node, "joint", "joint \"%s\" is not a hinge or a slide", m->joints[a.joint].name);
    double gear[6] = {1, 0, 0, 0, 0, 0}, kp[1] = {1}, kv[1] = {kind == K_VELOCITY ? 1 : 0};
    int got_c = 0, got_f = 0, cl = 2, fl = 2;
    if (!get_nums(m, node, kind, cls, "gear", gear, -6, NULL) ||
        !get_nums(m, node, kind, cls, "ctrlrange", a.ctrlrange, 2, &got_c) ||
        !get_nums(m, node, kind, cls, "forcerange", a.forcerange, 2, &got_f) ||
        !get_word(m, node, kind, cls, "ctrllimited", bool_words, 3, &cl) ||
        !get_word(m, node, kind, cls, "forcelimited", bool_words, 3, &fl) || !get_nums(m, node, kind, cls, "kp", kp, 1, NULL) ||
        !get_nums(m, node, kind, cls, "kv", kv, 1, NULL))
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
        if (!get_nums(m, node, kind, cls, "gainprm", gp, -10, NULL) || !get_nums(m, node, kind, cls, "biasprm", bp, -10, NULL))
            return 0;
        static const char *const gtypes[] = {"fixed"}, *const btypes[] = {"none", "affine"}, *const dtypes[] = {"none"};
        int gt = 0, bt = 0, dt = 0;
        if (!get_word(m, node, kind, cls, "gaintype", gtypes, 1, &gt) || !get_word(m, node, kind, cls, "biastype", btypes, 2, &bt) ||
            !get_word(m, node, kind, cls, "dyntype", dtypes, 1, &dt))
            return 0;
        a.gain[0] = gp[0];
        if (bt == 1) memcpy(a.bias, bp, sizeof a.bias);
        break;
    }
    }
    char *name = xi_attr(node, "name");
    char auto_name[48];
    snprintf(auto_name, sizeof auto_name, "actuator%d", m->act_count);
    a.name = dup_or(name, auto_name);
    xmlFree(name);
    if (!a.name || !grow_array((void **)&m->acts, m->act_count, sizeof *m->acts)) { free(a.name); return xi_oom(m->x); }
    m->acts[m->act_count++] = a;
    return 1;
}

static int read_actuators(mjcf *m, xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        int kind = K_MOTOR;
        while (kind <= K_GENERAL && !xi_is(c, kind_tags[kind])) ++kind;
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
    check_attrs(m, node, "name class group limited range solreflimit solimplimit solreffriction solimpfriction "
                         "frictionloss springlength width material margin stiffness damping armature rgba user "
                         "actuatorfrclimited actuatorfrcrange");
    int cls, limited = 2, got_range = 0;
    double range[2] = {0, 0};
    if (!element_class(m, node, 0, &cls) || !get_word(m, node, K_TENDON, cls, "limited", bool_words, 3, &limited) ||
        !get_nums(m, node, K_TENDON, cls, "range", range, 2, &got_range))
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
        char *text = mj_get(m, node, K_TENDON, cls, effects[i], &where);
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

static int read_tendons(mjcf *m, xmlNodePtr node)
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

static int read_contact(mjcf *m, xmlNodePtr node)
{
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!xi_is(c, "exclude"))
            return xi_fail(m->x, c, NULL, "not supported (torpor reads <exclude>; explicit contact pairs are not built)");
        check_attrs(m, c, "name body1 body2");
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

/* ---------------------------------------------------------------- the scene */

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

static int build_scene(mjcf *m, json_t *scene)
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
static int build_sites(mjcf *m, json_t *scene)
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
static int build_keyframes(mjcf *m, json_t *scene)
{
    if (m->key_count == 0) return 1;
    int nq = 0, nv = 0;
    for (int i = 0; i < m->joint_count; ++i) nq += nq_of(m->joints[i].type), nv += nv_of(m->joints[i].type);
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
static int build_actuators(mjcf *m, json_t *scene)
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

/* ---------------------------------------------------------------- top level */

static int read_top(mjcf *m, json_t *scene)
{
    /* compiler and defaults first: they shape everything else */
    for (int i = 0; i < m->top.count; ++i) {
        xmlNodePtr c = m->top.items[i];
        if (xi_is(c, "compiler") && !read_compiler(m, c)) return 0;
    }
    for (int i = 0; i < m->top.count; ++i) {
        xmlNodePtr c = m->top.items[i];
        if (xi_is(c, "default") && !read_default(m, c, -1)) return 0;
        if (xi_is(c, "option") && !read_option(m, c, scene)) return 0;
    }
    for (int i = 0; i < m->top.count; ++i)
        if (xi_is(m->top.items[i], "asset") && !read_meshes(m, m->top.items[i])) return 0;
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
            if (xi_is(e, "body")) ok = walk_body(m, e, -1, &origin, 0);
            else if (xi_is(e, "geom")) ok = element_class(m, e, 0, &cls) && read_geom(m, e, cls, -1, &origin);
            else if (xi_is(e, "site")) ok = element_class(m, e, 0, &cls) && read_site(m, e, cls, -1);
            else if (xi_is(e, "camera") || xi_is(e, "light"))
                xi_warn(m->x, (const char *)e->name, "ignored (torpor has no %ss)", (const char *)e->name);
            else ok = xi_fail(m->x, e, NULL, "element not supported in <worldbody>");
        }
        xi_list_free(&kids);
        if (!ok) return 0;
    }
    finish_masses(m);
    mark_static(m);
    for (int i = 0; i < m->top.count; ++i) {
        xmlNodePtr c = m->top.items[i];
        const char *n = (const char *)c->name;
        if (xi_is(c, "compiler") || xi_is(c, "default") || xi_is(c, "option") || xi_is(c, "worldbody") ||
            xi_is(c, "size"))
            continue;
        if (xi_is(c, "actuator")) { if (!read_actuators(m, c)) return 0; }
        else if (xi_is(c, "contact")) { if (!read_contact(m, c)) return 0; }
        else if (xi_is(c, "keyframe")) { if (!read_keyframe(m, c)) return 0; }
        else if (xi_is(c, "asset")) {
            for (xmlNodePtr a = c->children; a; a = a->next)
                if (a->type == XML_ELEMENT_NODE && !xi_is(a, "mesh"))
                    xi_warn(m->x, (const char *)a->name, "ignored (visual only)");
        } else if (xi_is(c, "tendon")) {
            if (!read_tendons(m, c)) return 0;
        }
        else if (xi_is(c, "sensor") || xi_is(c, "visual") || xi_is(c, "statistic") || xi_is(c, "custom"))
            xi_warn(m->x, n, "ignored (torpor has no %s)", n);
        else
            return xi_fail(m->x, c, NULL, "element not supported: it would change the model's dynamics");
    }
    if (worldbodies == 0) return xi_fail(m->x, m->root, NULL, "no <worldbody>");
    return build_scene(m, scene) && build_actuators(m, scene) && build_sites(m, scene) && build_keyframes(m, scene);
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
