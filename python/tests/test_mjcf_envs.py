"""Gymnasium's MuJoCo v5 tasks on torpor (torpor.envs.classic, torpor.envs.locomotion)
against Gymnasium's own environments on the same MJCF files, the oracle.

Gymnasium's MuJoCo environments, MuJoCo and imageio come from PyPI through
scripts/setup.sh, so a missing one fails these tests instead of skipping them.
"""
import json
import warnings

import gymnasium
import mujoco  # noqa: F401  (Gymnasium's MuJoCo environments need it)
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import torpor
from torpor.envs import classic, locomotion, philox
from torpor.envs.base import ASSETS

TASKS = ["InvertedPendulum", "InvertedDoublePendulum", "Reacher", "Hopper", "HalfCheetah", "Walker2d", "Ant",
         "Humanoid"]


def vec_class(task):
    return getattr(classic, f"{task}VecEnv", None) or getattr(locomotion, f"{task}VecEnv")


def gym_env(task):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gymnasium.make(f"{task}-v5").unwrapped


def start_both(task, qpos, qvel, **kwargs):
    """A one-world torpor env and Gymnasium's, both in the MuJoCo state (qpos, qvel)."""
    env = vec_class(task)(1, **kwargs)
    env.reset(seed=0)
    env.set_state(qpos[None], qvel[None], np.array([0]))
    ref = gym_env(task)
    ref.reset(seed=0)
    ref.set_state(qpos, qvel)
    return env, ref


def test_philox_known_answers():
    # Random123's kat_vectors for philox4x32_10
    x = philox.philox4x32(np.zeros((1, 4), np.uint32), (0, 0))[0]
    assert [hex(v) for v in x] == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]
    x = philox.philox4x32(np.full((1, 4), 0xFFFFFFFF, np.uint32), (0xFFFFFFFF, 0xFFFFFFFF))[0]
    assert [hex(v) for v in x] == ["0x408f276d", "0x41c83b0e", "0xa20bc7c6", "0x6d5451fd"]


@pytest.mark.parametrize("task", TASKS)
def test_spaces_match_gymnasium(task):
    env, ref = vec_class(task)(3), gym_env(task)
    assert env.single_observation_space.shape == ref.observation_space.shape
    assert env.single_observation_space.dtype == np.float64
    assert env.single_action_space.dtype == np.float32
    np.testing.assert_array_equal(env.single_action_space.low, ref.action_space.low)
    np.testing.assert_array_equal(env.single_action_space.high, ref.action_space.high)
    assert env.dt == pytest.approx(ref.dt)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (3,) + ref.observation_space.shape and obs.dtype == np.float64
    assert env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert reward.shape == (3,) and reward.dtype == np.float64
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_ and isinstance(info, dict)
    env.close()


@pytest.mark.parametrize("task", TASKS)
def test_single_form_passes_gymnasium_checker(task):
    env = gymnasium.make(f"torpor/{task}-v0")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_registered_with_gymnasium():
    envs = gymnasium.make_vec("torpor/Ant-v0", num_envs=5)
    assert isinstance(envs, locomotion.AntVecEnv) and envs.num_envs == 5 and envs.max_episode_steps == 1000
    single = gymnasium.make("torpor/Reacher-v0")
    assert single.spec.max_episode_steps == 50 and isinstance(single.unwrapped, classic.ReacherEnv)
    assert all(f"torpor/{t}-v0" in gymnasium.registry for t in TASKS)


def test_joint_order_is_mujocos():
    """The qpos and qvel columns are MuJoCo's: torpor's joints come in MuJoCo's order."""
    for task in TASKS:
        env, ref = vec_class(task)(1), gym_env(task)
        names = [n for j, n in enumerate(env.model.joint_names) if env.model.joint_type(j) != "fixed"]
        m = ref.model
        assert names == [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)], task
        np.testing.assert_allclose(env.init_qpos, ref.init_qpos, atol=1e-6, err_msg=task)


@pytest.mark.parametrize("task", ["Hopper", "Ant", "Reacher"])
def test_reset_is_deterministic_by_seed_and_per_world(task):
    a, b = vec_class(task)(3), vec_class(task)(1)
    o1, _ = a.reset(seed=5)
    o2, _ = a.reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    assert not np.array_equal(o1[0], o1[1]), "each world draws its own noise"
    ob, _ = b.reset(seed=5)
    np.testing.assert_array_equal(ob[0], o1[0])  # world 0 the same at any world count
    o3, _ = a.reset()  # the next episode: new draws
    assert not np.array_equal(o3, o1)
    o4, _ = a.reset(seed=6)
    assert not np.array_equal(o4, o1)


