"""Push a marked box to a goal through a bin of resting objects: the task where sleep pays.

The scene (:func:`clutter_scene`, written to scenes/clutter_arm.json by
``python3 -m torpor.envs.clutter``): a SCARA-style arm (two links turning about
z at 0.32 m, 0.40 m and 0.33 m to a finger that hangs to 4.5 cm above the floor)
on a static pedestal at the centre of a 1.7 m square bin with 0.15 m walls;
128 objects of 7 cm rest on the floor on a 0.13 m grid, cycling box (0.5 kg),
ball and upright cylinder (500 kg/m^3); the box at (0.455, 0.065) m is
"marked". Velocity actuators (kv 20 N m s, at most 30 N m) drive the two
joints. The objects fall asleep 0.5 s after a reset (torpor's island policy)
and only those the arm touches wake, so a world costs about what its awake
bodies cost (bench/README.md, "Clutter").

:class:`ClutterVecEnv`: each world draws a goal per episode (Philox, keyed on
the seed, the world and its episode) uniform in angle and in radius [0.30,
0.65] m around the arm's base.

- action (2,) float32 in [-1.5, 1.5] rad/s: the joints' velocity targets;
- observation (14,) float32: joint angles (rad) and rates (rad/s), the
  finger's xy, the marked box's xy, the goal's xy, marked minus goal, finger
  minus marked (m);
- reward: -|marked - goal| (m) - 0.01 |a|^2, +10 on success;
- terminated when the marked box's centre is within 5 cm of the goal (xy);
  truncated after 200 steps (frame_skip 4 of 1/60 s: 13.3 s);
- info: ``awake_fraction`` (num_envs,), the share of each world's dynamic
  bodies awake after the step.

``sleep=False`` turns sleep off in the model (every body integrated and
solved every step), for comparison. :func:`push_policy` is a scripted
whole-batch controller that pushes the marked box toward its goal.
"""
from __future__ import annotations

import json
import math
from typing import Any, Optional

import numpy as np

from ..core import Model
from .base import _STREAM_TASK, TorporEnv, TorporVecEnv, quat_matrix

OBJECT = 0.07  # m, edge of a box, diameter of a ball or cylinder
L1, L2 = 0.40, 0.33  # m, shoulder to elbow and elbow to finger in the xy plane
FINGER = np.array([0.155, 0.0, -0.1775])  # the finger's centre in link2's frame, m
GOAL_RADIUS = (0.30, 0.65)
SUCCESS = 0.05


def clutter_scene(sleep: bool = True) -> dict:
    """The scene as a dict (docs/scene-format.md, version 2); ``sleep=False`` turns sleep off."""
    bodies: list[dict] = [
        {"name": "ground", "size": [3, 3, 1], "pos": [0, 0, -0.5], "static": True},
        {"name": "pedestal", "size": [0.16, 0.16, 0.26], "pos": [0, 0, 0.13], "static": True},
    ]
    walls = [(0.875, 0, 0.05, 1.8), (-0.875, 0, 0.05, 1.8), (0, 0.875, 1.7, 0.05), (0, -0.875, 1.7, 0.05)]
    for i, (x, y, sx, sy) in enumerate(walls):
        bodies.append({"name": f"wall{i}", "size": [sx, sy, 0.15], "pos": [x, y, 0.075], "static": True})
    grid = [round(-0.715 + 0.13 * k, 4) for k in range(12)]
    count = 0
    for gx in grid:
        for gy in grid:
            if abs(gx) < 0.2 and abs(gy) < 0.2:
                continue  # the pedestal's square
            pos = [gx, gy, OBJECT / 2]
            marked = (gx, gy) == (0.455, 0.065)
            name = "marked" if marked else f"obj{count}"
            if marked or count % 3 == 0:
                body = {"name": name, "size": [OBJECT] * 3, "pos": pos, "mass": 0.5}
            elif count % 3 == 1:
                body = {"name": name, "shape": "ball", "size": [OBJECT] * 3, "pos": pos, "density": 500}
            else:  # a cylinder lies along its local x: stood on its end
                body = {"name": name, "shape": "cylinder", "size": [OBJECT] * 3, "pos": pos, "density": 500,
                        "quat": [0, 0.7071068, 0, 0.7071068]}
            bodies.append(body)
            count += 1
    bodies += [
        {"name": "link1", "size": [L1, 0.05, 0.04], "pos": [L1 / 2, 0, 0.32], "density": 500},
        {"name": "link2", "pos": [0.575, 0, 0.36], "density": 500,
         "shapes": [{"size": [0.35, 0.05, 0.04]}, {"size": [0.04, 0.04, 0.275], "pos": FINGER.tolist()}]},
    ]
    joints = [
        {"name": "shoulder", "type": "revolute", "parent": "world", "child": "link1", "axis": [0, 0, 1],
         "anchor": [-L1 / 2, 0, 0], "damping": 0.5},
        {"name": "elbow", "type": "revolute", "parent": "link1", "child": "link2", "axis": [0, 0, 1],
         "anchor": [-0.175, 0, 0], "limits": [-2.6, 2.6], "damping": 0.5},
    ]
    actuators = [{"name": j["name"], "type": "velocity", "joint": j["name"], "kv": 20, "ctrl_range": [-1.5, 1.5],
                  "force_range": [-30, 30]} for j in joints]
    scene = {"format": "torpor-scene", "version": 2, "name": "clutter_arm", "gravity": [0, 0, -9.81],
             "dt": 0.016666667, "substeps": 4, "bodies": bodies, "joints": joints, "actuators": actuators}
    if not sleep:
        scene["sleep"] = {"enabled": False}
    return scene


