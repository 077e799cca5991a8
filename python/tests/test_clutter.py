"""The clutter task (torpor.envs.clutter): scene, spaces, same bits at any world
count and thread count, and that most objects sleep while the arm works."""
import json
from pathlib import Path

import numpy as np
from gymnasium.utils.env_checker import check_env

from torpor.envs.clutter import ClutterEnv, ClutterVecEnv, clutter_scene, push_policy, scene_text

ROOT = Path(__file__).resolve().parents[2]


def test_scene_file_is_the_generated_scene():
    assert (ROOT / "scenes" / "clutter_arm.json").read_text() == scene_text(clutter_scene())
    scene = json.loads((ROOT / "scenes" / "clutter_arm.json").read_text())
    objects = [b for b in scene["bodies"] if not b.get("static") and not b["name"].startswith("link")]
    kinds = {b.get("shape", "box") for b in objects}
    assert len(objects) >= 100 and kinds == {"box", "ball", "cylinder"}
    assert sum(b["name"] == "marked" for b in objects) == 1
    assert scene["joints"][0]["parent"] == "world"  # a fixed base


def test_single_form_passes_gymnasium_checker():
    env = ClutterEnv(max_episode_steps=None)
    check_env(env, skip_render_check=True)
    env.close()


def run(worlds, steps, threads=0, seed=7, episode=12):
    env = ClutterVecEnv(worlds, seed=seed, threads=threads, max_episode_steps=episode)
    obs, _ = env.reset(seed=seed)
    awake = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(np.nan_to_num(push_policy(obs)))
        awake.append(info["awake_fraction"])
    return env, obs, np.array(awake)


def test_same_bits_at_any_world_count_and_thread_count():
    """World w's trajectory (goals, pushes, an autoreset at step 12) hashes the
    same in batches of 1, 3 and 5 worlds and on 1 or 2 threads."""
    one, _, _ = run(1, 15)
    three, _, _ = run(3, 15)
    five, _, _ = run(5, 15, threads=1)
    five2, _, _ = run(5, 15, threads=2)
    assert one.batch.world_hash(0) == three.batch.world_hash(0)
    for w in range(3):
        assert three.batch.world_hash(w) == five.batch.world_hash(w)
    assert five.batch.state_hash() == five2.batch.state_hash()
    assert three.batch.world_hash(0) != three.batch.world_hash(1), "worlds draw different goals"


def test_most_objects_sleep_while_the_arm_works():
    """After the 0.5 s quiet time (8 steps of 4/60 s) fewer than a quarter of
    the bodies are awake although every arm is pushing; with sleep off all are."""
    env, obs, awake = run(8, 20, episode=200)
    moved = np.abs(env.batch.joint_qd).max(axis=1)
    assert (moved > 0.05).all() or env.batch.state().faults.any(), "every arm moves"
    assert awake[10:].mean() < 0.25, awake.mean(axis=1)
    off = ClutterVecEnv(2, sleep=False, seed=7)
    off.reset(seed=7)
    _, _, _, _, info = off.step(np.zeros((2, 2), np.float32))
    assert (info["awake_fraction"] == 1.0).all()


def test_finger_on_a_sleeping_box_stays_finite():
    """World 4 of this run pushed its finger into a sleeping box with a friction
    tangent the arm's vertical hinges cannot move along; that row's effective mass
    was infinite and the world turned non-finite at env-step 8 (a fault the env
    truncates). Every world stays finite over 40 env-steps of the scripted policy."""
    env = ClutterVecEnv(5, seed=1, max_episode_steps=None)
    obs, _ = env.reset(seed=1)
    for step in range(40):
        obs, _, _, truncated, _ = env.step(push_policy(obs))
        faults = np.asarray(env.batch.state().faults)
        assert not faults.any() and not truncated.any(), f"env-step {step}: worlds {np.flatnonzero(faults)} faulted"
        assert np.isfinite(obs).all()
    env.close()