@pytest.mark.parametrize("task", ["Hopper", "HalfCheetah", "Ant", "Humanoid"])
def test_reset_noise_is_gymnasiums(task):
    """qpos - init_qpos uniform in [-s, s] (sd s / sqrt 3); qvel uniform or s N(0, 1), over 2,048 worlds."""
    env = vec_class(task)(2048)
    env.reset(seed=11)
    s = env.reset_noise_scale
    dq = env.qpos() - env.init_qpos
    dv = env.qvel()
    hinge = np.ones(env.nq, bool)
    for qs, _, _ in env._free:
        hinge[qs + 3:qs + 7] = False  # torpor normalizes the noisy quaternion
    assert np.abs(dq[:, hinge]).max() <= s * (1 + 1e-5)
    assert np.abs(dq[:, hinge].mean(axis=0)).max() < 0.1 * s
    assert dq[:, hinge].std(axis=0) == pytest.approx(s / np.sqrt(3), rel=0.1)
    sd = s if env.qvel_noise == "normal" else s / np.sqrt(3)
    assert dv.std(axis=0) == pytest.approx(sd, rel=0.1)


def test_autoreset_next_step():
    env = classic.InvertedPendulumVecEnv(4, max_episode_steps=10)
    env.reset(seed=2)
    push = np.array([[3.0], [0.0], [0.0], [-3.0]], np.float32)  # full motor: worlds 0 and 3 drop the pole
    for t in range(8):
        obs, reward, terminated, truncated, _ = env.step(push)
        if terminated[0]:
            break
    assert terminated[0] and terminated[3] and reward[0] == 0.0, "the terminating step pays no alive bonus"
    assert not terminated[1] and not truncated[1]
    assert np.abs(obs[0, 1]) > 0.2
    episodes = env._episode.copy()
    obs, reward, terminated, truncated, _ = env.step(push)  # worlds 0 and 3 reset, their action ignored
    assert np.abs(obs[[0, 3]]).max() <= 0.01 + 1e-6, "the first observation of the new episode"
    assert list(reward[[0, 3]]) == [0.0, 0.0] and not terminated[[0, 3]].any() and not truncated.any()
    assert list(env._episode - episodes) == [1, 0, 0, 1]
    steps = 0
    while not truncated[1]:
        obs, reward, terminated, truncated, _ = env.step(np.zeros((4, 1), np.float32))
        steps += 1
        assert steps < 10
    assert env._steps[1] == 10 and truncated[1] and not terminated[1] and reward[1] == 1.0


def richardson(task, qpos, qvel, steps):
    """Observations of ``steps`` zero-action steps from (qpos, qvel): MuJoCo's
    and torpor's at the task's step and at a quarter of it (MuJoCo: a quarter
    timestep, 4 x frame_skip; torpor: 4 x substeps), as in test_import.py."""
    out = {}
    scene = json.loads(torpor.import_scene(ASSETS / vec_class(task).asset)[0])
    scene["substeps"] = 16
    fine = torpor.Model.from_json(json.dumps(scene), task)
    for key, kwargs, quarter in (("tp", {}, False), ("tp4", {"model": fine}, False), ("mj", {}, False),
                                 ("mj4", {}, True)):
        env, ref = start_both(task, qpos, qvel, **kwargs)
        if quarter:
            ref.model.opt.timestep /= 4
            ref.frame_skip *= 4
        rows = []
        for _ in range(steps):
            if key.startswith("tp"):
                rows.append(env.step(np.zeros((1, env.nu), np.float32))[0][0])
                env._ended[:] = False  # no autoreset: the comparison goes on past a termination
            else:
                rows.append(ref.step(np.zeros(env.nu))[0])
        out[key] = np.array(rows)
    return out


SMOOTH = {  # task: (state change from init, steps): phases without contacts or joint limits in both
    "InvertedPendulum": ({"qpos": {1: 0.02}}, 15),  # the pole still within the task's 0.2 rad
    "InvertedDoublePendulum": ({"qpos": {1: 0.02}}, 50),
    "Reacher": ({"qvel": {0: 2.0, 1: -3.0}}, 50),
    "Hopper": ({"qvel": {2: 0.3}}, 10),  # falling onto its foot: MuJoCo's first contact at step 11
    "Walker2d": ({"qvel": {2: 0.3}}, 10),
}


