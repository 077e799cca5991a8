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
    uint32_t reserved;         /* zero; makes the 96-byte record free of uninitialised padding */
} tp_contact;

#endif
