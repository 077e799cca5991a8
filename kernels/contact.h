/* contact.h - one contact point, as the narrowphase writes it and the solver
 * reads it.
 *
 * A manifold of up to four contact points is written as up to four tp_contact
 * records that share body_a, body_b and normal. Frames: the normal is in the
 * world frame; the two points are each in their own body's frame, relative to
 * the body origin (the centre of the shape's box, NOT the centre of mass; the
 * solver subtracts tp_body_model.com), so they stay attached to the bodies while
 * the bodies move during substeps. */
#ifndef TP_CONTACT_H
#define TP_CONTACT_H

#include <stdint.h>

typedef struct tp_contact {
    uint64_t key;              /* contact key (contact_sort.h); TP_CONTACT_KEY_SENTINEL when unused */
    int32_t body_a, body_b;    /* body indices within the world, body_a < body_b */
    float normal[3];           /* world frame, unit, pointing from A to B */
    float separation;          /* m along normal between the two points, negative when penetrating;
                                  up to the speculative margin (TP_CONTACT_MARGIN) when apart */
    float local_a[3];          /* contact point on A's surface, A's body frame, relative to A's origin (m) */
    float local_b[3];          /* contact point on B's surface, B's body frame, relative to B's origin (m) */
    uint32_t feature;          /* feature id (17 bits), equal from step to step while the same
                                  features touch; layout in narrowphase.h */
    float friction;            /* combined: sqrt(friction_a * friction_b) */
    float restitution;         /* combined: max(restitution_a, restitution_b) */
    float normal_impulse;      /* N s, solver accumulator, zeroed by the narrowphase */
    float tangent_impulse[2];  /* N s, solver accumulators, zeroed by the narrowphase */
    float normal_force;        /* N, written by the solver: normal impulse summed over the
                                  substeps of the step, divided by dt (0 for skipped rows) */
    float tangent_force[2];    /* N, friction force along the row's tangents t1, t2 */
    uint32_t cache_from;       /* 0, or (between the collide and warm-start stages only) 1 + the index in
                                  last step's buffer of the first point of the reused manifold this point
                                  came from (kernels/contact_cache.h); also makes the 96-byte record free
                                  of uninitialised padding */
} tp_contact;

/* The relative pose a pair's manifold was found at, one per contact point in
 * a buffer beside the contacts (kernels/contact_cache.h). */
typedef struct tp_contact_ref {
    float rel_q[4];    /* B's orientation in A's frame, conj(q_A) q_B, [x, y, z, w] */
    float rel_p[3];    /* B's origin in A's frame, m */
    float normal_a[3]; /* the normal in A's frame */
    int32_t count;     /* the manifold's points (0: never reused) */
} tp_contact_ref;

#endif
