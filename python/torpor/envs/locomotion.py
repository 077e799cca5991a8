"""Gymnasium's MuJoCo locomotion tasks on torpor: Hopper, HalfCheetah and
Walker2d (planar, a slide-slide-hinge root) and Ant and Humanoid (a free root),
each following Gymnasium's v5 environment of that name
(gymnasium/envs/mujoco/*_v5.py) on the same MJCF model, with Gymnasium's
default arguments (the reward weights and ranges can be passed by the same
names). Differences common to all tasks are in :mod:`torpor.envs.base`.

Contact-force terms (Ant's and Humanoid's ``cfrc_ext``): MuJoCo's is, per body,
the spatial contact force [torque; force] about the centre of mass of the
robot's subtree. torpor has each body's summed contact force (``contact_f``,
N, world frame, the last step) but not where it acts, so the force is exact
and the torque is taken about the body's own centre of mass:
(xipos - subtree_com) x f. torpor's contacts are hard (no penetration
spring), so the forces are those of rigid contacts, with the spikes of impacts.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import TorporEnv, MjcfVecEnv, quat_matrix


class _PlanarVecEnv(MjcfVecEnv):
    """A planar runner: qpos[0] x (m), qpos[1] z (m), qpos[2] pitch (rad), then the joints.

    Observation qpos[1:] then qvel (clipped to [-10, 10] where Gymnasium
    clips). Reward forward_reward_weight * dx/dt + healthy_reward (if healthy)
    - ctrl_cost_weight |a|^2; terminated when unhealthy (if
    terminate_when_unhealthy)."""

    clip_qvel = False

    def _configure(self, forward_reward_weight: float = 1.0, ctrl_cost_weight: float = 1e-3,
                   healthy_reward: float = 1.0, terminate_when_unhealthy: bool = True, **ranges: Any) -> None:
        self._w_fwd, self._w_ctrl, self._healthy_reward = forward_reward_weight, ctrl_cost_weight, healthy_reward
        self._terminate = terminate_when_unhealthy
        self._ranges(**ranges)

    def _ranges(self) -> None:
        pass

    def _before(self) -> np.ndarray:
        return self.batch.joint_q[:, 0].astype(np.float64)  # rootx: no ref in these models' x

    def _observe(self) -> np.ndarray:
        qvel = self.qvel()
        return np.concatenate([self.qpos()[:, 1:], np.clip(qvel, -10, 10) if self.clip_qvel else qvel], axis=1)

    def _healthy(self, qpos: np.ndarray, qvel: np.ndarray) -> np.ndarray:
        return np.ones(self.num_envs, bool)

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        qpos, qvel = self.qpos(), self.qvel()
        x_velocity = (qpos[:, 0] - self._ref[0] - before) / self.dt
        healthy = self._healthy(qpos, qvel)
        reward = (self._w_fwd * x_velocity + self._healthy_reward * healthy
                  - self._w_ctrl * np.square(action).sum(axis=1))
        return reward, ~healthy & bool(self._terminate)


class HopperVecEnv(_PlanarVecEnv):
    """Hopper-v5 (Gymnasium 1.x): a one-legged planar hopper.

    Observation (11,): qpos[1:] (z m, pitch and joint angles rad), qvel (6)
    clipped to [-10, 10]. Action (3,) in [-1, 1]. Healthy: every entry of
    (qpos, qvel)[2:] within healthy_state_range (-100, 100), z > 0.7 m and
    pitch within (-0.2, 0.2) rad. Reset noise U(-5e-3, 5e-3) on qpos and qvel.
    frame_skip 4 (dt 0.008 s), 1000 steps.
    """

    asset, frame_skip, reset_noise_scale, qvel_noise, clip_qvel = "hopper.xml", 4, 5e-3, "uniform", True

    def _ranges(self, healthy_state_range=(-100.0, 100.0), healthy_z_range=(0.7, float("inf")),
                healthy_angle_range=(-0.2, 0.2)) -> None:
        self._state_range, self._z_range, self._angle_range = healthy_state_range, healthy_z_range, healthy_angle_range

    def _healthy(self, qpos: np.ndarray, qvel: np.ndarray) -> np.ndarray:
        state = np.concatenate([qpos, qvel], axis=1)[:, 2:]
        z, angle = qpos[:, 1], qpos[:, 2]
        return (((self._state_range[0] < state) & (state < self._state_range[1])).all(axis=1)
                & (self._z_range[0] < z) & (z < self._z_range[1])
                & (self._angle_range[0] < angle) & (angle < self._angle_range[1]))


class Walker2dVecEnv(_PlanarVecEnv):
    """Walker2d-v5 (Gymnasium 1.x, model walker2d_v5.xml): a two-legged planar walker.

    Observation (17,): qpos[1:], qvel (9) clipped to [-10, 10]. Action (6,) in
    [-1, 1]. Healthy: z in (0.8, 2.0) m and pitch in (-1, 1) rad. Reset noise
    U(-5e-3, 5e-3) on qpos and qvel. frame_skip 4 (dt 0.008 s), 1000 steps.
    """

    asset, frame_skip, reset_noise_scale, qvel_noise, clip_qvel = "walker2d_v5.xml", 4, 5e-3, "uniform", True

    def _ranges(self, healthy_z_range=(0.8, 2.0), healthy_angle_range=(-1.0, 1.0)) -> None:
        self._z_range, self._angle_range = healthy_z_range, healthy_angle_range

    def _healthy(self, qpos: np.ndarray, qvel: np.ndarray) -> np.ndarray:
        z, angle = qpos[:, 1], qpos[:, 2]
        return ((self._z_range[0] < z) & (z < self._z_range[1])
                & (self._angle_range[0] < angle) & (angle < self._angle_range[1]))


class HalfCheetahVecEnv(_PlanarVecEnv):
    """HalfCheetah-v5 (Gymnasium 1.x): a planar two-legged runner that never falls.

    Observation (17,): qpos[1:], qvel (9), not clipped. Action (6,) in [-1, 1].
    Reward dx/dt - 0.1 |a|^2; never terminates. Reset noise U(-0.1, 0.1) on
    qpos, 0.1 N(0, 1) on qvel. frame_skip 5 (dt 0.05 s), 1000 steps.
    """

    asset, frame_skip, reset_noise_scale, qvel_noise = "half_cheetah.xml", 5, 0.1, "normal"

    def _configure(self, forward_reward_weight: float = 1.0, ctrl_cost_weight: float = 0.1) -> None:
        super()._configure(forward_reward_weight, ctrl_cost_weight, healthy_reward=0.0, terminate_when_unhealthy=False)


class _FreeVecEnv(MjcfVecEnv):
    """A robot on a free joint: xy progress of a point, contact forces, mass-centre terms."""

    def _setup_free(self) -> None:
        self._bodies = self.mj_bodies  # MuJoCo's bodies 1.. as torpor indices
        self._mass = self.body_mass
        self._total = self._mass.sum()

    def _frame(self) -> dict:
        """Per-body quantities of MuJoCo's com-based terms: xipos (W, n, 3), subtree com (W, 3), R (W, n, 3, 3)."""
        return self._memoized("frame", self._make_frame)

    def _make_frame(self) -> dict:
        s = self.batch.state()
        quat = s.quat[:, self._bodies].astype(np.float64)
        R = quat_matrix(quat)
        local = self.com_local(self._bodies, fresh=False)  # the model's COM plus each world's link offset
        xipos = s.pos[:, self._bodies].astype(np.float64) + np.einsum("wbij,wbj->wbi", R, local)
        com = np.einsum("b,wbi->wi", self._mass, xipos) / self._total
        return {"xipos": xipos, "com": com, "R": R, "s": s}

    def cfrc_ext(self, f: dict) -> np.ndarray:
        """(W, n, 6) contact wrench per MuJoCo body: [(xipos - subtree com) x force, force] (module docstring)."""
        force = f["s"].contact_f[:, self._bodies].astype(np.float64)
        torque = np.cross(f["xipos"] - f["com"][:, None], force)
        return np.concatenate([torque, force], axis=2)


