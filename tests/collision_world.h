/* collision_world.h - a hand-built world for the collision tests: body table
 * and state arrays on the heap, wired into a tp_world as a batch would. */
#ifndef TP_TEST_COLLISION_WORLD_H
#define TP_TEST_COLLISION_WORLD_H

#include "collision.h"
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

#endif