def scene_text(scene: dict) -> str:
    """The scene as scenes/clutter_arm.json holds it: one body per line."""
    return json.dumps(scene).replace('{"name"', '\n  {"name"') + "\n"


class ClutterVecEnv(TorporVecEnv):
    """``num_envs`` arms in bins stepped as one torpor batch (see the module docstring).

    Parameters: num_envs; sleep (True: the island policy's defaults, False:
    off); frame_skip (4); max_episode_steps (200, None: never truncated);
    threads (CPU threads, 0 = all); seed (Philox key of the goals; None: a
    random one); render_mode None or "rgb_array"."""

    frame_skip = 4
    max_episode_steps = 200
    obs_dtype = np.float32

    def __init__(self, num_envs: int = 1, *, sleep: bool = True, frame_skip: Optional[int] = None,
                 max_episode_steps: Any = "default", threads: int = 0, seed: Optional[int] = None,
                 render_mode: Optional[str] = None, render_size: tuple[int, int] = (320, 240)):
        model = Model.from_json(json.dumps(clutter_scene(sleep)), "clutter_arm")
        self._marked, self._link2 = model.find_body("marked"), model.find_body("link2")
        self._dynamic = model.dynamic_body_count
        self._goal = np.zeros((num_envs, 2))
        self._open(model, num_envs, frame_skip, max_episode_steps, threads, seed, render_mode, render_size)

    def _start(self, worlds: np.ndarray) -> None:
        u = self._noise(worlds, _STREAM_TASK, 2)
        r = GOAL_RADIUS[0] + (GOAL_RADIUS[1] - GOAL_RADIUS[0]) * 0.5 * (u[:, 0] + 1.0)
        a = math.pi * u[:, 1]
        self._goal[worlds] = np.stack([r * np.cos(a), r * np.sin(a)], axis=1)

    def finger(self) -> np.ndarray:
        """(W, 2) xy of the finger's centre, m."""
        s = self.batch.state()
        R = quat_matrix(s.quat[:, self._link2].astype(np.float64))
        return (s.pos[:, self._link2].astype(np.float64) + R @ FINGER)[:, :2]

    def awake_fraction(self) -> np.ndarray:
        """(W,) share of each world's dynamic bodies awake now."""
        return self.batch.state().awake_count / self._dynamic

    def _observe(self) -> np.ndarray:
        q, qd = self.batch.joint_q, self.batch.joint_qd
        finger = self.finger()
        marked = self.batch.state().pos[:, self._marked, :2].astype(np.float64)
        return np.concatenate([q, qd, finger, marked, self._goal, marked - self._goal, finger - marked],
                              axis=1).astype(np.float32)

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        marked = self.batch.state().pos[:, self._marked, :2].astype(np.float64)
        dist = np.linalg.norm(marked - self._goal, axis=1)
        success = dist < SUCCESS
        return -dist - 0.01 * np.square(action).sum(axis=1) + 10.0 * success, success

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        obs, reward, terminated, truncated, info = super().step(actions)
        return obs, reward, terminated, truncated, {"awake_fraction": self.awake_fraction()}


def push_policy(obs: np.ndarray, gain: float = 3.0) -> np.ndarray:
    """A scripted pusher on (W, 14) observations: (W, 2) float32 joint-rate targets.

    The finger goes to 9 cm behind the marked box (opposite the goal), then
    through the box toward the goal; joint targets from the two-link inverse
    kinematics (elbow on the side it is), rates gain x the angle error."""
    q, finger, marked, goal = obs[:, 0:2], obs[:, 4:6], obs[:, 6:8], obs[:, 8:10]
    push = goal - marked
    u = push / np.maximum(np.linalg.norm(push, axis=1, keepdims=True), 1e-6)
    behind = marked - 0.09 * u
    ready = np.linalg.norm(finger - behind, axis=1) < 0.03
    target = np.where(ready[:, None], marked + 0.05 * u, behind)
    r = np.clip(np.linalg.norm(target, axis=1), abs(L1 - L2) + 1e-3, L1 + L2 - 1e-3)
    c2 = np.clip((r**2 - L1**2 - L2**2) / (2 * L1 * L2), -1.0, 1.0)
    q2 = np.where(q[:, 1] >= 0, 1.0, -1.0) * np.arccos(c2)
    q1 = np.arctan2(target[:, 1], target[:, 0]) - np.arctan2(L2 * np.sin(q2), L1 + L2 * np.cos(q2))
    err1 = (q1 - q[:, 0] + np.pi) % (2 * np.pi) - np.pi
    return np.clip(gain * np.stack([err1, q2 - q[:, 1]], axis=1), -1.5, 1.5).astype(np.float32)


class ClutterEnv(TorporEnv):
    """The clutter task as a single environment (see :class:`ClutterVecEnv`)."""
    vec_class = ClutterVecEnv


if __name__ == "__main__":
    print(scene_text(clutter_scene()), end="")
