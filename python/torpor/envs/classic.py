"""Gymnasium's MuJoCo control tasks without locomotion, on torpor: the inverted
pendulum, the inverted double pendulum and the reacher, each following
Gymnasium's v5 environment of that name (gymnasium/envs/mujoco/*_v5.py) on the
same MJCF model. Differences common to all tasks are in :mod:`torpor.envs.base`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import _STREAM_QVEL, _STREAM_TASK, TorporEnv, MjcfVecEnv, quat_matrix


class InvertedPendulumVecEnv(MjcfVecEnv):
    """InvertedPendulum-v5 (Gymnasium 1.x): a pole hinged on a cart on a rail.

    Observation (4,): qpos (cart m, pole rad), qvel. Action (1,): the cart's
    motor control in [-3, 3]. Reward 1 while the pole is within 0.2 rad,
    terminated when it leaves that (or the state is not finite). Reset noise
    U(-0.01, 0.01) on qpos and qvel. frame_skip 2 (dt 0.04 s), 1000 steps.
    """

    asset, frame_skip, reset_noise_scale, qvel_noise = "inverted_pendulum.xml", 2, 0.01, "uniform"

    def _observe(self) -> np.ndarray:
        return np.concatenate([self.qpos(), self.qvel()], axis=1)

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = self._observe()
        terminated = ~np.isfinite(obs).all(axis=1) | (np.abs(obs[:, 1]) > 0.2)
        return (~terminated).astype(np.float64), terminated


class InvertedDoublePendulumVecEnv(MjcfVecEnv):
    """InvertedDoublePendulum-v5 (Gymnasium 1.x): two poles in a chain on a cart.

    Observation (9,): cart x (m), sin and cos of the two hinge angles, qvel
    clipped to [-10, 10], and the joint-limit force on the cart's slider
    clipped to [-10, 10] (Gymnasium's qfrc_constraint[0]; torpor's
    ``limit_force`` of the last substep: MuJoCo's also holds any contact
    force on that dof, and the cart touches nothing). Reward 10 - 0.01 x^2 -
    (y - 2)^2 - 1e-3 v1^2 - 5e-3 v2^2 at the tip (x, y = its height), alive
    bonus dropped on the terminating step; terminated when the tip is at or
    below y = 1 m. Reset noise U(-0.1, 0.1) on qpos, 0.1 N(0, 1) on qvel.
    frame_skip 5 (dt 0.05 s), 1000 steps.
    """

    asset, frame_skip, reset_noise_scale, qvel_noise = "inverted_double_pendulum.xml", 5, 0.1, "normal"

    def _configure(self, healthy_reward: float = 10.0) -> None:
        self._healthy_reward = float(healthy_reward)
        _, self._tip_body, self._tip_local, _ = self.model.site("tip")

    def _tip(self) -> np.ndarray:
        s = self.batch.state()
        R = quat_matrix(s.quat[:, self._tip_body].astype(np.float64))
        return s.pos[:, self._tip_body].astype(np.float64) + R @ self._tip_local

    def _observe(self) -> np.ndarray:
        qpos, qvel = self.qpos(), self.qvel()
        limit = self.batch.limit_force[:, :1].astype(np.float64)
        return np.concatenate([qpos[:, :1], np.sin(qpos[:, 1:]), np.cos(qpos[:, 1:]), np.clip(qvel, -10, 10),
                               np.clip(limit, -10, 10)], axis=1)

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tip, qvel = self._tip(), self.qvel()
        x, y = tip[:, 0], tip[:, 2]
        terminated = y <= 1.0
        reward = (self._healthy_reward * ~terminated - (0.01 * x**2 + (y - 2.0) ** 2)
                  - (1e-3 * qvel[:, 1] ** 2 + 5e-3 * qvel[:, 2] ** 2))
        return reward, terminated


class ReacherVecEnv(MjcfVecEnv):
    """Reacher-v5 (Gymnasium 1.x): a two-link planar arm reaching for a target.

    Observation (10,): cos and sin of the two arm angles, the target's x and y
    (m), the arm's two joint velocities, fingertip minus target in x and y
    (m, the bodies' origins: Gymnasium's ``get_body_com`` is MuJoCo's xpos). Action (2,) in [-1, 1]. Reward
    -|fingertip - target| * reward_dist_weight - |a|^2 * reward_control_weight;
    never terminates; 50 steps. Reset: arm qpos U(-0.1, 0.1), the target
    uniform in the disc of radius 0.2 m (Gymnasium's rejection sampling: here
    the first of 16 Philox candidates inside the disc, the 16th scaled into it
    if none is, probability 2e-11), qvel U(-0.005, 0.005) on the arm and 0 on
    the target. frame_skip 2 (dt 0.02 s).
    """

    asset, frame_skip, reset_noise_scale, qvel_noise = "reacher.xml", 2, 0.1, "uniform"
    max_episode_steps = 50

    def _configure(self, reward_dist_weight: float = 1.0, reward_control_weight: float = 1.0) -> None:
        self._w_dist, self._w_ctrl = float(reward_dist_weight), float(reward_control_weight)
        self._ends = np.array([self.body_index("fingertip"), self.body_index("target")])

    def _initial_state(self, worlds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        qpos, qvel = super()._initial_state(worlds)
        qvel = self.init_qvel + 0.005 * self._noise(worlds, _STREAM_QVEL, self.nv)
        qvel[:, -2:] = 0.0
        goals = 0.2 * self._noise(worlds, _STREAM_TASK, 32).reshape(len(worlds), 16, 2)
        inside = np.linalg.norm(goals, axis=2) < 0.2
        first = np.where(inside.any(axis=1), inside.argmax(axis=1), 15)
        goal = goals[np.arange(len(worlds)), first]
        r = np.linalg.norm(goal, axis=1, keepdims=True)
        qpos[:, -2:] = np.where(r < 0.2, goal, goal * (0.199 / np.maximum(r, 1e-12)))
        return qpos, qvel

    def _gap(self) -> np.ndarray:
        ends = self.batch.state().pos[:, self._ends].astype(np.float64)  # Gymnasium's get_body_com: the body origin
        return ends[:, 0] - ends[:, 1]

    def _observe(self) -> np.ndarray:
        qpos, qvel = self.qpos(), self.qvel()
        return np.concatenate([np.cos(qpos[:, :2]), np.sin(qpos[:, :2]), qpos[:, 2:], qvel[:, :2],
                               self._gap()[:, :2]], axis=1)

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        reward = -np.linalg.norm(self._gap(), axis=1) * self._w_dist - np.square(action).sum(axis=1) * self._w_ctrl
        return reward, np.zeros(self.num_envs, bool)


class InvertedPendulumEnv(TorporEnv):
    """InvertedPendulum as a single environment (see :class:`InvertedPendulumVecEnv`)."""
    vec_class = InvertedPendulumVecEnv


class InvertedDoublePendulumEnv(TorporEnv):
    """InvertedDoublePendulum as a single environment (see :class:`InvertedDoublePendulumVecEnv`)."""
    vec_class = InvertedDoublePendulumVecEnv


class ReacherEnv(TorporEnv):
    """Reacher as a single environment (see :class:`ReacherVecEnv`)."""
    vec_class = ReacherVecEnv
