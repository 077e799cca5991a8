/* mjcf_geoms.c - MJCF's meshes and geoms: each geom's mass into its body's
 * sum and, if it collides, its torpor shape into the body's shapes
 * (csrc/import_geoms.c makes the shapes); world geoms as static bodies. */
#define _DEFAULT_SOURCE /* strdup under -std=c11 */
#include "mjcf_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* <asset><mesh name file scale>: the file must be readable. */
int mjcf_read_meshes(mjcf *m, xmlNodePtr asset)
{
    for (xmlNodePtr c = asset->children; c; c = c->next) {
        if (!xi_is(c, "mesh")) continue;
        mjcf_check_attrs(m, c, "name class file scale content_type inertia maxhullvert refpos refquat smoothnormal");
        int cls;
        if (!mjcf_element_class(m, c, 0, &cls)) return 0;
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
        if (readable && !mjcf_get_nums(m, c, K_MESH, cls, "scale", mesh.scale, 3, NULL)) readable = 0;
        if (!readable || !mesh.name || !mjcf_grow_array((void **)&m->meshes, m->mesh_count, sizeof *m->meshes)) {
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
    char *name = mjcf_get(m, node, K_GEOM, cls, "mesh", &where);
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
int mjcf_read_geom(mjcf *m, xmlNodePtr node, int cls, int b, const fr_pose *world)
{
    mjcf_check_attrs(m, node, "name class type size pos quat axisangle euler xyaxes zaxis fromto density mass friction "
                         "contype conaffinity group rgba material condim margin gap solref solimp solmix priority "
                         "user mesh fitscale fluidshape fluidcoef shellinertia");
    ig_geom g;
    memset(&g, 0, sizeof g);
    int type = 1; /* sphere */
    xmlNodePtr where;
    char *tname = mjcf_get(m, node, K_GEOM, cls, "type", &where);
    if (tname) {
        int found = -1;
        for (int i = 0; i < IG_KIND_COUNT; ++i)
            if (strcmp(tname, mjcf_geom_types[i]) == 0) found = i;
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
    if (!mjcf_read_frame(m, node, K_GEOM, cls, &g.pose)) return 0;
    double size[3] = {0, 0, 0}, ft[6];
    int nsize = 0, nft = 0;
    if (!mjcf_get_nums(m, node, K_GEOM, cls, "size", size, -3, &nsize)) return 0;
    if (!mjcf_get_nums(m, node, K_GEOM, cls, "fromto", ft, 6, &nft)) return 0;
    if (nft && (g.kind == IG_SPHERE || g.kind == IG_PLANE || g.kind == IG_MESH))
        return xi_fail(m->x, node, "fromto", "a %s takes no fromto", mjcf_geom_types[type]);
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
        return xi_fail(m->x, node, "size", "a %s needs %d size value%s, got %d", mjcf_geom_types[type], need[type],
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
    if (!mjcf_get_nums(m, node, K_GEOM, cls, "mass", mass, 1, &has_mass)) return 0;
    if (!mjcf_get_nums(m, node, K_GEOM, cls, "density", density, 1, NULL)) return 0;
    double gm = has_mass ? mass[0] : density[0] * (g.kind == IG_MESH ? hull_volume : ig_volume(&g));
    if (gm < 0) return xi_fail(m->x, node, has_mass ? "mass" : "density", "must be >= 0, got %g", has_mass ? mass[0] : density[0]);
    /* collision */
    double ct[1] = {1}, ca[1] = {1}, fr[3] = {1, 0.005, 0.0001};
    if (!mjcf_get_nums(m, node, K_GEOM, cls, "contype", ct, 1, NULL)) return 0;
    if (!mjcf_get_nums(m, node, K_GEOM, cls, "conaffinity", ca, 1, NULL)) return 0;
    if (!mjcf_get_nums(m, node, K_GEOM, cls, "friction", fr, -3, NULL)) return 0;
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
