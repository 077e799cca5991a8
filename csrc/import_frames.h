/* import_frames.h - pose and mass-property arithmetic of the importers, in
 * double: quaternions are [x, y, z, w] (torpor's order; MJCF's w x y z is
 * reordered where it is read), rotation matrices row-major, inertia tensors
 * [xx, yy, zz, xy, xz, yz] (the tensor's entries, as tp_body_def.inertia).
 * Internal to the library. */
#ifndef TP_IMPORT_FRAMES_H
#define TP_IMPORT_FRAMES_H

#include <stddef.h>

typedef struct fr_pose {
    double pos[3];
    double quat[4]; /* x y z w, unit */
} fr_pose;

void fq_identity(double q[4]);
void fq_mul(const double a[4], const double b[4], double out[4]);
void fq_rotate(const double q[4], const double v[3], double out[3]);
void fq_normalize(double q[4]); /* a zero quaternion becomes the identity */
void fq_axis_angle(const double axis[3], double angle, double out[4]);
/* Rotation matrix (columns: the frame's x, y, z axes) to quaternion. */
void fq_from_matrix(const double r[3][3], double out[4]);
void fq_to_matrix(const double q[4], double r[3][3]);
/* The shortest rotation turning unit vector `from` onto unit vector `to`. */
void fq_between(const double from[3], const double to[3], double out[4]);
/* world = parent * local. */
void fr_compose(const fr_pose *parent, const fr_pose *local, fr_pose *out);
/* local = parent^-1 * world. */
void fr_relative(const fr_pose *parent, const fr_pose *world, fr_pose *out);

/* Accumulated mass properties of a body: mass, mass-weighted position sum and
 * the second moment about the body origin (sum of m_i (|r|^2 E - r r^T) plus
 * each part's own tensor turned into the body frame). */
typedef struct fm_sum {
    double mass;
    double first[3];
    double inertia_origin[6];
} fm_sum;

/* Add a part of mass m, centre c and inertia `diag` about its centre along the
 * axes of rotation q (body frame). */
void fm_add(fm_sum *s, double m, const double c[3], const double q[4], const double diag[3]);
/* Add a part given its full tensor about its centre, body frame. */
void fm_add_full(fm_sum *s, double m, const double c[3], const double full[6]);
/* A tensor [xx, yy, zz, xy, xz, yz] in a frame turned by q, in the outer frame: R T R^T. */
void fm_rotate_tensor(const double q[4], const double t[6], double out[6]);
/* The sum's centre of mass and inertia about it; 0 when the mass is 0. */
int fm_result(const fm_sum *s, double com[3], double inertia[6]);

/* A tensor no rigid body has (not positive definite, or a moment above the sum
 * of the other two): 1 with the reason in why; 0 when it is fine. */
int fm_inertia_impossible(const double t[6], char *why, size_t why_len);

#endif
