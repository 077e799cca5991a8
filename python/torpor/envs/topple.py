"""Gymnasium environments on torpor batches (needs ``gymnasium``).

Task "topple the tower with as few pushes as possible": a tower of ``levels``
unit cubes (1 kg each, randomized in pose, yaw, mass and friction per world and
per episode) stands on the ground. Each environment step the agent either waits
(action 0) or pushes cube k - 1 (action k, counted from the bottom) with a
horizontal impulse of ``impulse`` N s along +x at its centre; then ``frame_skip``
physics steps run (dt = 1/60 s). The tower counts as toppled when no cube's
centre is above half the tower's height.

- observation: (levels, 3) float32 -> flattened (3 * levels,): each cube's position
  minus its place in the upright tower, m;
- reward: -1 per push, +10 when the tower topples;
- terminated: toppled; truncated: after ``max_steps`` environment steps.

``render_mode="rgb_array"``: ``render()`` draws each environment's world with
torpor's own renderer (:meth:`torpor.Batch.render`, the pictures of
``torpor run --video``) framing the tower and where it falls, cubes coloured
by sleep state, ``render_size`` (width, height) pixels.

:class:`ToppleVecEnv` runs ``num_envs`` towers in one torpor batch (one world
each) with Gymnasium's next-step autoreset; :class:`ToppleEnv` is the same task
as a single ``gymnasium.Env`` (a batch of one world), for Gymnasium's checker.
"""
from __future__ import annotations

from typing import Any, Optional

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..core import Batch, Model


def tower_model(levels: int = 10, seed: int = 1) -> Model:
    """A tower of ``levels`` 1 m cubes of 1 kg on a static ground, randomized as scenes/tower.json."""
    bodies = [{"name": "ground", "type": "static", "size": [20, 20, 1], "pos": [0, 0, -0.5]}]
    for k in range(levels):
        bodies.append({"name": f"b{k}", "size": [1, 1, 1], "pos": [0, 0, 0.5 + k], "density": 1.0, "friction": 0.6})
    return Model.build(bodies, name=f"tower-{levels}",
                       randomize={"seed": seed, "pos_noise": 0.005, "yaw_noise_deg": 2.0, "mass_scale": [0.9, 1.1],
                                  "friction_range": [0.5, 0.7]})


class ToppleVecEnv(VectorEnv):
    """``num_envs`` towers to topple, stepped together in one torpor batch.

    Actions: (num_envs,) int in [0, levels] (0 waits, k pushes cube k - 1).
    Observations: (num_envs, 3 * levels) float32, m. Rewards (num_envs,) float64.
    Autoreset: next step (an environment that ended is reset by the following
    ``step``, which returns its first observation with reward 0 and ignores its
    action); each reset is a new random draw of that world (a new episode).
    Rendering (``render_mode="rgb_array"``): ``render()`` returns a tuple of
    ``num_envs`` (height, width, 3) uint8 frames, one per world, as Gymnasium's
    vector wrappers (RecordVideo) expect; drawing costs a few milliseconds per
    world, so record few environments or rarely.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"], "render_fps": 6}

    def __init__(self, num_envs: int = 16, *, levels: int = 10, impulse: float = 6.0, frame_skip: int = 10,
                 max_steps: int = 40, backend: str = "cpu", threads: int = 0, seed: Optional[int] = None,
                 render_mode: Optional[str] = None, render_size: tuple[int, int] = (320, 240)):
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode, self.render_size = render_mode, (int(render_size[0]), int(render_size[1]))
        self.num_envs = num_envs
        self.levels, self.impulse, self.frame_skip, self.max_steps = levels, float(impulse), frame_skip, max_steps
        self._backend, self._threads = backend, threads
        self.model = tower_model(levels)
        self.single_action_space = gym.spaces.Discrete(levels + 1)
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (3 * levels,), np.float32)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._upright = np.array([[0.0, 0.0, 0.5 + k] for k in range(levels)], dtype=np.float32)
        self._make_batch(seed)

    def _make_batch(self, seed: Optional[int]) -> None:
        self.batch = Batch(self.model, self.num_envs, backend=self._backend, threads=self._threads, seed=seed)
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        self._ended = np.zeros(self.num_envs, dtype=bool)
        self._impulses = np.zeros((self.num_envs, self.batch.bodies, 3), dtype=np.float32)

    def _obs(self) -> np.ndarray:
        pos = self.batch.state().pos[:, 1:, :]  # a view; the subtraction makes the copy Gymnasium keeps
        return (pos - self._upright).reshape(self.num_envs, -1)

    def _toppled(self) -> np.ndarray:
        return self.batch.state().pos[:, 1:, 2].max(axis=1) < 0.5 * self.levels

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[np.ndarray, dict]:
        """Reset every environment. With ``seed`` the batch is made anew with that
        randomization seed (episode 0 of every world); without, each world draws
        its next episode."""
        super().reset(seed=seed)
        if seed is not None:
            self.batch.close()
            self._make_batch(seed)
        else:
            self.batch.reset()
            self._steps[:] = 0
            self._ended[:] = False
        return self._obs(), {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        a = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        if np.any((a < 0) | (a > self.levels)):
            raise ValueError(f"actions must be in [0, {self.levels}], got {a}")
        restarting = self._ended.copy()
        if restarting.any():
            self.batch.reset(restarting)
            self._steps[restarting] = 0
        push = (a > 0) & ~restarting
        reward = -push.astype(np.float64)
        if push.any():
            worlds = np.flatnonzero(push)
            imp = self._impulses[: worlds.size]
            imp[:] = 0.0
            imp[np.arange(worlds.size), a[worlds], 0] = self.impulse  # body k is cube k - 1
            self.batch.apply_impulses(imp, worlds=worlds)
        self.batch.step(self.frame_skip)
        self._steps += 1
        terminated = self._toppled() & ~restarting
        truncated = (self._steps >= self.max_steps) & ~terminated & ~restarting
        reward[terminated] += 10.0
        reward[restarting] = 0.0
        self._ended = terminated | truncated
        return self._obs(), reward, terminated, truncated, {}

    def render(self) -> Optional[tuple[np.ndarray, ...]]:
        """One (height, width, 3) uint8 frame per environment (None without render_mode)."""
        if self.render_mode is None:
            return None
        w, h = self.render_size
        box = (-2.0, -2.0, 0.0, self.levels + 1.0, 2.0, float(self.levels))  # the tower and where it falls (+x)
        return tuple(self.batch.render(w, h, [i], view_box=box) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        self.batch.close()


class ToppleEnv(gym.Env):
    """The topple task as a single environment (a torpor batch of one world)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 6}

    def __init__(self, render_mode: Optional[str] = None, **kwargs: Any):
        self._vec = ToppleVecEnv(1, render_mode=render_mode, **kwargs)
        self.render_mode = render_mode
        self.action_space = self._vec.single_action_space
        self.observation_space = self._vec.single_observation_space

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        obs, info = self._vec.reset(seed=seed)
        return obs[0], info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        obs, r, term, trunc, info = self._vec.step(np.array([action]))
        self._vec._ended[:] = False  # a single Env is reset by its caller, not automatically
        return obs[0], float(r[0]), bool(term[0]), bool(trunc[0]), info

    def render(self) -> Optional[np.ndarray]:
        """The (height, width, 3) uint8 frame of the world (None without render_mode)."""
        frames = self._vec.render()
        return None if frames is None else frames[0]

    def close(self) -> None:
        self._vec.close()
