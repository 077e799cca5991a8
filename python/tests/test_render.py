"""Pictures of worlds as RGB arrays (Batch.render, tp_batch_render) and the envs' rgb_array mode."""
import subprocess

import numpy as np
import pytest

import torpor


def red_pixels(img):
    """Pixels of the awake red under any shade the renderer gives a face (0.62 to 1 times the colour)."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    return int(((r > 120) & (g < 0.3 * r) & (b < 0.3 * r)).sum())


def grey_pixels(img):
    """Pixels of the sleeping grey (0.66) under any shade: r = g = b in [100, 170]."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    return int(((abs(r - g) <= 2) & (abs(g - b) <= 2) & (r >= 100) & (r <= 170)).sum())


def test_render_shape_dtype_and_colours_by_sleep_state(tower):
    batch = torpor.Batch(tower, 4)
    grid = batch.render(200, 150, [0, 3])
    assert grid.shape == (150, 200, 3) and grid.dtype == np.uint8
    assert grid.std() > 20, "not blank"
    img = batch.render(200, 150, [3])[3:-3, 3:-3]  # one cell, inside its grey outline
    assert red_pixels(img) > 500 and grey_pixels(img) < 20, "every cube is awake at the start (a few blended edge pixels aside)"
    batch.step(120)  # the tower settles and sleeps within 2 s
    assert (batch.state().awake_count == 0).all()
    img = batch.render(200, 150, [3])[3:-3, 3:-3]
    assert red_pixels(img) < 20 and grey_pixels(img) > 500, "asleep: grey"


def test_render_is_deterministic_and_follows_the_state(tower):
    a, b = torpor.Batch(tower, 2, seed=4), torpor.Batch(tower, 2, seed=4)
    box = [-3, -3, 0, 6, 3, 10]
    assert np.array_equal(a.render(160, 120, [1], view_box=box), b.render(160, 120, [1], view_box=box))
    assert np.array_equal(a.render(160, 120, [1], labels=True, title="t"), a.render(160, 120, [1], labels=True, title="t"))
    before = a.render(160, 120, [1], view_box=box)
    push = np.zeros((2, a.bodies, 3), np.float32)
    push[:, 10, 0] = 3.0  # the top cube
    a.apply_impulses(push)
    a.step(30)
    assert not np.array_equal(a.render(160, 120, [1], view_box=box), before), "the picture moves with the bodies"


def test_render_errors_name_the_value(tower):
    batch = torpor.Batch(tower, 2)
    with pytest.raises(torpor.InvalidArgumentError, match="size 8 x 100"):
        batch.render(8, 100)
    with pytest.raises(torpor.InvalidArgumentError, match=r"worlds\[1\] = 2"):
        batch.render(64, 64, [0, 2])
    with pytest.raises(torpor.InvalidArgumentError, match="view_box axis 2"):
        batch.render(64, 64, view_box=[0, 0, 1, 1, 1, 0])
    with pytest.raises(ValueError, match="shape"):
        batch.render(64, 64, view_box=[0, 0, 1])


def test_topple_env_rgb_array():
    gym = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env
    from torpor.envs import ToppleEnv, ToppleVecEnv

    env = ToppleVecEnv(3, render_mode="rgb_array", render_size=(96, 72))
    assert env.metadata["render_modes"] == ["rgb_array"]
    env.reset(seed=2)
    frames = env.render()
    assert len(frames) == 3 and all(f.shape == (72, 96, 3) and f.dtype == np.uint8 for f in frames)
    assert all(f.std() > 20 for f in frames)
    again = ToppleVecEnv(3, render_mode="rgb_array", render_size=(96, 72))
    again.reset(seed=2)
    assert all(np.array_equal(f, g) for f, g in zip(frames, again.render())), "same seed, same frames"
    env.step(np.array([10, 0, 0]))
    moved = env.render()
    assert not np.array_equal(moved[0], frames[0]), "the pushed tower's frame changes"
    assert ToppleVecEnv(2).render() is None
    single = ToppleEnv(render_mode="rgb_array", max_steps=5)
    check_env(single)  # Gymnasium's own render checks included
    assert gym is not None


def test_mjcf_task_rgb_array_and_record_video(tmp_path):
    """An imported MuJoCo task renders per-world frames that follow the robot, and
    Gymnasium's RecordVideo wrapper writes a video of the single form (ffprobe
    reads its frame count and size)."""
    gym = pytest.importorskip("gymnasium")
    from gymnasium.wrappers import RecordVideo
    from torpor.envs.locomotion import HopperEnv, HopperVecEnv

    env = HopperVecEnv(2, render_mode="rgb_array", render_size=(96, 72))
    env.reset(seed=3)
    frames = env.render()
    assert len(frames) == 2 and all(f.shape == (72, 96, 3) and f.dtype == np.uint8 for f in frames)
    assert all(f.std() > 5 for f in frames), "a blank frame"
    for _ in range(40):  # the hopper falls under zero action: its picture changes
        env.step(np.zeros((2, 3), np.float32))
    assert not np.array_equal(env.render()[0], frames[0])
    env.close()

    single = RecordVideo(HopperEnv(render_mode="rgb_array", render_size=(96, 72)), str(tmp_path),
                         episode_trigger=lambda e: True, disable_logger=True)
    single.reset(seed=1)
    for _ in range(20):
        single.step(np.zeros(3, np.float32))
    single.close()
    videos = sorted(tmp_path.glob("*.mp4"))
    assert videos, "RecordVideo wrote no file"
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                            "stream=width,height,nb_read_frames", "-of", "csv=p=0", str(videos[0])],
                           capture_output=True, text=True, check=True)
    width, height, count = (int(v) for v in probe.stdout.strip().split(","))
    assert (width, height) == (96, 72) and count == 21, probe.stdout  # the reset's frame and 20 steps
    assert gym is not None