@pytest.mark.parametrize("task", sorted(SMOOTH))
def test_first_steps_match_gymnasium(task):
    """Same initial state, zero action, no contact: the observations agree within
    1.5 (e_mj + e_torpor) + 1e-4, each integrator's error estimated by Richardson
    extrapolation (4/3 |x(h) - x(h/4)|), the bound of test_import.py's free motion.

    With contacts the tasks part sooner: MuJoCo's contacts are soft (a
    penetration spring of solref's 20 ms) and torpor's hard, and the MJCF
    joint limits the models start outside of (Ant's ankles at 30-70 degrees,
    Humanoid's knees below -2 degrees, both at 0 in the initial pose) are
    MuJoCo's soft springs and torpor's hard stops (docs/import.md); those are
    bounded by the termination tests below."""
    change, steps = SMOOTH[task]
    ref = gym_env(task)
    qpos, qvel = ref.init_qpos.copy(), ref.init_qvel.copy()
    for k, v in change.get("qpos", {}).items():
        qpos[k] += v
    for k, v in change.get("qvel", {}).items():
        qvel[k] += v
    r = richardson(task, qpos, qvel, steps)
    e_mj = 4.0 / 3.0 * np.abs(r["mj"] - r["mj4"]).max()
    e_tp = 4.0 / 3.0 * np.abs(r["tp"] - r["tp4"]).max()
    diff = np.abs(r["tp"] - r["mj"]).max()
    assert np.abs(r["mj"][-1] - r["mj"][0]).max() > 0.01, "the state moved"
    assert diff <= 1.5 * (e_mj + e_tp) + 1e-4, (diff, e_mj, e_tp)


def test_humanoid_com_terms_match_mujoco():
    """cinert, cvel and the qpos/qvel conversions of a free root against MuJoCo's
    mj_forward on the same state (in the air: no contact forces), float32 rounding."""
    ref = gym_env("Humanoid")
    rng = np.random.default_rng(1)
    qpos, qvel = ref.init_qpos.copy(), rng.uniform(-1, 1, ref.model.nv)
    qpos[2] += 1.0
    qpos[3:7] = [0.9, 0.1, -0.3, 0.2]
    qpos[3:7] /= np.linalg.norm(qpos[3:7])
    env, ref = start_both("Humanoid", qpos, qvel)
    ours, theirs = env._observe()[0], ref._get_obs()
    assert np.abs(theirs[45:253]).max() > 1.0  # cinert and cvel are not trivial here
    np.testing.assert_allclose(ours, theirs, atol=2e-5 * np.abs(theirs).max(), rtol=0)


@pytest.mark.parametrize("col,tilt", [(2, 0.1), (5, 0.1), (4, -0.05)], ids=["pitch", "foot", "leg"])
def test_hopper_falls_as_gymnasiums(col, tilt):
    """Zero action from the initial pose tilted (the torso's pitch, the foot, the
    leg; each within its joint range): the hopper falls and terminates within
    10 % of the step Gymnasium's does, on the same side (pitch past -0.2 or the
    torso below 0.7 m). The margin is the contact models' (soft and hard) share
    of how the foot rolls; from the upright pose with Gymnasium's 5e-3 noise
    alone the fall is the growth of that noise about an unstable balance, and
    the two part more."""
    ref = gym_env("Hopper")
    qpos, qvel = ref.init_qpos.copy(), ref.init_qvel.copy()
    qpos[col] += tilt
    env, ref = start_both("Hopper", qpos, qvel)
    ends = {}
    for step in range(1, 1000):
        if "mj" not in ends and ref.step(np.zeros(3))[2]:
            ends["mj"] = (step, np.sign(ref.data.qpos[2]) if ref.data.qpos[1] > 0.7 else 0)
        if "tp" not in ends and env.step(np.zeros((1, 3), np.float32))[2][0]:
            q = env.qpos()[0]
            ends["tp"] = (step, np.sign(q[2]) if q[1] > 0.7 else 0)
        if len(ends) == 2:
            break
    assert len(ends) == 2, ends
    assert ends["tp"][1] == ends["mj"][1]
    assert abs(ends["tp"][0] - ends["mj"][0]) <= 0.1 * ends["mj"][0], ends


def test_humanoid_falls_as_gymnasiums():
    """Zero action: the humanoid collapses and terminates (torso below 1 m)
    within 10 % of Gymnasium's step, for five of Gymnasium's reset draws."""
    for seed in range(5):
        ref = gym_env("Humanoid")
        ref.reset(seed=seed)
        env, ref = start_both("Humanoid", ref.data.qpos.copy(), ref.data.qvel.copy())
        ends = {}
        for step in range(1, 200):
            if "mj" not in ends and ref.step(np.zeros(17))[2]:
                ends["mj"] = step
            if "tp" not in ends and env.step(np.zeros((1, 17), np.float32))[2][0]:
                ends["tp"] = step
            if len(ends) == 2:
                break
        assert len(ends) == 2 and abs(ends["tp"] - ends["mj"]) <= 0.1 * ends["mj"], (seed, ends)


