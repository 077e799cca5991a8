"""The shared machinery of torpor's MuJoCo-style tasks: an imported MJCF model
stepped as one torpor batch of ``num_envs`` worlds.

:class:`MjcfVecEnv` turns the batch's joint arrays into MuJoCo's ``qpos`` and
``qvel`` (its conventions: slide and hinge joints measured from 0, not from
``ref``; free joints as origin, quaternion [w, x, y, z], origin velocity and
body-frame angular velocity) so each task can state its observation, reward and
termination as Gymnasium's MuJoCo v5 code does, on (W, ...) arrays. Each
environment step writes the controls, runs ``frame_skip`` torpor steps (the
model's dt is the MJCF timestep; torpor's 4 substeps run inside each) and
evaluates the task. Next-step autoreset: a world that ended is reset by the
following step, which returns its first observation with reward 0 (the action
is ignored). Reset noise is drawn with Philox (:mod:`torpor.envs.philox`) keyed
on the seed and counted on (world, episode, stream, index), so every world's
episodes are the same numbers at any world count.

:class:`TorporEnv` is one task as a single ``gymnasium.Env`` (a batch of one world).
"""
from __future__ import annotations

import math
import os
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Optional

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..core import Batch, Model
from . import philox

ASSETS = Path(gym.__file__).parent / "envs" / "mujoco" / "assets"
"""Gymnasium's MuJoCo models, the MJCF files the tasks import."""

_STREAM_QPOS, _STREAM_QVEL, _STREAM_TASK = 0, 1, 2
_MODELS: dict[str, Model] = {}


def load_asset(path: "os.PathLike[str] | str") -> Model:
    """The torpor model of an MJCF file, imported once per process (the import's
    warnings, about what torpor ignores, are listed in docs/import.md)."""
    key = str(path)
    if key not in _MODELS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ImportWarning)
            _MODELS[key] = Model.load(key)
    return _MODELS[key]


class MjcfInfo:
    """What the tasks need from an MJCF file that torpor's model does not keep:
    MuJoCo's body order (``bodies``, unnamed ones as ``body<N>``, the world
    first) and each joint's ``ref`` (rad or m). Sites are the model's
    (:meth:`torpor.Model.site`)."""

    def __init__(self, path: "os.PathLike[str] | str"):
        root = ET.parse(path).getroot()
        compiler = root.find("compiler")
        degrees = compiler is None or compiler.get("angle", "degree") != "radian"
        self.bodies, self.refs = ["world"], {}

        def walk(elem: ET.Element, name: str) -> None:
            for child in elem:
                if child.tag == "body":
                    self.bodies.append(child.get("name") or f"body{len(self.bodies)}")
                    walk(child, self.bodies[-1])
                elif child.tag == "joint" and child.get("ref") is not None:
                    scale = math.pi / 180.0 if degrees and child.get("type", "hinge") == "hinge" else 1.0
                    self.refs[child.get("name")] = float(child.get("ref")) * scale

        walk(root.find("worldbody"), "world")


def quat_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices of (..., 4) quaternions [x, y, z, w] (normalized here)."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                     2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                     2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], axis=-1).reshape(q.shape[:-1] + (3, 3))


