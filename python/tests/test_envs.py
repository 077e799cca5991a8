"""The Gymnasium environments of torpor.envs."""
import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from torpor.envs import ToppleEnv, ToppleVecEnv  # noqa: E402


def test_single_env_passes_gymnasium_checker():
    env = ToppleEnv(max_steps=5)
    check_env(env, skip_render_check=True)
    env.close()


def test_vector_env_spaces_rewards_and_autoreset():
    env = ToppleVecEnv(4, max_steps=3)
    obs, info = env.reset(seed=3)
    assert obs.shape == (4, 30) and obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert np.abs(obs).max() < 0.1, "a fresh tower stands upright"
    actions = np.array([0, 1, 0, 10])
    assert env.action_space.contains(actions)
    obs, reward, terminated, truncated, _ = env.step(actions)
    assert list(reward) == [0.0, -1.0, 0.0, -1.0] and not terminated.any() and not truncated.any()
    for _ in range(2):
        obs, reward, terminated, truncated, _ = env.step(np.zeros(4, int))
    assert truncated.all(), "max_steps = 3 truncates every episode"
    episodes = env.batch.episodes.copy()
    obs, reward, terminated, truncated, _ = env.step(np.full(4, 5))  # the autoreset step: actions ignored
    assert (env.batch.episodes == episodes + 1).all() and (reward == 0).all() and np.abs(obs).max() < 0.1
    with pytest.raises(ValueError):
        env.step(np.full(4, 11))
    env.close()


def test_reset_seed_is_reproducible():
    a, b = ToppleVecEnv(3), ToppleVecEnv(3)
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    assert oa.tobytes() == ob.tobytes()
    for _ in range(3):
        oa = a.step(np.array([7, 0, 3]))[0]
        ob = b.step(np.array([7, 0, 3]))[0]
    assert oa.tobytes() == ob.tobytes()
    assert a.reset()[0].tobytes() != oa.tobytes()


def test_strong_pushes_topple_the_tower():
    env = ToppleVecEnv(2, impulse=8.0, max_steps=40)
    env.reset(seed=1)
    toppled = np.zeros(2, bool)
    for t in range(30):
        _, reward, terminated, _, _ = env.step(np.full(2, 5 if t % 3 == 0 else 0))
        toppled |= terminated
        assert (reward[terminated] == 10.0 - (t % 3 == 0)).all()
    assert toppled.all(), "pushing the middle of the tower every 0.5 s should bring it down within 5 s"
    env.close()
