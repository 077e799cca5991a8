/* mjcf_model.h - what the MJCF importer's files share (docs/import.md): the
 * model as read (MuJoCo's conventions: body poses relative to the parent,
 * radii and half sizes, capsules along z, quaternions w x y z), the reading
 * helpers (csrc/mjcf_read.c) and each part's entry points. The files call one
 * way: import_mjcf.c (the top level) -> settings, bodies (-> geoms),
 * actuators, keyframes, scene -> mjcf_read.c. Internal to the library. */
#ifndef TP_MJCF_MODEL_H
#define TP_MJCF_MODEL_H

#include "import_frames.h"
#include "import_geoms.h"
#include "import_xml.h"

#include <stddef.h>

/* Elements a <default> class gives attributes to. Actuator shortcuts share one
 * actuator default in MuJoCo; they are looked up in each other's nodes too. */
enum { K_JOINT, K_GEOM, K_MOTOR, K_POSITION, K_VELOCITY, K_GENERAL, K_MESH, K_TENDON, K_SITE, K_COUNT };

enum { J_FREE, J_BALL, J_SLIDE, J_HINGE };

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

/* ---------------------------------------------------------------- reading helpers (csrc/mjcf_read.c) */

extern const char *const mjcf_kind_tags[K_COUNT]; /* the element of each default kind */
extern const char *const mjcf_joint_types[4];     /* J_* */
extern const char *const mjcf_geom_types[7];      /* ig_kind */
extern const char *const mjcf_bool_words[3];      /* false, true, auto */

/* Room for one more element of `elem` bytes in *p holding `count` (capacity: the next power of two). */
int mjcf_grow_array(void **p, int count, size_t elem);
/* The value of `attr` for `node` (its own, else its class's, kind -1: no
 * defaults; libxml2's string); *where: the element it was written on. */
char *mjcf_get(const mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, xmlNodePtr *where);
/* n numbers of `attr` (n < 0: 1 to -n, count to *got); absent: out untouched, *got 0. */
int mjcf_get_nums(mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, double *out, int n, int *got);
/* A keyword among `names` (index to *out), left as it is when absent. */
int mjcf_get_word(mjcf *m, xmlNodePtr node, int kind, int cls, const char *attr, const char *const *names, int count,
                  int *out);
/* strdup(s), or of fallback when s is NULL. */
char *mjcf_dup_or(const char *s, const char *fallback);
/* Warn about attributes of `node` not in `known` (names separated by spaces). */
void mjcf_check_attrs(mjcf *m, xmlNodePtr node, const char *known);
/* pos and orientation of an element (one of quat, axisangle, euler, xyaxes, zaxis). */
int mjcf_read_frame(mjcf *m, xmlNodePtr node, int kind, int cls, fr_pose *out);
/* Index of the default class `name`, or -1. */
int mjcf_find_class(const mjcf *m, const char *name);
/* The class of an element: its own `class`, else the inherited childclass. */
int mjcf_element_class(mjcf *m, xmlNodePtr node, int inherited, int *out);
/* Coordinates and dofs of a joint type (J_*) in MuJoCo's qpos and qvel. */
int mjcf_nq_of(int type);
int mjcf_nv_of(int type);

/* ---------------------------------------------------------------- the parts */

/* <compiler>, <option> (into the scene's dt and gravity), <default> (csrc/mjcf_settings.c). */
int mjcf_read_compiler(mjcf *m, xmlNodePtr node);
int mjcf_read_option(mjcf *m, xmlNodePtr node, json_t *scene);
int mjcf_read_default(mjcf *m, xmlNodePtr node, int parent);
/* <asset><mesh>; a geom of body b (-1: the world) (csrc/mjcf_geoms.c). */
int mjcf_read_meshes(mjcf *m, xmlNodePtr asset);
int mjcf_read_geom(mjcf *m, xmlNodePtr node, int cls, int b, const fr_pose *world);
/* A <body> and its subtree, a <site> of body b (-1: the worldbody), the
 * bodies' mass properties and which are static (csrc/mjcf_bodies.c). */
int mjcf_walk_body(mjcf *m, xmlNodePtr node, int parent, const fr_pose *parent_world, int childclass);
int mjcf_read_site(mjcf *m, xmlNodePtr node, int cls, int b);
int mjcf_finish_masses(mjcf *m);
void mjcf_mark_static(mjcf *m);
/* <actuator>, <tendon>, <contact> (csrc/mjcf_actuators.c). */
int mjcf_read_actuators(mjcf *m, xmlNodePtr node);
int mjcf_read_tendons(mjcf *m, xmlNodePtr node);
int mjcf_read_contact(mjcf *m, xmlNodePtr node);
/* <keyframe>: every <key> in torpor's layout (csrc/mjcf_keyframes.c). */
int mjcf_read_keyframe(mjcf *m, xmlNodePtr node);
/* The torpor scene's bodies and joints, sites, keyframes, actuators (csrc/mjcf_scene.c). */
int mjcf_build_scene(mjcf *m, json_t *scene);
int mjcf_build_sites(mjcf *m, json_t *scene);
int mjcf_build_keyframes(mjcf *m, json_t *scene);
int mjcf_build_actuators(mjcf *m, json_t *scene);

#endif
