/* robot_randomize.c - the host side of the per-world randomization of
 * articulations (docs/articulations.md, "Randomization"): the reset's input,
 * its initial joint state and controls the model's or a keyframe's (the
 * draws themselves: kernels/robot_randomize.h, run by both backends),
 * the link scale arrays: csrc/articulation_world.c, their batched setter:
 * csrc/writes_batched.c; the link COM offsets' setter: csrc/link_coms.c. The
 * other per-world robot parameters: csrc/robot_params.c. */
#include "articulation_host.h"
#include "batch.h"


tp_artic_initial tp_artic_batch_initial(const tp_batch *b)
{
    const tp_artic_host *h = b->model->artic;
    const tp_randomize_def *d = &b->model->def.randomize;
    int key = b->reset_keyframe >= 0 ? b->reset_keyframe : b->model->start_keyframe;
    const tp_keyframe_def *k = key >= 0 ? &b->model->keyframes.defs[key] : NULL;
    tp_artic_initial init = {k ? k->q : h->q0, k ? k->qd : h->qd0, h->target_q0, h->target_qd0, k ? k->ctrl : NULL, {0}};
    tp_robot_randomize *r = &init.robot;
    r->seed = b->seed;
    r->first_world = (uint32_t)b->first_world;
    r->joint_q_noise = d->joint_q_noise;
    r->joint_qd_noise = d->joint_qd_noise;
    r->joint_noise_normal = d->joint_noise_normal;
    r->scale_mass = d->mass_scale[0] != 1.0f || d->mass_scale[1] != 1.0f;
    r->mass_scale[0] = d->mass_scale[0];
    r->mass_scale[1] = d->mass_scale[1];
    for (int k = 0; k < 3; ++k) r->com_offset[k] = d->link_com_offset[k];
    const float *scales[6] = {d->joint_damping_scale, d->joint_armature_scale, d->joint_friction_scale,
                              d->actuator_gear_scale, d->actuator_kp_scale, d->actuator_kv_scale};
    for (int c = 0; c < 6; ++c) {
        r->param_scale[c][0] = scales[c][0];
        r->param_scale[c][1] = scales[c][1];
    }
    r->added_of = h->added_of;
    r->actuator_type = h->act_type;
    return init;
}