class AntVecEnv(_FreeVecEnv):
    """Ant-v5 (Gymnasium 1.x): a four-legged robot on a free joint.

    Observation (105,): qpos[2:] (13: torso z m, orientation [w, x, y, z],
    8 hinge angles), qvel (14: origin velocity m/s, body-frame angular velocity
    rad/s, hinge rates), and cfrc_ext of the 13 bodies clipped to
    contact_force_range (-1, 1) (78; module docstring for how it is computed).
    Action (8,) in [-1, 1]. Reward dx/dt of the torso + healthy_reward (1) -
    0.5 |a|^2 - 5e-4 |clipped cfrc_ext|^2; healthy while the state is finite
    and torso z in [0.2, 1.0] m; terminated when unhealthy. Reset noise
    U(-0.1, 0.1) on qpos (the quaternion included; torpor normalizes it, MuJoCo
    keeps the raw one in the first observation), 0.1 N(0, 1) on qvel.
    frame_skip 5 (dt 0.05 s), 1000 steps.
    """

    asset, frame_skip, reset_noise_scale, qvel_noise = "ant.xml", 5, 0.1, "normal"

    def _configure(self, forward_reward_weight: float = 1.0, ctrl_cost_weight: float = 0.5,
                   contact_cost_weight: float = 5e-4, healthy_reward: float = 1.0,
                   terminate_when_unhealthy: bool = True, healthy_z_range=(0.2, 1.0),
                   contact_force_range=(-1.0, 1.0), include_cfrc_ext_in_observation: bool = True) -> None:
        self._w_fwd, self._w_ctrl, self._w_contact = forward_reward_weight, ctrl_cost_weight, contact_cost_weight
        self._healthy_reward, self._terminate = healthy_reward, terminate_when_unhealthy
        self._z_range, self._force_range = healthy_z_range, contact_force_range
        self._with_cfrc = include_cfrc_ext_in_observation
        self._setup_free()

    def _contact(self) -> np.ndarray:
        return self._memoized("contact", lambda: np.clip(self.cfrc_ext(self._frame()), *self._force_range))

    def _before(self) -> np.ndarray:
        return self.batch.joint_q[:, :2].astype(np.float64)

    def _observe(self) -> np.ndarray:
        parts = [self.qpos()[:, 2:], self.qvel()]
        if self._with_cfrc:
            parts.append(self._contact().reshape(self.num_envs, -1))
        return np.concatenate(parts, axis=1)

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        qpos, qvel = self.qpos(), self.qvel()
        x_velocity = (qpos[:, 0] - before[:, 0]) / self.dt
        finite = np.isfinite(qpos).all(axis=1) & np.isfinite(qvel).all(axis=1)
        healthy = finite & (self._z_range[0] <= qpos[:, 2]) & (qpos[:, 2] <= self._z_range[1])
        contact_cost = self._w_contact * np.square(self._contact()).sum(axis=(1, 2))
        reward = (self._w_fwd * x_velocity + self._healthy_reward * healthy
                  - self._w_ctrl * np.square(action).sum(axis=1) - contact_cost)
        return reward, ~healthy & bool(self._terminate)


