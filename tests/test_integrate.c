/* test_integrate.c - free fall and free motion against the integrator's discrete values. */
#include "helpers.h"

#include <math.h>

/* Semi-implicit Euler from rest: after n substeps of length h a body has fallen
 * g h^2 n (n + 1) / 2. Each substep rounds the position once (half an ulp of
 * |z|, about 6e-8 |z|) and the velocity once, so n substeps stay within
 * n ulp(|z|) of that value; we allow 2 n ulp. */
Test(integrate, free_fall_matches_discrete_value_in_every_world)
{
    const float z0 = 100.0f;
    tp_model *m = make_falling_model(2, z0, NULL);
    tp_batch *b = make_batch(m, 8, 2);
    const int steps = 60, substeps = tp_model_settings(m).substeps;
    cr_assert_eq(tp_batch_step(b, steps), TP_OK, "%s", tp_last_error());
    double h = (double)tp_model_settings(m).dt / substeps, n = (double)steps * substeps;
    double fallen = 9.81 * h * h * n * (n + 1.0) / 2.0;
    tp_state_view s;
    cr_assert_eq(tp_batch_state(b, &s), TP_OK);
    for (int w = 0; w < s.worlds; ++w) {
        for (int i = 0; i < s.bodies; ++i) {
            double start = z0 + 2.0 * i;
            double z = s.pos[3 * (w * s.bodies + i) + 2];
            double ulp = (double)nextafterf((float)start, INFINITY) - start;
            double tol = 2.0 * n * ulp;
            cr_assert(fabs((start - z) - fallen) <= tol, "world %d body %d fell %.9g, expected %.9g (tol %.3g)", w, i,
                      start - z, fallen, tol);
            double vz = s.v[3 * (w * s.bodies + i) + 2], expect_v = -9.81 * h * n;
            cr_assert(fabs(vz - expect_v) <= 1e-5 * fabs(expect_v), "vz %.9g expected %.9g", vz, expect_v);
        }
        /* every world is the same bits as world 0 */
        cr_assert_eq(memcmp(s.pos + 3 * w * s.bodies, s.pos, 3 * sizeof(float) * s.bodies), 0);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The pose update of one substep h is q' = normalize(q + h/2 (w, 0) q)
 * (kernels/integrate.h). For a spin w about z and q = (0, 0, sin a, cos a),
 * (w, 0) q = (0, 0, w cos a, -w sin a), so q + h/2 (w, 0) q is (sin a, cos a)
 * turned by atan(w h / 2) and scaled by sqrt(1 + (w h / 2)^2): after n substeps
 * the half-angle is exactly n atan(w h / 2) (the continuous motion gives
 * n w h / 2; the difference, n (w h / 2)^3 / 3, is 6e-7 at 1 rad/s and 2e-4 at
 * 10 rad/s over 1 s). What remains is float rounding: each substep rounds the
 * product, the sum and the normalization, a few units of roundoff u = 2^-24
 * of a unit quaternion, and those errors add over the n substeps; we allow 2 n u
 * per component (2.9e-5 for n = 240), 7 times below the 10 rad/s truncation term
 * that a first-order scheme without the exact discrete form would show. */
static void spin_for_one_second(float wz)
{
    const float g0[3] = {0, 0, 0};
    tp_model *m = make_falling_model(1, 0.0f, g0);
    tp_batch *b = make_batch(m, 1, 1);
    const float v[3] = {1.0f, 0.0f, 0.0f}, w[3] = {0.0f, 0.0f, wz};
    cr_assert_eq(tp_batch_set_velocity(b, 0, 0, v, w), TP_OK);
    const int steps = 60, substeps = tp_model_settings(m).substeps;
    cr_assert_eq(tp_batch_step(b, steps), TP_OK); /* 1 s */
    tp_state_view s;
    tp_batch_state(b, &s);
    double h = (double)tp_model_settings(m).dt / substeps, n = (double)steps * substeps;
    /* x: n additions of v h, each rounded by at most half an ulp of 1 */
    cr_assert(fabs(s.pos[0] - n * h) <= n * 0x1p-24, "x after 1 s at 1 m/s: %.9g", s.pos[0]);
    double half = n * atan(wz * h / 2.0), tol = 2.0 * n * 0x1p-24;
    cr_assert(fabs(s.quat[2] - sin(half)) <= tol, "w %g: qz %.9g, expected %.9g (tol %.3g)", wz, s.quat[2], sin(half),
              tol);
    cr_assert(fabs(s.quat[3] - cos(half)) <= tol, "w %g: qw %.9g, expected %.9g (tol %.3g)", wz, s.quat[3], cos(half),
              tol);
    cr_assert(s.quat[0] == 0.0f && s.quat[1] == 0.0f, "a spin about z stays about z");
    float qn = s.quat[0] * s.quat[0] + s.quat[1] * s.quat[1] + s.quat[2] * s.quat[2] + s.quat[3] * s.quat[3];
    cr_assert(fabsf(qn - 1.0f) <= 4.0f * 0x1p-24f, "|q|^2 = %.9g", qn);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(integrate, zero_gravity_constant_velocity_and_spin)
{
    spin_for_one_second(1.0f);
    spin_for_one_second(10.0f);
}

/* C03: g = 0, a 1 kg body pushed by 0.05 N every step: at t = 2 s, v = 0.1 m/s and x = 0.1 m within 2 %. */
Test(integrate, small_steady_force)
{
    const float g0[3] = {0, 0, 0};
    tp_model *m = make_falling_model(1, 0.0f, g0);
    tp_batch *b = make_batch(m, 1, 1);
    const float f[3] = {0.05f, 0.0f, 0.0f};
    for (int i = 0; i < 120; ++i) {
        cr_assert_eq(tp_batch_apply_force(b, 0, 0, f, NULL), TP_OK);
        cr_assert_eq(tp_batch_step(b, 1), TP_OK);
    }
    tp_state_view s;
    tp_batch_state(b, &s);
    cr_assert(fabsf(s.v[0] - 0.1f) <= 0.002f, "v %g", s.v[0]);
    cr_assert(fabsf(s.pos[0] - 0.1f) <= 0.002f, "x %g", s.pos[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