def moved_ipos_env(task, env, world):
    """Gymnasium's env of the task with each link's body_ipos moved by the torpor world's link COM offset."""
    ref = gym_env(task)
    offsets = env.batch.link_com_offsets()[world].astype(np.float64)
    link_joint = {env.model.joint_def(j)["child"]: j for j in range(env.model.joint_count)}  # a link's offset row
    for k, body in enumerate(env.mj_bodies):
        if body in link_joint:
            ref.model.body_ipos[k + 1] += offsets[link_joint[body]]
            ref.model.body_sameframe[k + 1] = 0  # MuJoCo skips ipos for bodies compiled in their inertial frame
    return ref


@pytest.mark.parametrize("task", ["Humanoid", "Ant", "Reacher"])
def test_observations_follow_per_world_link_com_offsets(task):
    """Per-world link COM offsets (Batch.set_link_com_offsets, a different draw per
    world): each world's qvel conversion, xipos and observation equal MuJoCo's
    mj_forward of the same state with body_ipos moved by that world's offsets (in
    the air: no contact forces), float32 rounding as test_humanoid_com_terms_match_mujoco;
    the root's published COM velocity is MuJoCo's velocity of its moved xipos."""
    ref = gym_env(task)
    rng = np.random.default_rng(3)
    qpos, qvel = ref.init_qpos.copy(), rng.uniform(-1, 1, ref.model.nv)
    if task != "Reacher":
        qpos[2] += 1.0
        qpos[3:7] = [0.9, 0.1, -0.3, 0.2]
        qpos[3:7] /= np.linalg.norm(qpos[3:7])
    env = vec_class(task)(3)
    env.reset(seed=0)
    offsets = rng.uniform(-0.05, 0.05, (3, env.model.joint_count, 3)).astype(np.float32)
    env.batch.set_link_com_offsets(offsets)
    env.set_state(np.tile(qpos, (3, 1)), np.tile(qvel, (3, 1)), np.arange(3))
    ours, xipos, s = env._observe(), env.xipos(env.mj_bodies), env.batch.state()
    moved = []
    for w in range(3):
        ref = moved_ipos_env(task, env, w)
        ref.reset(seed=0)
        ref.set_state(qpos, qvel)
        theirs = ref._get_obs()
        np.testing.assert_allclose(ours[w], theirs, atol=2e-5 * np.abs(theirs).max(), rtol=0)
        np.testing.assert_allclose(env.qvel()[w], ref.data.qvel, atol=2e-5 * np.abs(qvel).max(), rtol=0)
        np.testing.assert_allclose(xipos[w], ref.data.xipos[1:], atol=2e-6 * np.abs(ref.data.xipos).max(), rtol=0)
        if task != "Reacher":
            vel = np.zeros(6)
            mujoco.mj_objectVelocity(ref.model, ref.data, mujoco.mjtObj.mjOBJ_BODY, 1, vel, 0)  # at xipos, world axes
            np.testing.assert_allclose(s.v[w, env.mj_bodies[0]], vel[3:], atol=2e-5 * np.abs(vel).max(), rtol=0)
        moved.append(np.abs(ref.data.xipos[1:] - gym_reference_xipos(task, qpos, qvel)).max())
    assert min(moved) > 1e-3  # the offsets do move MuJoCo's answer: the test would see them ignored


def gym_reference_xipos(task, qpos, qvel):
    ref = gym_env(task)
    ref.reset(seed=0)
    ref.set_state(qpos, qvel)
    return ref.data.xipos[1:].copy()


def test_reset_mask_resets_only_those_worlds():
    """reset(options={"reset_mask": m}) (Gymnasium's option): the masked worlds start
    their next episode, the same draw as a whole-batch reset() gives them; the others
    keep their state bit for bit. Bad options raise ValueError and reset nothing."""
    env, ref = vec_class("Hopper")(4), vec_class("Hopper")(4)
    env.reset(seed=5)
    for _ in range(3):
        env.step(np.full((4, 3), 0.5, np.float32))
    kept = env.batch.joint_q.copy()
    mask = np.array([False, True, False, True])
    obs, _ = env.reset(options={"reset_mask": mask})
    assert env.batch.joint_q[~mask].tobytes() == kept[~mask].tobytes()
    ref.reset(seed=5)
    theirs, _ = ref.reset()  # every world's episode 1
    assert obs[mask].tobytes() == theirs[mask].tobytes()
    for bad in ({"reset_mask": [True, False]}, {"reset_mask": np.ones(4, int)}, {"mask": mask}):
        with pytest.raises(ValueError, match="reset"):
            env.reset(options=bad)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=1, options={"reset_mask": mask})
    assert env.batch.joint_q[~mask].tobytes() == kept[~mask].tobytes()