class HumanoidVecEnv(_FreeVecEnv):
    """Humanoid-v5 (Gymnasium 1.x): a 3D humanoid on a free joint.

    Observation (348,): qpos[2:] (22), qvel (23), cinert (13 x 10: each body's
    inertia about the subtree's centre of mass in the world frame [xx, yy, zz,
    xy, xz, yz], mass x offset (3), mass), cvel (13 x 6: angular velocity and
    the velocity of the point at the subtree's centre of mass moving with the
    body), qfrc_actuator[6:] (17, torpor's ``actuator_force``: the last
    substep's, MuJoCo's is the last step's) and cfrc_ext (13 x 6, module
    docstring). Action (17,) in [-0.4, 0.4]. Reward 1.25 d(mass centre x)/dt +
    5 (healthy) - 0.1 |ctrl|^2 - min(5e-7 |cfrc_ext|^2, 10); healthy while torso
    z in (1, 2) m. Reset noise U(-0.01, 0.01) on qpos and qvel. frame_skip 5
    (dt 0.015 s), 1000 steps. torpor has no tendons: the model's two hip-knee
    tendon limits are dropped at import (docs/import.md), and the imported
    humanoid settles slightly differently from MuJoCo's.
    """

    asset, frame_skip, reset_noise_scale, qvel_noise = "humanoid.xml", 5, 1e-2, "uniform"

    def _configure(self, forward_reward_weight: float = 1.25, ctrl_cost_weight: float = 0.1,
                   contact_cost_weight: float = 5e-7, contact_cost_range=(-np.inf, 10.0), healthy_reward: float = 5.0,
                   terminate_when_unhealthy: bool = True, healthy_z_range=(1.0, 2.0)) -> None:
        self._w_fwd, self._w_ctrl, self._w_contact = forward_reward_weight, ctrl_cost_weight, contact_cost_weight
        self._cost_range, self._healthy_reward = contact_cost_range, healthy_reward
        self._terminate, self._z_range = terminate_when_unhealthy, healthy_z_range
        self._setup_free()

    def _before(self) -> np.ndarray:
        return self._frame()["com"][:, :2]

    def cinert(self, f: dict) -> np.ndarray:
        """(W, n, 10) MuJoCo's cinert (class docstring)."""
        R, d, m = f["R"], f["xipos"] - f["com"][:, None], self._mass[None, :, None]
        inertia = np.einsum("wbij,bjk,wblk->wbil", R, self.body_inertia, R)
        inertia += m[..., None] * (np.einsum("wbi,wbi->wb", d, d)[..., None, None] * np.eye(3)
                                   - np.einsum("wbi,wbj->wbij", d, d))
        tri = inertia[..., [0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]
        return np.concatenate([tri, m * d, np.broadcast_to(m, d.shape[:2] + (1,))], axis=2)

    def cvel(self, f: dict) -> np.ndarray:
        """(W, n, 6) MuJoCo's cvel: [w, v_com + w x (subtree com - xipos)]."""
        s = f["s"]
        w = s.w[:, self._bodies].astype(np.float64)
        v = s.v[:, self._bodies].astype(np.float64) + np.cross(w, f["com"][:, None] - f["xipos"])
        return np.concatenate([w, v], axis=2)

    def _observe(self) -> np.ndarray:
        f = self._frame()
        W = self.num_envs
        return np.concatenate([self.qpos()[:, 2:], self.qvel(), self.cinert(f).reshape(W, -1),
                               self.cvel(f).reshape(W, -1), self.batch.actuator_force[:, 6:].astype(np.float64),
                               self.cfrc_ext(f).reshape(W, -1)], axis=1)

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f = self._frame()
        x_velocity = (f["com"][:, 0] - before[:, 0]) / self.dt
        z = self.qpos()[:, 2]
        healthy = (self._z_range[0] < z) & (z < self._z_range[1])
        contact_cost = np.clip(self._w_contact * np.square(self.cfrc_ext(f)).sum(axis=(1, 2)), *self._cost_range)
        reward = (self._w_fwd * x_velocity + self._healthy_reward * healthy
                  - self._w_ctrl * np.square(action).sum(axis=1) - contact_cost)
        return reward, ~healthy & bool(self._terminate)


class HopperEnv(TorporEnv):
    """Hopper as a single environment (see :class:`HopperVecEnv`)."""
    vec_class = HopperVecEnv


class Walker2dEnv(TorporEnv):
    """Walker2d as a single environment (see :class:`Walker2dVecEnv`)."""
    vec_class = Walker2dVecEnv


class HalfCheetahEnv(TorporEnv):
    """HalfCheetah as a single environment (see :class:`HalfCheetahVecEnv`)."""
    vec_class = HalfCheetahVecEnv


class AntEnv(TorporEnv):
    """Ant as a single environment (see :class:`AntVecEnv`)."""
    vec_class = AntVecEnv


class HumanoidEnv(TorporEnv):
    """Humanoid as a single environment (see :class:`HumanoidVecEnv`)."""
    vec_class = HumanoidVecEnv
