/* collision_world.h - a hand-built world for the collision tests: body table
 * and state arrays on the heap, wired into a tp_world as a batch would. */
#ifndef TP_TEST_COLLISION_WORLD_H
#define TP_TEST_COLLISION_WORLD_H

#include "collision.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_world {
    tp_world wd;
    tp_body_model *model;
    float *pos, *quat, *friction;
    uint8_t *flags, *sleep_state;
    int n;
} test_world;

static inline void test_world_init(test_world *t, int capacity, int index)
{
    memset(t, 0, sizeof *t);
    t->model = calloc((size_t)capacity, sizeof *t->model);
    t->pos = calloc((size_t)capacity * 3, sizeof(float));
    t->quat = calloc((size_t)capacity * 4, sizeof(float));
    t->friction = calloc((size_t)capacity, sizeof(float));
    t->flags = calloc((size_t)capacity, 1);
    t->sleep_state = calloc((size_t)capacity, 1);
    t->wd.index = index;
    t->wd.model = t->model;
    t->wd.pos = t->pos;
    t->wd.quat = t->quat;
    t->wd.friction = t->friction;
    t->wd.flags = t->flags;
    t->wd.sleep_state = t->sleep_state;
}

static inline void test_world_free(test_world *t)
{
    free(t->model);
    free(t->pos);
    free(t->quat);
    free(t->friction);
    free(t->flags);
    free(t->sleep_state);
}

/* Add a body; returns its index. */
static inline int test_world_add(test_world *t, int type, int shape, float sx, float sy, float sz, tp_vec3 p, tp_quat q)
{
    int b = t->n++;
    tp_body_model *m = &t->model[b];
    m->type = (uint8_t)type;
    m->shape = (uint8_t)shape;
    m->size[0] = sx;
    m->size[1] = sy;
    m->size[2] = sz;
    tp_shape_mass_props(shape, m->size, 1000.0f, &m->mass, m->com, m->inertia);
    m->friction = 0.6f;
    m->restitution = 0.0f;
    m->bound_radius = tp_shape_bound_radius(shape, m->size);
    t->friction[b] = 0.6f;
    tp_v3_store(t->pos + 3 * b, p);
    tp_q_store(t->quat + 4 * b, q);
    t->wd.bodies = t->n;
    return b;
}

/* Deterministic pseudo-random numbers for scenes (64-bit LCG, Knuth MMIX). */
static inline double test_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/* Unit quaternion from a small random rotation vector (angle <= max_angle). */
static inline tp_quat test_rand_quat(uint64_t *state, double max_angle)
{
    double x = test_rand(state) - 0.5, y = test_rand(state) - 0.5, z = test_rand(state) - 0.5;
    double a = max_angle * test_rand(state), l = sqrt(x * x + y * y + z * z) + 1e-12;
    double s = sin(0.5 * a) / l;
    return tp_q((float)(x * s), (float)(y * s), (float)(z * s), (float)cos(0.5 * a));
}

/* A static ground and `n` dynamic bodies of mixed shapes on a jittered grid of
 * `cols` columns with 1 m spacing, two layers high, tilted a little, so that
 * neighbours touch, penetrate or miss each other. */
static inline void test_world_scene(test_world *t, int n, int cols, uint64_t seed)
{
    uint64_t st = seed;
    test_world_add(t, TP_BODY_STATIC, TP_SHAPE_BOX, 200.0f, 200.0f, 1.0f, tp_v3(0, 0, -0.5f), tp_q_identity());
    for (int i = 0; i < n; ++i) {
        int cell = i / 2, layer = i % 2;
        int shape = (int)(test_rand(&st) * 6.0);
        float sx = (float)(0.5 + 0.5 * test_rand(&st)), sy = (float)(0.5 + 0.5 * test_rand(&st));
        float sz = (float)(0.5 + 0.5 * test_rand(&st));
        if (shape == TP_SHAPE_CAPSULE && sx < sy) sx = sy + 0.1f;
        tp_vec3 p = tp_v3((float)(cell % cols) + (float)(0.3 * (test_rand(&st) - 0.5)),
                          (float)(cell / cols) + (float)(0.3 * (test_rand(&st) - 0.5)),
                          0.45f + 0.9f * (float)layer + (float)(0.1 * (test_rand(&st) - 0.5)));
        test_world_add(t, TP_BODY_DYNAMIC, shape, sx, sy, sz, p, test_rand_quat(&st, 0.6));
    }
}

#endif