class TorporVecEnv(VectorEnv):
    """``num_envs`` worlds of one torpor model stepped as one batch: the episode
    loop every task shares (see the module docstring).

    A task sets ``frame_skip`` and ``max_episode_steps`` (class values, or the
    arguments) and writes :meth:`_observe`, :meth:`_evaluate` and, for its
    episode draw, :meth:`_start`; :meth:`_before` keeps what the reward needs
    from before a step. Actions are the controls of the model's actuators,
    (num_envs, nu) float32 within their ctrl ranges (torpor clamps them as
    MuJoCo does); observations (num_envs, obs_dim) of ``obs_dtype``; rewards
    (num_envs,) float64; terminated and truncated (num_envs,) bool. step raises
    ValueError for actions of the wrong shape or not finite. A world whose
    state faulted (``Batch.state().faults``: a non-finite value) is truncated
    with observation and reward 0 and reset by the next step.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"], "render_fps": 50}
    frame_skip = 1
    max_episode_steps: Optional[int] = 1000
    obs_dtype: Any = np.float64

    def _open(self, model: Model, num_envs: int, frame_skip: Optional[int], max_episode_steps: Any, threads: int,
              seed: Optional[int], render_mode: Optional[str], render_size: tuple[int, int]) -> None:
        """Make the batch and the spaces; the task's own setup runs before (it may need the model)."""
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.num_envs, self.render_mode, self.render_size = int(num_envs), render_mode, tuple(render_size)
        self.frame_skip = int(frame_skip if frame_skip is not None else type(self).frame_skip)
        if max_episode_steps != "default":
            self.max_episode_steps = max_episode_steps
        self.model, self.nu = model, model.actuator_count
        self.dt = model.dt * self.frame_skip
        self.metadata = dict(type(self).metadata, render_fps=int(round(1.0 / self.dt)))
        self._seed = int(seed) if seed is not None else int(np.random.SeedSequence().entropy) & (2**64 - 1)
        self.batch = Batch(model, self.num_envs, threads=threads)
        self._steps = np.zeros(self.num_envs, np.int64)
        self._episode = np.zeros(self.num_envs, np.int64)
        self._ended = np.zeros(self.num_envs, bool)
        self._memo: dict = {}
        ranges = np.array([model.actuator_def(k)["ctrl_range"] for k in range(self.nu)], dtype=np.float64)
        self.single_action_space = gym.spaces.Box(ranges[:, 0].astype(np.float32), ranges[:, 1].astype(np.float32),
                                                  dtype=np.float32)
        self._draw(np.arange(self.num_envs))
        dim = self._observe().shape[1]
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (dim,), self.obs_dtype)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

    # ------------------------------------------------------------ episodes
    def _noise(self, worlds: np.ndarray, stream: int, n: int, normal: bool = False) -> np.ndarray:
        """(R, n) Philox numbers of these worlds' current episodes: uniform in [-1, 1) or normal."""
        glob = worlds + self.batch.first_world
        return philox.draw(self._seed, glob, self._episode[worlds], stream, n, normal)

    def _draw(self, worlds: np.ndarray) -> None:
        """Reset the worlds (int indices) and write their episode's initial state."""
        self.batch.reset(worlds)
        self._memo = {}
        self._start(worlds)
        self._memo = {}

    def _memoized(self, key: str, make: Any) -> Any:
        """make(), computed once per state of the batch (the step and the reset clear it)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def _start(self, worlds: np.ndarray) -> None:
        """Write the initial state of these worlds' episodes (just reset to the model's); none by default."""

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[np.ndarray, dict]:
        """Reset every world, or with ``options={"reset_mask": m}`` (m a (num_envs,) bool
        array, Gymnasium's option) only the worlds where m is True, each to its next
        episode; the observations (num_envs, obs_dim) are of every world. With ``seed``
        (not together with a mask) the noise key becomes ``seed`` and every world starts
        over at episode 0 (so the same seed gives the same observations); without, each
        world draws its next episode. The model's own ``randomize`` draws (masses,
        damping, COM offsets, ...) follow the batch's episodes and its scene seed, so
        ``seed`` does not repeat them (docs/envs.md). ValueError for another option, a
        mask of another shape or type, or a seed with a mask; nothing is reset then."""
        mask = self._reset_mask(options, seed)
        super().reset(seed=seed)
        if mask is not None:
            rows = np.flatnonzero(mask)
            self._episode[rows] += 1
            self._draw(rows)
            self._steps[rows], self._ended[rows] = 0, False
            return self._observe(), {}
        if seed is not None:
            self._seed = int(seed) & (2**64 - 1)
            self._episode[:] = 0
        else:
            self._episode += 1
        self._draw(np.arange(self.num_envs))
        self._steps[:] = 0
        self._ended[:] = False
        return self._observe(), {}

    def _reset_mask(self, options: Optional[dict], seed: Optional[int]) -> Optional[np.ndarray]:
        """The (num_envs,) bool reset_mask of reset's options, checked; None without one."""
        if not options:
            return None
        unknown = sorted(set(options) - {"reset_mask"})
        if unknown:
            raise ValueError(f"reset: unknown options {unknown} (known: 'reset_mask')")
        mask = np.asarray(options["reset_mask"])
        if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
            raise ValueError(f"reset: options['reset_mask'] must be a ({self.num_envs},) bool array, "
                             f"got {mask.dtype} {mask.shape}")
        if seed is not None:
            raise ValueError("reset: seed and options['reset_mask'] together (a seed restarts every world)")
        return mask

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        a = np.asarray(actions, dtype=np.float32)
        if a.size != self.num_envs * self.nu:
            raise ValueError(f"actions must have shape ({self.num_envs}, {self.nu}), got {a.shape}")
        a = a.reshape(self.num_envs, self.nu)
        if not np.isfinite(a).all():
            raise ValueError("actions must be finite")
        restarting = self._ended
        before = self._before()
        self.batch.set_ctrl(a)
        self.batch.step(self.frame_skip)
        self._memo = {}
        self._steps += 1
        obs = self._observe()
        reward, terminated = self._evaluate(before, a.astype(np.float64))
        if self.max_episode_steps is None:
            truncated = np.zeros(self.num_envs, bool)
        else:
            truncated = (self._steps >= self.max_episode_steps) & ~terminated
        faulted = self.batch.state().faults != 0  # a world whose state broke: its episode ends there
        if faulted.any():
            obs[faulted], reward[faulted] = 0.0, 0.0
            terminated &= ~faulted
            truncated |= faulted
        if restarting.any():
            rows = np.flatnonzero(restarting)
            self._episode[rows] += 1
            self._draw(rows)
            obs[rows] = self._observe()[rows]
            reward[rows], terminated[rows], truncated[rows], self._steps[rows] = 0.0, False, False, 0
        self._ended = terminated | truncated
        return obs, reward, terminated, truncated, {}

    # ------------------------------------------------------------ the task
    def _before(self) -> Any:
        """What the reward needs from before the step (e.g. x positions); None by default."""
        return None

    def _observe(self) -> np.ndarray:
        """(W, obs_dim) observations of every world now."""
        raise NotImplementedError

    def _evaluate(self, before: Any, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(reward (W,) float64, terminated (W,) bool) after a step."""
        raise NotImplementedError

    def render(self) -> Optional[tuple[np.ndarray, ...]]:
        """One (height, width, 3) uint8 frame per world (None without render_mode)."""
        if self.render_mode is None:
            return None
        w, h = self.render_size
        return tuple(self.batch.render(w, h, [i]) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        self.batch.close()


class MjcfVecEnv(TorporVecEnv):
    """``num_envs`` worlds of one MJCF task in one torpor batch (see the module docstring).

    Subclasses set ``asset`` (file in :data:`ASSETS`), ``frame_skip``,
    ``reset_noise_scale``, ``qvel_noise`` ("uniform" or "normal") and
    ``max_episode_steps``, and write :meth:`_observe` and :meth:`_evaluate`.

    Parameters: num_envs (worlds); xml_file (another MJCF file than the
    default asset); model (a torpor model of that file to step instead of its
    plain import, e.g. with other substeps); frame_skip, reset_noise_scale,
    max_episode_steps (None: never truncated) override the class values;
    threads (CPU threads, 0 = all); seed (the Philox key of the reset noise;
    None: a random one); render_mode None or "rgb_array"
    (:meth:`torpor.Batch.render`, one frame per world); task keyword arguments
    as Gymnasium's (reward weights, ranges). Observations are float64, as
    Gymnasium's; the rest as :class:`TorporVecEnv`.
    """

    asset = ""
    reset_noise_scale = 0.0
    qvel_noise = "uniform"

    def __init__(self, num_envs: int = 1, *, xml_file: Optional[str] = None, frame_skip: Optional[int] = None,
                 reset_noise_scale: Optional[float] = None, max_episode_steps: Any = "default",
                 model: Optional[Model] = None, threads: int = 0, seed: Optional[int] = None,
                 render_mode: Optional[str] = None, render_size: tuple[int, int] = (320, 240), **task: Any):
        if reset_noise_scale is not None:
            self.reset_noise_scale = float(reset_noise_scale)
        path = Path(xml_file) if xml_file is not None else ASSETS / self.asset
        self.model, self.info = model if model is not None else load_asset(path), MjcfInfo(path)
        self._layout()
        self._configure(**task)
        self._open(self.model, num_envs, frame_skip, max_episode_steps, threads, seed, render_mode, render_size)

    # ------------------------------------------------------------ model layout
    def _configure(self, **task: Any) -> None:
        """Take the task's keyword arguments (Gymnasium's names); none by default."""
        if task:
            raise TypeError(f"{type(self).__name__}: unknown arguments {sorted(task)}")

    def _layout(self) -> None:
        m = self.model
        self.nq, self.nv = m.joint_q_count, m.dof_count
        self._ref = np.zeros(self.nq)
        self._free = []  # (q column, qd column, root body) of each free joint
        for j, name in enumerate(m.joint_names):
            qs, vs = m.joint_slices(j)
            kind = m.joint_type(j)
            if kind == "free":
                self._free.append((qs.start, vs.start, m.joint_def(j)["child"]))
            elif kind in ("revolute", "prismatic"):
                self._ref[qs.start] = self.info.refs.get(name, 0.0)
            elif kind == "ball":
                raise ValueError(f"{self.asset}: ball joint {name!r}: the tasks read no ball joints")
        # MuJoCo's bodies (world excluded) as torpor body indices, with mass and COM offset
        self.mj_bodies = np.array([m.find_body(n) for n in self.info.bodies[1:]])
        if (self.mj_bodies < 0).any():
            missing = [n for n, i in zip(self.info.bodies[1:], self.mj_bodies) if i < 0]
            raise ValueError(f"{self.asset}: bodies {missing} were not imported")
        props = [m.body_inertia(int(b)) for b in self.mj_bodies]
        self.body_mass = np.array([p[0] for p in props])  # (nbody - 1,) kg
        self.body_inertia = np.array([p[2] for p in props])  # (nbody - 1, 3, 3) kg m^2 about the COM, body frame
        self._coms = np.array([m.body_inertia(b)[1] for b in range(m.body_count)])  # (B, 3) model COM, body frame
        self._link_joint = np.full(m.body_count, -1)  # the joint whose child each body is (its COM offset's row)
        for j in range(m.joint_count):
            self._link_joint[m.joint_def(j)["child"]] = j
        self.init_qpos = self._ref.copy()
        for qs, _, b in self._free:  # the root's origin and orientation at q0
            pos, quat = self._template_pose(b)
            self.init_qpos[qs:qs + 3] = pos
            self.init_qpos[qs + 3:qs + 7] = [quat[3], quat[0], quat[1], quat[2]]
        self.init_qvel = np.zeros(self.nv)

    def _template_pose(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        with Batch(self.model, 1) as b:
            s = b.state()
            return s.pos[0, body].astype(np.float64), s.quat[0, body].astype(np.float64)

    def body_index(self, name: str) -> int:
        """Torpor body index of a named MJCF body; KeyError if it is not in the model."""
        i = self.model.find_body(name)
        if i < 0:
            raise KeyError(f"{self.asset}: no body {name!r}")
        return i

    # ------------------------------------------------------------ MuJoCo's coordinates
    def qpos(self) -> np.ndarray:
        """(W, nq) float64 MuJoCo qpos of every world (read-only)."""
        return self._memoized("qpos", self._qpos)

    def qvel(self) -> np.ndarray:
        """(W, nv) float64 MuJoCo qvel of every world (read-only)."""
        return self._memoized("qvel", self._qvel)

    def _qpos(self) -> np.ndarray:
        q = self.batch.joint_q.astype(np.float64) + self._ref
        for qs, _, _ in self._free:
            q[:, qs + 3:qs + 7] = q[:, [qs + 6, qs + 3, qs + 4, qs + 5]]
        q.flags.writeable = False
        return q

    def _qvel(self) -> np.ndarray:
        qd = self.batch.joint_qd.astype(np.float64)
        if self._free:
            s = self.batch.state()
            for _, vs, b in self._free:
                R = quat_matrix(s.quat[:, b].astype(np.float64))
                com = np.einsum("wij,wj->wi", R, self.com_local([b], fresh=False)[:, 0])
                w = qd[:, vs + 3:vs + 6].copy()
                qd[:, vs:vs + 3] -= np.cross(w, com)  # the origin's velocity, v_com + w x (origin - com)
                qd[:, vs + 3:vs + 6] = np.einsum("wji,wj->wi", R, w)  # body frame
        qd.flags.writeable = False
        return qd

    def com_local(self, bodies: Any, worlds: Any = None, fresh: bool = True) -> np.ndarray:
        """(R, n, 3) float64 centres of mass of torpor bodies (n,) in their body frames (m), for
        the worlds given by index (R,; None: all W): the model's (:meth:`torpor.Model.body_inertia`)
        plus each world's link COM offset (:meth:`torpor.Batch.link_com_offsets`, drawn by
        ``randomize.link_com_offset`` or written by ``set_link_com_offsets``) for bodies that are
        links. ``fresh=False`` reuses the offsets read once per state of the batch (the env step
        and reset)."""
        bodies = np.asarray(bodies, np.int64)
        d = self._memoized("link_com", self._link_offsets) if not fresh else self._link_offsets()
        if d is None:  # no world has an offset
            rows = self.num_envs if worlds is None else len(worlds)
            return np.broadcast_to(self._coms[bodies], (rows, len(bodies), 3))
        rows = self._link_joint[bodies]  # -1 (not a link) reads the zero row d[:, -1]
        d = d[:, rows] if worlds is None else d[np.asarray(worlds)[:, None], rows]
        return self._coms[bodies] + d

    def _link_offsets(self) -> Optional[np.ndarray]:
        """(W, J + 1, 3) float64 link COM offsets with a zero row last, or None where all are 0."""
        d = self.batch.link_com_offsets()
        if not d.any():
            return None
        return np.concatenate([d, np.zeros((d.shape[0], 1, 3), d.dtype)], axis=1).astype(np.float64)

    def set_state(self, qpos: np.ndarray, qvel: np.ndarray, worlds: np.ndarray) -> None:
        """Write MuJoCo qpos (R, nq) and qvel (R, nv) into the worlds given by index (R,)."""
        q, qd = np.array(qpos, np.float64) - self._ref, np.array(qvel, np.float64)
        for qs, vs, b in self._free:
            wxyz = q[:, qs + 3:qs + 7].copy()
            q[:, qs + 3:qs + 7] = wxyz[:, [1, 2, 3, 0]]
            R = quat_matrix(q[:, qs + 3:qs + 7])
            w = np.einsum("wij,wj->wi", R, qd[:, vs + 3:vs + 6])
            qd[:, vs:vs + 3] += np.cross(w, np.einsum("wij,wj->wi", R, self.com_local([b], worlds)[:, 0]))
            qd[:, vs + 3:vs + 6] = w
        self.batch.set_joints(q=q.astype(np.float32), qd=qd.astype(np.float32), worlds=worlds)
        self._memo = {}

    def xipos(self, bodies: np.ndarray) -> np.ndarray:
        """(W, len(bodies), 3) world centres of mass (MuJoCo's xipos, m) of torpor bodies, each
        world's link COM offsets included (:meth:`com_local`)."""
        s = self.batch.state()
        R = quat_matrix(s.quat[:, bodies].astype(np.float64))
        local = self.com_local(bodies, fresh=False)
        return s.pos[:, bodies].astype(np.float64) + np.einsum("wbij,wbj->wbi", R, local)

    # ------------------------------------------------------------ episodes
    def _start(self, worlds: np.ndarray) -> None:
        qpos, qvel = self._initial_state(worlds)
        self.set_state(qpos, qvel, worlds)

    def _initial_state(self, worlds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Gymnasium's reset_model: init_qpos + U(-s, s), init_qvel + U(-s, s) or s N(0, 1)."""
        s = self.reset_noise_scale
        qpos = self.init_qpos + s * self._noise(worlds, _STREAM_QPOS, self.nq)
        qvel = self.init_qvel + s * self._noise(worlds, _STREAM_QVEL, self.nv, self.qvel_noise == "normal")
        return qpos, qvel


class TorporEnv(gym.Env):
    """One task of ``vec_class`` as a single environment (a torpor batch of one
    world), reset by its caller; Gymnasium's ``make`` adds the time limit."""

    vec_class: type = TorporVecEnv
    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}

    def __init__(self, render_mode: Optional[str] = None, **kwargs: Any):
        kwargs.setdefault("max_episode_steps", None)
        self._vec = self.vec_class(1, render_mode=render_mode, **kwargs)
        self.render_mode = render_mode
        self.metadata = dict(self._vec.metadata)
        self.action_space = self._vec.single_action_space
        self.observation_space = self._vec.single_observation_space

    @property
    def vec(self) -> TorporVecEnv:
        """The one-world vector environment underneath (its batch, qpos(), ...)."""
        return self._vec

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        obs, info = self._vec.reset(seed=seed)
        return obs[0], info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        obs, r, term, trunc, info = self._vec.step(np.asarray(action, np.float32)[None])
        self._vec._ended[:] = False  # a single Env is reset by its caller
        return obs[0], float(r[0]), bool(term[0]), bool(trunc[0]), info

    def render(self) -> Optional[np.ndarray]:
        frames = self._vec.render()
        return None if frames is None else frames[0]

    def close(self) -> None:
        self._vec.close()
