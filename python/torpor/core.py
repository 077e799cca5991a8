"""Models, batches and zero-copy state views over libtorpor (include/torpor.h).

Conventions are the C library's: SI units (m, kg, s, rad, N), z up, quaternions
``[x, y, z, w]``, float32 state, arrays world-major. Shapes below use
W = worlds and B = bodies per world (static bodies included).
"""
from __future__ import annotations

import json
import math
import os
import threading
import time
import warnings
from collections import abc
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

from ._ffi import ffi, lib

WorldSelection = Union[None, Sequence[int], np.ndarray]
"""Which worlds a call acts on: None (all), an index array/list (int), or a
boolean mask of shape (W,)."""


class TorporError(Exception):
    """A failed libtorpor call; the message is the library's (tp_last_error).

    ``status`` is the C status code (``tp_status``), ``status_name`` its name.
    The subclasses below are raised for the status codes they name; each is
    also the built-in exception that fits (``ValueError``, ``OSError``, ...),
    so ``except ValueError`` catches a bad value as well.
    """

    def __init__(self, status: int, message: str):
        self.status = status
        self.status_name = ffi.string(lib.tp_status_name(status)).decode()
        super().__init__(f"{message} [{self.status_name}]")


class InvalidArgumentError(TorporError, ValueError):
    """TP_ERR_INVALID_ARGUMENT: a bad value (or a closed batch); nothing was changed."""


class SceneError(TorporError, ValueError):
    """TP_ERR_PARSE: a malformed or invalid scene."""


class FileError(TorporError, OSError):
    """TP_ERR_IO: a file could not be read or written."""


class OutOfMemoryError(TorporError, MemoryError):
    """TP_ERR_OUT_OF_MEMORY: an allocation when a model or batch was made failed."""


class CapacityError(TorporError, ValueError):
    """TP_ERR_CAPACITY: a fixed capacity was exceeded (a scene past
    TP_MAX_SCENE_BYTES, a batch past TP_MAX_WORLDS, ...)."""


class BackendError(TorporError, RuntimeError):
    """TP_ERR_BACKEND or TP_ERR_CUDA: the backend is missing or failed."""


_ERRORS = {lib.TP_ERR_INVALID_ARGUMENT: InvalidArgumentError, lib.TP_ERR_PARSE: SceneError, lib.TP_ERR_IO: FileError,
           lib.TP_ERR_OUT_OF_MEMORY: OutOfMemoryError, lib.TP_ERR_CAPACITY: CapacityError,
           lib.TP_ERR_BACKEND: BackendError, lib.TP_ERR_CUDA: BackendError}
for _cls in (TorporError, *set(_ERRORS.values())):
    _cls.__module__ = "torpor"  # tracebacks name them as users import them: torpor.SceneError


def _check(status: int) -> None:
    if status != 0:
        message = ffi.string(lib.tp_last_error()).decode()
        raise _ERRORS.get(status, TorporError)(status, message)


def _enum_names(name_of) -> dict:
    """{name: value} of a C enum from the library's one name table (tp_*_name
    returns NULL past the last value), so Python never re-tables the enums."""
    names, value = {}, 0
    while (name := name_of(value)) != ffi.NULL:
        names[ffi.string(name).decode()] = value
        value += 1
    return names


def _enum_values(ctype: str, prefix: str) -> dict:
    """{name: value} of a C enum as the header declares it (through CFFI), for the
    enums without a name table in the library: TP_DRIVE_POSITION -> "position"."""
    return {k[len(prefix):].lower(): v for k, v in ffi.typeof(ctype).relements.items()
            if k.startswith(prefix) and not k.endswith("_COUNT")}


def _invalid(message: str) -> "InvalidArgumentError":
    """An InvalidArgumentError raised by the package itself (before any C call)."""
    return InvalidArgumentError(int(lib.TP_ERR_INVALID_ARGUMENT), message)


def _at(name: str, index: tuple) -> str:
    """``name`` and an element's index as the caller wrote it: "u[0, 2]", "u" for a scalar."""
    return f"{name}[{', '.join(map(str, index))}]" if index else name


def _item(x: Any) -> Any:
    """A NumPy scalar as the Python value it holds (for messages), anything else as is."""
    return x.item() if isinstance(x, np.generic) else x


def _is_flag(x: Any) -> bool:
    """A bool, or the number 0 or 1."""
    return isinstance(x, (bool, np.bool_)) or (isinstance(x, (int, float, np.integer, np.floating)) and x in (0, 1))


def _flags(value: Any, shape: tuple, name: str) -> np.ndarray:
    """uint8 C-contiguous 0/1 of ``value`` broadcast to ``shape``: bools or the
    numbers 0 and 1 only; InvalidArgumentError naming any other value (NaN, 2, a
    string) and its index in ``value``."""
    a = np.asarray(value)
    if a.dtype != np.bool_:
        if a.dtype.kind in "iuf":
            bad = np.argwhere((a != 0) & (a != 1))
            at = tuple(int(i) for i in bad[0]) if len(bad) else None  # (1, 0) for a bad 0-d value
        else:
            at = next((i for i in np.ndindex(a.shape) if not _is_flag(a[i])), None)
        if at is not None:
            raise _invalid(f"{_at(name, at)}: must be a bool, 0 or 1, got {_item(a[at])!r}; nothing was changed")
    try:
        return np.ascontiguousarray(np.broadcast_to(a, shape), dtype=np.uint8)
    except ValueError:
        raise _invalid(f"{name} must have shape {shape} (or broadcast to it), got {a.shape}") from None


_FLOAT32_MAX = float(np.finfo(np.float32).max)
_RENDER_MAX = 8192  # pixels, the largest width and height (tp_render_def, include/torpor_render.h)


def _float32(x: Any, name: str) -> np.ndarray:
    """``x`` as float32, refusing (InvalidArgumentError, naming the value and its
    index) a finite value past float32's range, which the cast would make an
    infinity; non-finite values pass on to the C call's check."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":  # Python ints past 64 bits (objects), strings, ...
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError, OverflowError) as e:
            raise _invalid(f"{name} must hold numbers, got {a.dtype} values ({e})") from None
    with np.errstate(over="ignore"):
        f = a.astype(np.float32, copy=False)
    if a.dtype.kind == "f" and a.dtype.itemsize > 4 and not np.isfinite(f).all():
        over = np.argwhere(np.isfinite(a) & ~np.isfinite(f))
        if len(over):
            at = tuple(int(i) for i in over[0])
            raise _invalid(f"{_at(name, at)}: {_item(a[at])!r} is past float32's range [-{_FLOAT32_MAX:.8g}, "
                           f"{_FLOAT32_MAX:.8g}]; nothing was changed")
    return f


def _seed(seed: Any) -> int:
    """A batch's seed: an integer in [0, 2**64 - 1] (tp_batch_def.seed, uint64_t)."""
    value = _count(seed, "seed")
    if not 0 <= value < 2 ** 64:
        raise _invalid(f"seed must be in [0, 2**64 - 1] (a uint64), got {value}")
    return value


def _count(value: Any, name: str) -> int:
    """``value`` as an int: a Python or NumPy integer, or a 0-d integer array (not a bool, not a
    float, even 2.0)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _invalid(f"{name} must be an integer, got {_item(value)!r} ({type(value).__name__})")
    return int(value)


def _index_of(item: Any, names: list) -> int:
    """Index of a name, or an integer index as given (not a bool), among ``names``; -1 for anything else."""
    if isinstance(item, str):
        return names.index(item) if item in names else -1
    return int(item) if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)) else -1


def _pick(kind: str, given: Any, names: list) -> list:
    """Indices of ``given`` (a name or index, or a list of them) among ``names``
    (the model's constraints or movers), in the order given: InvalidArgumentError
    for an unknown name, an index out of range or one picked twice."""
    items = [given] if isinstance(given, (str, int, np.integer)) else given
    try:
        items = list(items)
    except TypeError:
        raise _invalid(f"{kind}s must be a {kind} name or index, or a list of them, got {given!r}") from None
    have = f"the model has {len(names)}: {', '.join(names)}" if names else "the model has none"
    out: list = []
    for k in items:
        i = _index_of(k, names)
        if not 0 <= i < len(names):
            raise _invalid(f"{kind}s: no {kind} {_item(k)!r} ({have}); nothing was changed")
        if i in out:
            raise _invalid(f"{kind}s: {kind} {_item(k)!r} ({names[i]}) is picked a second time; nothing was changed")
        out.append(i)
    return out


# ---------------------------------------------------------------- Model.build's scene

_BUILD = "<Model.build>"  # the source Model.build's errors name
_BODY_TYPE_KEYS = {"dynamic": {}, "static": {"static": True}, "kinematic": {"kinematic": True}}


def _build_error(status: int) -> TorporError:
    """The scene loader's last failure as Model.build reports it: the key path and
    the reason, without the line:col of a text the caller never saw."""
    info = ffi.new("tp_error_info *")
    lib.tp_last_error_info(info)
    field, reason = ffi.string(info.field).decode(), ffi.string(info.reason).decode()
    if ffi.string(info.path).decode() != _BUILD:
        return _ERRORS.get(status, TorporError)(status, ffi.string(info.message).decode())
    return _ERRORS.get(status, TorporError)(status, f"{_BUILD}: {field}: {reason}" if field else f"{_BUILD}: {reason}")


def _scene_error(path: str, why: str) -> SceneError:
    return SceneError(int(lib.TP_ERR_PARSE), f"{_BUILD}: {path}: {why}")


def _body_type(body: Any, path: str) -> Any:
    """A body's ``"type"`` (Model.build's older spelling) as the scene's
    ``static`` / ``kinematic`` keys; any other body unchanged."""
    if not isinstance(body, Mapping) or "type" not in body:
        return body
    kind = body["type"]
    if not isinstance(kind, str) or kind not in _BODY_TYPE_KEYS:
        shown = json.dumps(kind) if isinstance(kind, str) else repr(kind)
        raise _scene_error(f"{path}.type", f"unknown body type {shown}; expected \"dynamic\", \"static\" or \"kinematic\"")
    if "static" in body or "kinematic" in body:
        raise _scene_error(f"{path}.type", "give either \"type\" or \"static\" / \"kinematic\", not both")
    return {**{k: v for k, v in body.items() if k != "type"}, **_BODY_TYPE_KEYS[kind]}


class _NoJSON(Exception):
    """A value JSON cannot hold; ``keys`` gathers its path on the way out of _plain."""

    def __init__(self, why: str, keys: Optional[list] = None):
        super().__init__(why)
        self.why, self.keys = why, keys or []


def _json_path(keys: list) -> str:
    """["bodies", 0, "size"] -> "bodies[0].size"."""
    path = ""
    for key in keys:
        path += f"[{key}]" if isinstance(key, int) else f".{key}" if path else key
    return path


def _plain(value: Any) -> Any:
    """``value`` in JSON's types (dict, list, str, int, float, bool, None), NumPy
    arrays and scalars included (a float32 to the same double, exactly); _NoJSON
    for a value JSON cannot hold. The path is built only on failure."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise _NoJSON(f"must be finite, got {float(value)} (JSON has no NaN or infinity)")
        return float(value)
    if isinstance(value, (int, np.integer)):
        if not -2 ** 63 <= int(value) < 2 ** 63:
            raise _NoJSON(f"{int(value)} is past the 64-bit integers a scene holds")
        return int(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not all(map(math.isfinite, value.ravel().tolist())):  # cheaper than np.isfinite on [3]s
            at = np.argwhere(~np.isfinite(value))[0]
            raise _NoJSON(f"must be finite, got {value[tuple(at)]} (JSON has no NaN or infinity)", [int(i) for i in at])
        if value.dtype.kind in "bf" or (value.dtype.kind in "iu" and (value.size == 0 or int(value.max()) < 2 ** 63)):
            return value.tolist()  # Python floats, ints and bools only: nothing left to check
        return _plain(value.tolist())
    if isinstance(value, (dict, abc.Mapping)):  # dict first: typing's and abc's checks are slow
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NoJSON(f"keys must be strings, got {key!r}")
            try:
                out[key] = _plain(item)
            except _NoJSON as e:
                e.keys.insert(0, key)
                raise
        return out
    if isinstance(value, (list, tuple)) or (isinstance(value, abc.Sequence) and
                                             not isinstance(value, (bytes, bytearray))):
        items: list = []
        try:
            for item in value:
                items.append(_plain(item))
        except _NoJSON as e:
            e.keys.insert(0, len(items))
            raise
        return items
    if isinstance(value, np.bool_):
        return bool(value)
    raise _NoJSON(f"a {type(value).__name__} has no JSON form; give a number, bool, string, list, NumPy array "
                  "or dict")


_BACKENDS = _enum_names(lib.tp_backend_name)
_ROBOT_PARAMS = _enum_names(lib.tp_robot_param_name)
_JOINT_ARRAYS = _enum_values("tp_joint_array", "TP_JOINT_ARRAY_")  # keyword of Batch.set_joints: tp_joint_array


def cuda_built() -> bool:
    """True if the library was compiled with the CUDA backend."""
    return bool(lib.tp_cuda_built())


def cuda_device_count() -> int:
    """Number of CUDA devices usable now (0 without a GPU or CUDA support)."""
    return int(lib.tp_cuda_device_count())


# ---------------------------------------------------------------- model


class Model:
    """An immutable template world, from a scene file, a JSON string or a list of bodies.

    Use :meth:`load`, :meth:`from_json` or :meth:`build`; a model must outlive
    the batches made from it (a :class:`Batch` keeps a reference to it).
    """

    def __init__(self, _ptr: Any):
        self._ptr = _ptr

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Model":
        """Load a scene file (JSON, docs/scene-format.md), or a robot in MJCF
        (root ``<mujoco>``) or URDF (root ``<robot>``), recognised by content
        (docs/import.md); what the import ignored is issued as
        :class:`ImportWarning` warnings. Raises SceneError, FileError (an
        OSError) when it cannot be read, CapacityError past
        TP_MAX_SCENE_BYTES (64 MiB)."""
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
        except OSError:
            head = b""  # the C loader below reports it as a FileError, naming the path
        if lib.tp_xml_kind_of(ffi.new("char[]", head)) != lib.TP_XML_NONE:
            for line in import_scene(path)[1]:
                warnings.warn(f"{path}: {line}", ImportWarning, stacklevel=2)
        out = ffi.new("tp_model **")
        _check(lib.tp_model_load(str(path).encode(), out))
        return cls(ffi.gc(out[0], lib.tp_model_destroy))

    @classmethod
    def from_json(cls, text: str, source: str = "<string>") -> "Model":
        """Compile a scene from a JSON string; ``source`` names it in error messages.

        Raises SceneError for a NUL character in ``text`` (naming its offset),
        CapacityError past TP_MAX_SCENE_BYTES (64 MiB) of UTF-8."""
        data = text.encode()
        out = ffi.new("tp_model **")
        _check(lib.tp_model_load_buffer(data, len(data), source.encode(), out))
        return cls(ffi.gc(out[0], lib.tp_model_destroy))

    @classmethod
    def build(cls, bodies: Sequence[Mapping[str, Any]], *, name: str = "scene",
              gravity: Sequence[float] = (0.0, 0.0, -9.81), dt: float = 1.0 / 60.0, substeps: int = 4,
              randomize: Optional[Mapping[str, Any]] = None, sleep: Optional[Mapping[str, Any]] = None,
              joints: Sequence[Mapping[str, Any]] = (), actuators: Sequence[Mapping[str, Any]] = (),
              movers: Sequence[Mapping[str, Any]] = (), keyframes: Sequence[Mapping[str, Any]] = (),
              constraints: Sequence[Mapping[str, Any]] = (), solver: Optional[Mapping[str, Any]] = None,
              sites: Sequence[Mapping[str, Any]] = (), events: Sequence[Mapping[str, Any]] = (),
              exclude: Sequence[Sequence[str]] = ()) -> "Model":
        """Build a model in code from the keys of a scene file (docs/scene-format.md).

        The arguments become the top-level keys of a version 2 scene (a superset
        of version 1), which the scene loader compiles as it compiles
        :meth:`from_json`'s text and MJCF / URDF imports (tp_model_load_buffer):
        one reader of the format, so a scene built here and the same scene in a
        JSON file are one model, bit for bit. Python reads no key itself.

        bodies: list of dicts, a body's keys ("Bodies"; a generator's too):
        ``name``, ``shape`` ("box", "ball", "cylinder", "capsule", "wedge",
        "corner_wedge", "convex"), ``size`` (m, [3] full extents), ``pos`` (m
        [3]), ``quat`` ([x, y, z, w]), ``vel`` (m/s [3]), ``ang_vel`` (rad/s [3]),
        ``density`` (kg/m^3), ``mass`` (kg), ``friction``, ``restitution``,
        ``static``, ``kinematic``, ``actuated``, ``sensor`` (bools), ``shapes``
        (a compound body: list of dicts with ``shape``, ``size``, ``pos``,
        ``quat``, ``density``, ``sensor``), ``vertices`` (m, [n][3]), ``mesh`` (a
        file, relative to the working directory), ``scale``, ``com`` (m [3], body
        frame), ``inertia`` (kg m^2, [xx, yy, zz] or [xx, yy, zz, xy, xz, yz]).
        ``"type"`` ("dynamic", "static", "kinematic"), this method's older
        spelling, is taken as ``"static": True`` / ``"kinematic": True``.
        name: the scene's name; gravity: m/s^2 [3]; dt: s per step; substeps:
        solver substeps per step. solver, sleep, randomize: dicts of those
        blocks' keys (``randomize={"seed": 3, "joint_q_noise": 0.05,
        "keyframe": "stand"}``).
        joints: dicts with ``name``, ``type`` ("revolute", "prismatic", "ball",
        "free", "fixed"), ``parent`` (a body name or "world"), ``child`` (a body
        name), ``axis`` [3] and ``anchor`` (m [3]) in the child frame, ``q0``,
        ``qd0`` (rad or m, /s), ``limits`` [lower, upper], ``damping``,
        ``friction``, ``armature``, ``stiffness``, ``rest``, ``drive``, ``kp``,
        ``kd``, ``max_effort``, ``target_q``, ``target_qd``, ``ref``
        ("Joints"). actuators: dicts with ``name``, ``type`` ("motor",
        "position", "velocity", "general"), ``joint`` (a joint name), ``gear``,
        ``ctrl_range`` and ``force_range`` [lower, upper], ``kp``, ``kv``,
        ``gain``, ``bias`` [3] ("Actuators"). constraints: dicts of
        docs/constraints.md, "Scene format" (``type`` "weld", "hinge",
        "prismatic", "ball", "rope", "spring", "rod"; ``body0``, ``body1`` by
        name). movers: dicts of docs/movers.md, "Scene format". sites: dicts
        with ``name``, ``body``, ``pos``, ``quat``. keyframes: dicts with
        ``name``, ``q`` (nq,) in the layout of ``joint_q``, ``qd`` (nv,),
        ``ctrl`` (nu,). events: dicts with ``time`` (s), ``action``, ...
        ("Events"). exclude: pairs [body name, body name] that never collide.
        Bodies, joints and actuators are named, never numbered, as in a file.
        An empty list or None leaves a key out.

        Values may be Python or NumPy numbers, bools and strings, lists, tuples,
        NumPy arrays (as nested lists) and mappings with string keys. A float32
        value reaches the model unchanged: Python writes the shortest decimal
        that reads back as the same double, which the loader rounds to the same
        float32.

        Raises SceneError, whose message is ``<Model.build>: PATH: REASON``
        (``<Model.build>: bodies[0].size: must have 3 elements, got 2``;
        ``bodies[0].sise: unknown key; did you mean "size"?``), for everything
        the scene format refuses (an unknown key, a wrong type or length, a
        value out of range, an unknown name) and for a value JSON cannot hold
        (an object of another type, a non-string key, NaN or an infinity, an
        integer past 64 bits); nothing is built. OutOfMemoryError, and
        CapacityError past TP_MAX_SCENE_BYTES (64 MiB) of JSON text.
        """
        scene: dict = {"format": "torpor-scene", "version": 2, "name": name, "gravity": gravity, "dt": dt,
                       "substeps": substeps}
        for key, value in (("solver", solver), ("sleep", sleep), ("randomize", randomize)):
            if value is not None:
                scene[key] = value
        scene["bodies"] = ([_body_type(body, f"bodies[{i}]") for i, body in enumerate(bodies)]
                           if isinstance(bodies, (list, tuple)) else bodies)
        for key, value in (("exclude", exclude), ("joints", joints), ("actuators", actuators),
                           ("constraints", constraints), ("movers", movers), ("sites", sites),
                           ("keyframes", keyframes), ("events", events)):
            if value is not None and not (isinstance(value, (list, tuple)) and not value):
                scene[key] = value
        try:
            text = json.dumps(_plain(scene), allow_nan=False)
        except _NoJSON as e:
            raise _scene_error(_json_path(e.keys), e.why) from None
        data = text.encode()
        out = ffi.new("tp_model **")
        status = lib.tp_model_load_buffer(data, len(data), _BUILD.encode(), out)
        if status != 0:
            raise _build_error(status)
        return cls(ffi.gc(out[0], lib.tp_model_destroy))

    @property
    def name(self) -> str:
        return ffi.string(lib.tp_model_name(self._ptr)).decode()

    @property
    def body_count(self) -> int:
        """Bodies per world, static ones included (B)."""
        return int(lib.tp_model_body_count(self._ptr))

    @property
    def dynamic_body_count(self) -> int:
        return int(lib.tp_model_dynamic_body_count(self._ptr))

    @property
    def body_names(self) -> list[str]:
        return [ffi.string(lib.tp_model_body_name(self._ptr, i)).decode() for i in range(self.body_count)]

    def find_body(self, name: str) -> int:
        """Index of the body called ``name``, or -1."""
        return int(lib.tp_model_find_body(self._ptr, name.encode()))

    @property
    def dt(self) -> float:
        """Step length, s."""
        return float(lib.tp_model_settings(self._ptr).dt)

    def body_types(self) -> np.ndarray:
        """(B,) int: tp_body_type of each body (0 dynamic, 1 static, 2 kinematic)."""
        bd = ffi.new("tp_body_def *")
        types = []
        for i in range(self.body_count):
            _check(lib.tp_model_body(self._ptr, i, bd))
            types.append(int(bd.type))
        return np.array(types, dtype=np.int32)

    def body_inertia(self, body: int) -> tuple[float, np.ndarray, np.ndarray]:
        """(mass kg, centre of mass (3,) m in the body frame, inertia (3, 3) kg m^2
        about it in the body frame) of body ``body`` in the template."""
        m, com, t = ffi.new("float *"), ffi.new("float[3]"), ffi.new("float[6]")
        _check(lib.tp_model_body_mass(self._ptr, body, m, ffi.new("float[3]")))
        _check(lib.tp_model_body_inertia(self._ptr, body, com, t))
        i = [float(t[k]) for k in range(6)]
        tensor = np.array([[i[0], i[3], i[4]], [i[3], i[1], i[5]], [i[4], i[5], i[2]]])
        return float(m[0]), np.array([com[0], com[1], com[2]]), tensor

    # -- joints (include/torpor_joints.h, docs/articulations.md)
    @property
    def joint_count(self) -> int:
        """Joints per world (0 for a model without articulations)."""
        return int(lib.tp_model_joint_count(self._ptr))

    @property
    def joint_q_count(self) -> int:
        """nq: joint coordinates per world, the width of ``joint_q`` (revolute and
        prismatic 1, ball 4, free 7, fixed 0)."""
        return int(lib.tp_model_joint_q_count(self._ptr))

    @property
    def dof_count(self) -> int:
        """nv: degrees of freedom per world, the width of ``joint_qd``, ``joint_f``
        and the targets (revolute and prismatic 1, ball 3, free 6, fixed 0)."""
        return int(lib.tp_model_joint_dof_count(self._ptr))

    @property
    def joint_names(self) -> list[str]:
        """(joint_count,) names, in joint index order."""
        return [ffi.string(lib.tp_model_joint_name(self._ptr, j)).decode() for j in range(self.joint_count)]

    @property
    def dof_names(self) -> list[str]:
        """(nv,) names of the dofs: the joint's name for a 1-dof joint,
        ``"<joint>.wx"`` ... for a ball, ``"<joint>.vx"`` ... ``".wz"`` for a free joint."""
        return [ffi.string(lib.tp_model_dof_name(self._ptr, k)).decode() for k in range(self.dof_count)]

    def find_joint(self, name: str) -> int:
        """Index of the joint called ``name``, or -1."""
        return int(lib.tp_model_find_joint(self._ptr, name.encode()))

    def joint_type(self, joint: int) -> str:
        """Type name of joint ``joint``: "fixed", "revolute", "prismatic", "ball" or "free"."""
        jd = ffi.new("tp_joint_def *")
        _check(lib.tp_model_joint(self._ptr, joint, jd))
        return ffi.string(lib.tp_joint_type_name(jd.type)).decode()

    def joint_def(self, joint: int) -> dict:
        """The definition of joint ``joint`` (tp_joint_def) as a dict: name, type,
        parent and child (body indices, -1 the world), axis ((3,), child frame, as
        the scene wrote it: not normalized; the dynamics use its unit vector),
        anchor ((3,) m, child frame), q0, qd0,
        limits ((lower, upper) or None), damping, friction, armature, stiffness, rest,
        ref (an imported 1-dof joint's offset: MJCF's qpos = q + ref, rad or m)."""
        jd = ffi.new("tp_joint_def *")
        _check(lib.tp_model_joint(self._ptr, joint, jd))
        return {"name": ffi.string(jd.name).decode(), "type": ffi.string(lib.tp_joint_type_name(jd.type)).decode(),
                "parent": int(jd.parent), "child": int(jd.child), "axis": np.array(list(jd.axis)),
                "anchor": np.array(list(jd.anchor)), "q0": float(jd.q0), "qd0": float(jd.qd0),
                "limits": (float(jd.lower), float(jd.upper)) if jd.has_limits else None,
                "damping": float(jd.damping), "friction": float(jd.friction), "armature": float(jd.armature),
                "stiffness": float(jd.stiffness), "rest": float(jd.rest), "ref": float(jd.ref)}

    def joint_slices(self, joint: Union[int, str]) -> tuple[slice, slice]:
        """Where a joint (index or name) sits: (columns of ``joint_q``, columns
        of ``joint_qd`` / ``joint_f`` / the targets). Raises InvalidArgumentError
        for an index out of range, KeyError for an unknown name."""
        if isinstance(joint, str):
            j = self.find_joint(joint)
            if j < 0:
                raise KeyError(f"model {self.name!r} has no joint {joint!r}; joints: {self.joint_names}")
            joint = j
        out = ffi.new("int[4]")
        _check(lib.tp_model_joint_slices(self._ptr, joint, out, out + 1, out + 2, out + 3))
        return slice(out[0], out[0] + out[1]), slice(out[2], out[2] + out[3])


    # -- constraints between two bodies (include/torpor_constraints.h)
    @property
    def constraint_count(self) -> int:
        """C: constraints per world (the scene's ``constraints``), the width of
        :meth:`Batch.constraint_params` and :meth:`Batch.constraints`."""
        return int(lib.tp_model_constraint_count(self._ptr))

    @property
    def constraint_names(self) -> list[str]:
        """(C,) names of the constraints, in index order."""
        d = ffi.new("tp_constraint_def *")
        out = []
        for k in range(self.constraint_count):
            _check(lib.tp_model_constraint(self._ptr, k, d))
            out.append(ffi.string(d.name).decode())
        return out

    def find_constraint(self, name: str) -> int:
        """Index of the constraint called ``name``, or -1."""
        return int(lib.tp_model_find_constraint(self._ptr, name.encode()))

    # -- actuators (include/torpor_actuators.h)
    @property
    def actuator_count(self) -> int:
        """nu: actuators per world, the width of :attr:`Batch.ctrl`."""
        return int(lib.tp_model_actuator_count(self._ptr))

    @property
    def mover_count(self) -> int:
        """M: movers per world (docs/movers.md), the width of :meth:`Batch.movers`'s arrays."""
        return int(lib.tp_model_mover_count(self._ptr))

    @property
    def mover_names(self) -> list[str]:
        """(M,) names of the movers, in index order."""
        out = []
        d = ffi.new("tp_mover_def *")
        for k in range(self.mover_count):
            _check(lib.tp_model_mover(self._ptr, k, d))
            out.append(ffi.string(d.name).decode())
        return out

    @property
    def actuator_names(self) -> list[str]:
        """(nu,) names of the actuators, in index order (the columns of ``ctrl``)."""
        return [ffi.string(lib.tp_model_actuator_name(self._ptr, k)).decode() for k in range(self.actuator_count)]

    def actuator_def(self, actuator: int) -> dict:
        """The definition of actuator ``actuator`` (tp_actuator_def) as a dict, names as
        in a scene file (docs/scene-format.md, "Actuators"): name; type ("motor",
        "position", "velocity" or "general"); joint (the driven joint's name) and
        joint_index (its index in :attr:`joint_names`); gear; ctrl_range ((lo, hi), or
        (-inf, inf) when not limited); force_range (likewise, N m or N); kp; kv; gain
        and bias (3 floats each). InvalidArgumentError for an index out of [0, nu)."""
        ad = ffi.new("tp_actuator_def *")
        _check(lib.tp_model_actuator(self._ptr, actuator, ad))
        unbounded = (-float("inf"), float("inf"))
        return {"name": ffi.string(ad.name).decode() if ad.name != ffi.NULL else self.actuator_names[actuator],
                "type": ffi.string(lib.tp_actuator_type_name(ad.type)).decode(),
                "joint": ffi.string(lib.tp_model_joint_name(self._ptr, ad.joint)).decode(),
                "joint_index": int(ad.joint), "gear": float(ad.gear),
                "ctrl_range": tuple(map(float, ad.ctrl_range)) if ad.ctrl_limited else unbounded,
                "force_range": tuple(map(float, ad.force_range)) if ad.force_limited else unbounded,
                "kp": float(ad.kp), "kv": float(ad.kv), "gain": list(ad.gain), "bias": list(ad.bias)}

    def find_actuator(self, name: str) -> int:
        """Index of the actuator called ``name``, or -1."""
        return int(lib.tp_model_find_actuator(self._ptr, name.encode()))

    @property
    def contact_sensors(self) -> list[tuple[int, int]]:
        """(S,) list of the contact sensors as (body index, shape index): the shapes marked
        ``"sensor": true`` (a body of one shape, or a shape of a compound body), in body then
        shape order: the columns of :meth:`Batch.contact_sensors`."""
        out = []
        body, shape = ffi.new("int *"), ffi.new("int *")
        for k in range(int(lib.tp_model_contact_sensor_count(self._ptr))):
            _check(lib.tp_model_contact_sensor(self._ptr, k, body, shape))
            out.append((int(body[0]), int(shape[0])))
        return out

    # -- sites (include/torpor_sites.h)
    @property
    def site_names(self) -> list[str]:
        """(sites,) names of the sites (named frames on bodies; MJCF's <site>), in index order."""
        return [self.site(k)[0] for k in range(int(lib.tp_model_site_count(self._ptr)))]

    def find_site(self, name: str) -> int:
        """Index of the site called ``name``, or -1."""
        return int(lib.tp_model_find_site(self._ptr, name.encode()))

    def site(self, site: Union[int, str]) -> tuple[str, int, np.ndarray, np.ndarray]:
        """(name, body index (-1: the world), position (3,) m and unit quaternion
        (4,) [x, y, z, w] in the body's frame) of a site given by index or name.
        Its world position in a batch is ``state.pos[:, body] + R(state.quat[:,
        body]) @ pos``. InvalidArgumentError for an unknown site."""
        if isinstance(site, str):
            index = self.find_site(site)
            if index < 0:
                raise InvalidArgumentError(int(lib.TP_ERR_INVALID_ARGUMENT), f"no site called {site!r}")
            site = index
        d = ffi.new("tp_site_def *")
        _check(lib.tp_model_site(self._ptr, int(site), d))
        return (ffi.string(d.name).decode(), int(d.body), np.array([d.pos[k] for k in range(3)], dtype=np.float64),
                np.array([d.quat[k] for k in range(4)], dtype=np.float64))


    # -- keyframes (include/torpor_keyframes.h)
    @property
    def keyframe_names(self) -> list[str]:
        """(keyframes,) names of the keyframes (named joint states; MJCF's <key>), in index order."""
        d = ffi.new("tp_keyframe_def *")
        out = []
        for k in range(int(lib.tp_model_keyframe_count(self._ptr))):
            _check(lib.tp_model_keyframe(self._ptr, k, d))
            out.append(ffi.string(d.name).decode())
        return out

    def find_keyframe(self, name: str) -> int:
        """Index of the keyframe called ``name``, or -1."""
        return int(lib.tp_model_find_keyframe(self._ptr, name.encode()))

    def _keyframe_index(self, keyframe: Union[int, str]) -> int:
        if isinstance(keyframe, str):
            index = self.find_keyframe(keyframe)
            if index < 0:
                raise InvalidArgumentError(int(lib.TP_ERR_INVALID_ARGUMENT),
                                           f"model {self.name!r} has no keyframe {keyframe!r}; keyframes: "
                                           f"{self.keyframe_names}")
            return index
        return int(keyframe)

    def keyframe(self, keyframe: Union[int, str]) -> dict:
        """A keyframe (index or name) as the model keeps it: {"name", "q" (nq,) rad / m /
        quaternions [x, y, z, w] in the layout of ``joint_q``, "qd" (nv,) rad/s / m/s,
        "ctrl" (nu,)}, float32 copies; the arrays are full (the initial joint state and
        controls 0 where the definition gave none). InvalidArgumentError for an unknown one."""
        d = ffi.new("tp_keyframe_def *")
        _check(lib.tp_model_keyframe(self._ptr, self._keyframe_index(keyframe), d))

        def arr(ptr, n):
            return np.frombuffer(ffi.buffer(ptr, 4 * n), dtype=np.float32).copy() if n else np.zeros(0, np.float32)
        return {"name": ffi.string(d.name).decode(), "q": arr(d.q, d.nq), "qd": arr(d.qd, d.nv),
                "ctrl": arr(d.ctrl, d.nu)}


def import_scene(path: Union[str, "os.PathLike[str]"]) -> tuple[str, list[str]]:
    """An MJCF or URDF file as the torpor scene it loads as (tp_import_scene,
    docs/import.md): (JSON text of a version 2 scene, warning lines
    "element: what was ignored"). Raises SceneError (file:line:col) / OSError."""
    js, warn = ffi.new("char **"), ffi.new("char **")
    _check(lib.tp_import_scene(str(path).encode(), js, warn))
    try:
        text = ffi.string(js[0]).decode()
        lines = ffi.string(warn[0]).decode().splitlines() if warn[0] != ffi.NULL else []
    finally:
        lib.tp_free(js[0])
        lib.tp_free(warn[0])
    return text, lines


# ---------------------------------------------------------------- state views


class _ArrayView:
    """A host array of the batch seen through ``__array_interface__``. It holds
    the batch's C handle (``owner``, the cdata whose finalizer frees the batch),
    so the memory stays valid while a NumPy array over it exists, even after
    :meth:`Batch.close`."""

    def __init__(self, owner: Any, address: int, shape: tuple, typestr: str, readonly: bool,
                 strides: Optional[tuple] = None):
        self._owner = owner
        self.__array_interface__ = {"data": (address, readonly), "shape": shape, "typestr": typestr, "version": 3,
                                    "strides": strides}


class View(np.ndarray):
    """A read-only NumPy view of a batch's memory (every state, joint, actuator
    and sensor view is one) that also exports through DLPack to consumers that
    cannot mark a tensor read-only: ``torch.from_dlpack(view)``,
    ``jax.dlpack.from_dlpack(view)`` and ``numpy.from_dlpack(view)`` get a
    zero-copy tensor of the same memory (CPU device). NumPy refuses to export a
    read-only array to them (BufferError), so the export goes through a writable
    alias of the same memory: writing through the consumer's tensor changes the
    batch without the checks of its write calls, so treat it as read-only.
    JAX accepts only compact strides (a whole view, not a column slice such as
    ``joint_qd[:, 1:]``) and copies memory that is not 64-byte aligned (shares
    memory that is), so a JAX array may or may not show later steps: take it again
    after a step. torch shares every view and shows later steps
    (python/tests/test_interop.py)."""

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        if self.flags.writeable:
            return super().__dlpack__(*args, **kwargs)
        ai = self.__array_interface__
        alias = np.asarray(_ArrayView(self, ai["data"][0], self.shape, ai["typestr"], False, ai["strides"]))
        return alias.__dlpack__(*args, **kwargs)


def _view(owner: Any, address: int, shape: tuple, typestr: str) -> "View":
    """Read-only :class:`View` of `shape` at `address`, keeping `owner` (the batch's C handle) alive."""
    return np.asarray(_ArrayView(owner, address, shape, typestr, True)).view(View)


def _empty_view(worlds: int) -> "View":
    """Read-only (W, 0) float32 :class:`View`: a joint or actuator view of a model without any."""
    a = np.zeros((worlds, 0), np.float32).view(View)
    a.flags.writeable = False
    return a


_VIEW_FIELDS = {  # name: (element type, trailing shape, per body)
    "pos": ("<f4", (3,), True), "quat": ("<f4", (4,), True), "v": ("<f4", (3,), True), "w": ("<f4", (3,), True),
    "body_awake": ("|u1", (), True), "sleep_state": ("|u1", (), True), "quiet_timer": ("<f4", (), True),
    "removed": ("|u1", (), True), "contact_f": ("<f4", (3,), True), "island": ("<i4", (), True),
    "awake_count": ("<i4", (), False), "sleeping_count": ("<i4", (), False), "checking_count": ("<i4", (), False),
    "contact_overflow": ("<i4", (), False), "faults": ("|u1", (), False),
}


@dataclass(frozen=True)
class State:
    """Read-only NumPy views of a batch's state, without copies (CPU backend).

    pos (W, B, 3) m; quat (W, B, 4) [x, y, z, w]; v (W, B, 3) m/s; w (W, B, 3)
    rad/s; body_awake (W, B) uint8; sleep_state (W, B) uint8 (0 awake, 1
    sleeping, 2 checking); quiet_timer (W, B) s; removed (W, B) uint8;
    contact_f (W, B, 3) N; island (W, B) int32; awake_count, sleeping_count,
    checking_count, contact_overflow (W,) int32; faults (W,) uint8.

    On the CPU backend the arrays are the batch's own memory: they show every
    later step and write without being taken again. On CUDA they are the host
    mirror, current after :meth:`Batch.state`. Writes go through the Batch
    methods (the arrays are read-only).
    """

    pos: np.ndarray
    quat: np.ndarray
    v: np.ndarray
    w: np.ndarray
    body_awake: np.ndarray
    sleep_state: np.ndarray
    quiet_timer: np.ndarray
    removed: np.ndarray
    contact_f: np.ndarray
    island: np.ndarray
    awake_count: np.ndarray
    sleeping_count: np.ndarray
    checking_count: np.ndarray
    contact_overflow: np.ndarray
    faults: np.ndarray


@dataclass(frozen=True)
class JointState:
    """Read-only NumPy views of a batch's joint arrays, without copies (tp_batch_joints).

    W = worlds, nq = :attr:`Model.joint_q_count`, nv = :attr:`Model.dof_count`;
    float32, world-major, columns in joint order (:meth:`Model.joint_slices`):

    - q (W, nq): joint positions, rad or m (ball: quaternion [x, y, z, w]; free:
      origin m then quaternion);
    - qd (W, nv): joint velocities, rad/s or m/s (free: COM velocity then angular
      velocity, world frame);
    - f (W, nv): generalised forces for the next step, N m or N (the step clears them);
    - target_q (W, nv): PD drive target positions (1-dof joints; other columns unused);
    - target_qd (W, nv): PD target velocities or velocity-motor targets.

    A model without joints gives (W, 0) arrays. Like :class:`State` they are the
    batch's memory and show later steps and writes; writes go through
    :meth:`Batch.set_joints`.
    """

    q: np.ndarray
    qd: np.ndarray
    f: np.ndarray
    target_q: np.ndarray
    target_qd: np.ndarray



def _contact_dtype() -> np.dtype:
    """tp_contact_info as a NumPy structured type, offsets from the C layout."""
    fields = [("body_a", "<i4", ()), ("body_b", "<i4", ()), ("point", "<f4", (3,)), ("normal", "<f4", (3,)),
              ("separation", "<f4", ()), ("normal_force", "<f4", ()), ("friction_force", "<f4", (2,)),
              ("feature", "<u4", ()), ("key", "<u8", ())]
    return np.dtype({"names": [f[0] for f in fields], "formats": [(f[1], f[2]) for f in fields],
                     "offsets": [ffi.offsetof("tp_contact_info", f[0]) for f in fields],
                     "itemsize": ffi.sizeof("tp_contact_info")})


# ---------------------------------------------------------------- batch


class Batch:
    """N replicated worlds of one model on one backend (tp_batch).

    Parameters: model; worlds (>= 1); backend "cpu", "cuda" or "auto";
    threads (CPU threads, 0 = omp_get_max_threads(), which OMP_NUM_THREADS
    sets); seed (an integer in [0, 2**64 - 1] that replaces the model's
    randomization seed; InvalidArgumentError outside it); contact_capacity
    (points per world, 0 = default); first_world and total_worlds (a shard of
    a run split over processes or devices: this batch is worlds [first_world,
    first_world + worlds) of total_worlds, and each draws and steps exactly as
    that world of one batch of all of them; 0 = first_world + worlds; world
    indices of the methods stay local, docs/scale-out.md); device (CUDA
    device ordinal, 0 on the cpu).

    Worlds are selected by ``worlds=``: None for all, an int array/list of
    indices (each once), or a bool array of shape (W,). Per-world data has one
    row per selected world for an index list, and W rows otherwise (rows of
    unselected worlds are not read); an int array is always a list of indices
    (W 0s and 1s with a repeat are refused with a hint that a mask is bool).
    Every write checks all its values first: a non-finite or out-of-range value
    raises InvalidArgumentError with the C message, a finite value past
    float32's range (about 3.4e38) one naming it and its index in the caller's
    array, and nothing changes.

    Threads: every call into the library takes the batch's lock, so threads
    sharing a batch take turns (the C batch itself is not thread-safe);
    different batches run at once. The NumPy views of :meth:`state` and
    :meth:`joints` read the batch's memory without the lock: one thread's
    views see another thread's step as it happens.

    Lifetime: :meth:`close` (or leaving ``with``) ends the batch; its C memory
    is freed once no view of it (:meth:`state`, :meth:`joints`) is left, so a
    view kept past close still reads the last state, never freed memory.

    fork(): a child process may go on with a batch made before the fork; the
    child's steps run its worlds on one thread (the pool's workers stay in the
    parent), with the same results.
    """

    def __init__(self, model: Model, worlds: int = 1, *, backend: str = "cpu", threads: int = 0,
                 seed: Optional[int] = None, contact_capacity: int = 0, first_world: int = 0,
                 total_worlds: int = 0, device: int = 0):
        d = ffi.new("tp_batch_def *", lib.tp_default_batch_def())
        d.worlds = worlds
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {sorted(_BACKENDS)}, got {backend!r}")
        d.backend = _BACKENDS[backend]
        d.threads = threads
        d.contact_capacity = contact_capacity
        d.first_world = first_world
        d.total_worlds = total_worlds
        d.device = device
        if seed is not None:
            d.has_seed = 1
            d.seed = _seed(seed)
        out = ffi.new("tp_batch **")
        _check(lib.tp_batch_create(model._ptr, d, out))
        self.model = model
        self._lock = threading.Lock()
        # the handle: tp_batch_destroy runs when the last reference goes (this
        # object's, the views', a call in flight), never under a live view
        self._ptr = ffi.gc(out[0], lib.tp_batch_destroy)
        self.worlds = int(lib.tp_batch_worlds(self._ptr))
        self.first_world = int(lib.tp_batch_first_world(self._ptr))
        self.bodies = int(lib.tp_batch_bodies(self._ptr))
        self._view = ffi.new("tp_state_view *")
        self._state: Optional[State] = None
        self._joints: Optional[JointState] = None
        self._actuators: Optional[tuple[np.ndarray, np.ndarray, np.ndarray]] = None
        self._imu: Optional[tuple[np.ndarray, np.ndarray, np.ndarray]] = None
        self._touch: Optional[tuple[np.ndarray, np.ndarray]] = None

    # -- lifetime
    def close(self) -> None:
        """End the batch: later calls raise InvalidArgumentError. Its memory is
        freed now if no view of it (:meth:`state`, :meth:`joints`, the
        ``joint_*`` arrays) is alive, else when the last one goes; those views
        keep showing the final state."""
        with self._lock:  # after a call in flight on another thread
            self._ptr = None
            self._state = None
            self._joints = None
            self._actuators = None
            self._imu = None
            self._touch = None

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _p(self) -> Any:
        ptr = self._ptr
        if ptr is None:
            raise _invalid("the batch was closed")
        return ptr

    def _c(self, fn: Any, *args: Any) -> Any:
        """fn(batch, *args) under the batch's lock (one C call on a batch at a time)."""
        with self._lock:
            return fn(self._p(), *args)

    # -- info
    @property
    def backend(self) -> str:
        return ffi.string(lib.tp_backend_name(self._c(lib.tp_batch_backend))).decode()

    @property
    def step_count(self) -> int:
        return int(self._c(lib.tp_batch_step_count))

    @property
    def time(self) -> float:
        """Simulated time, s (steps x dt)."""
        return float(self._c(lib.tp_batch_time))

    @property
    def seed(self) -> int:
        return int(self._c(lib.tp_batch_seed))

    # -- stepping and reading
    def step(self, steps: int = 1) -> None:
        """Advance every world by ``steps`` steps of dt.

        Runs as calls of a few steps each (as many as take about 10 ms), so
        Python sees Ctrl-C (KeyboardInterrupt) and other signals between them:
        an interrupted call has taken whole steps only, as :attr:`step_count`
        tells, and the batch stays usable. ``steps``: a Python or NumPy integer
        >= 0 (0 does nothing); InvalidArgumentError for anything else (a float such
        as 1.5 or 2.0, a bool, a negative count)."""
        steps = _count(steps, "steps")
        if steps <= 0:
            _check(self._c(lib.tp_batch_step, steps))  # 0 is a no-op, < 0 the C error
            return
        done, chunk = 0, 1
        while done < steps:
            n = min(chunk, steps - done)
            start = time.perf_counter()
            _check(self._c(lib.tp_batch_step, n))
            done += n
            if time.perf_counter() - start < 0.01:
                chunk *= 2

    def state(self) -> State:
        """Read-only views of the whole state (see :class:`State`); no copy on the CPU."""
        _check(self._c(lib.tp_batch_state, self._view))
        if self._state is None:
            self._state = self._make_state()
        return self._state

    def _make_state(self) -> State:
        W, B = self.worlds, self.bodies
        arrays = {}
        for name, (typestr, tail, per_body) in _VIEW_FIELDS.items():
            ptr = getattr(self._view, name)
            shape = (W, B) + tail if per_body else (W,)
            address = int(ffi.cast("uintptr_t", ptr))
            arrays[name] = _view(self._p(), address, shape, typestr)
        return State(**arrays)

    def device_state(self) -> "DeviceState":
        """The state in GPU memory, without a copy (CUDA backend only): a
        :class:`torpor.device.DeviceState` of read-only device arrays, each
        exported through ``__cuda_array_interface__`` and DLPack, shapes as
        :meth:`state`. Current when this returns (the batch's stream is
        synchronised); later steps change the arrays in place. Raises
        :class:`BackendError` on the cpu backend, whose :meth:`state` already
        needs no copy."""
        from .device import DeviceArray, DeviceState

        view = ffi.new("tp_state_view *")
        _check(self._c(lib.tp_batch_device_state, view))
        W, B = self.worlds, self.bodies
        arrays = {}
        for name, (typestr, tail, per_body) in _VIEW_FIELDS.items():
            shape = (W, B) + tail if per_body else (W,)
            arrays[name] = DeviceArray(self._p(), int(ffi.cast("uintptr_t", getattr(view, name))), shape, typestr)
        return DeviceState(**arrays)

    def render(self, width: int = 640, height: int = 480, worlds: Optional[Sequence[int]] = None, *,
               labels: bool = False, title: Optional[str] = None, view_box: Any = None) -> np.ndarray:
        """An RGB picture of worlds as they are now: (height, width, 3) uint8, row 0 at the top
        (tp_batch_render, include/torpor_render.h; what ``torpor run --video`` draws with).

        ``worlds``: indices of the worlds drawn, in a grid of ceil(sqrt(n)) columns (default [0]);
        ``labels``: each cell names its world and its awake / checking / asleep counts; ``title``: a
        60-pixel band above the grid with this line and the colour legend; ``view_box``: (6,) m, a
        world-frame box [min x, y, z, max x, y, z] that every cell frames (default: the drawn worlds'
        dynamic bodies now, so the view follows them). Bodies are coloured by sleep state (awake red,
        sleep-checking orange, sleeping grey, static dark slate). The same state gives the same bytes.
        Raises InvalidArgumentError for a width or height that is not an integer in [16, 8192]
        pixels (height >= 76 with a title), or a bad world or box, and BackendError when the
        library was built without cairo."""
        width, height = _count(width, "width"), _count(height, "height")
        if not (16 <= width <= _RENDER_MAX and 16 <= height <= _RENDER_MAX):
            raise _invalid(f"render: size {width} x {height} (width x height) is outside [16, {_RENDER_MAX}] pixels "
                           "each")
        idx = np.ascontiguousarray([0] if worlds is None else worlds, dtype=np.int32)
        if idx.ndim != 1:
            raise _invalid(f"worlds must be a 1-D list of world indices, got shape {idx.shape}")
        d = ffi.new("tp_render_def *", lib.tp_default_render_def())
        d.width, d.height = width, height
        d.worlds = ffi.cast("int *", idx.ctypes.data)
        d.world_count = idx.size
        d.labels = int(bool(labels))
        text = ffi.new("char[]", title.encode()) if title is not None else ffi.NULL
        d.title = text
        if view_box is not None:
            box = np.asarray(view_box, dtype=np.float32)
            if box.shape != (6,):
                raise ValueError(f"view_box must have shape (6,) [min x, y, z, max x, y, z], got {box.shape}")
            d.has_view_box = 1
            d.view_box = box.tolist()
        out = np.empty((height, width, 3), dtype=np.uint8)
        _check(self._c(lib.tp_batch_render, d, ffi.cast("uint8_t *", out.ctypes.data)))
        return out

    def world_hash(self, world: int) -> int:
        """64-bit FNV-1a hash of one world's state (docs/outputs.md)."""
        out = ffi.new("uint64_t *")
        _check(self._c(lib.tp_batch_world_hash, world, out))
        return int(out[0])

    def state_hash(self) -> int:
        out = ffi.new("uint64_t *")
        _check(self._c(lib.tp_batch_state_hash, out))
        return int(out[0])

    @property
    def episodes(self) -> np.ndarray:
        """(W,) uint32 copy: how many times each world was reset (its draw's episode)."""
        out = np.empty(self.worlds, dtype=np.uint32)
        _check(self._c(lib.tp_batch_episodes, ffi.cast("uint32_t *", out.ctypes.data)))
        return out

    def gravity(self, world: int) -> np.ndarray:
        """(3,) float32 gravity of one world, m/s^2."""
        out = np.empty(3, dtype=np.float32)
        _check(self._c(lib.tp_batch_gravity, world, ffi.cast("float *", out.ctypes.data)))
        return out

    # -- selections and per-world data
    def _selection(self, worlds: WorldSelection) -> tuple[Any, int, list]:
        """The one parser of ``worlds=``: (tp_world_select * or NULL, rows of data,
        arrays to keep alive). The C call checks the indices (range, repeats) and
        names the bad one; here only what C cannot see: the type, the mask's shape
        and indices past int32; and W ints, 0s and 1s, which C would refuse for a
        repeat, are refused here with a hint that a mask is a bool array."""
        if worlds is None:
            return ffi.NULL, self.worlds, []
        a = np.asarray(worlds)
        if a.dtype == np.bool_:
            if a.shape != (self.worlds,):
                raise _invalid(f"a world mask must have shape ({self.worlds},), got {a.shape}; nothing was changed")
            m = np.ascontiguousarray(a, dtype=np.uint8)
            sel = ffi.new("tp_world_select *", lib.tp_world_mask(ffi.cast("uint8_t *", m.ctypes.data)))
            return sel, self.worlds, [m, sel]
        if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
            raise _invalid(f"worlds must be None, a bool mask or a 1-D array of world indices, got {a.dtype} {a.shape}")
        if a.size and (a.min() < -2**31 or a.max() >= 2**31):
            bad = int(a[(a < -2**31) | (a >= 2**31)][0])  # the int32 cast would wrap it into range
            raise _invalid(f"worlds: index {bad} out of range [0, {self.worlds}); nothing was changed")
        if a.size == self.worlds > 1 and a.min() >= 0 and a.max() <= 1 and (a.size > 2 or a[0] == a[1]):
            i = 1 if a[1] == a[0] else 2  # W 0s and 1s with a repeat, which C refuses: the first repeat
            raise _invalid(f"worlds[{i}] = {int(a[i])} names world {int(a[i])} a second time: an int array is a list "
                           "of world indices; a mask must be a bool array (np.asarray(worlds, dtype=bool)); "
                           "nothing was changed")
        idx = np.ascontiguousarray(a, dtype=np.int32)
        # tp_world_list keeps an empty list a list (selecting no world, unlike NULL)
        sel = ffi.new("tp_world_select *", lib.tp_world_list(ffi.cast("int32_t *", idx.ctypes.data), idx.size))
        return sel, idx.size, [idx, sel]

    def _rows(self, x: Any, rows: int, tail: tuple, name: str) -> tuple[Any, np.ndarray]:
        """float32 C-contiguous [rows, *tail] (broadcast if needed) and its pointer."""
        shape, f = (rows,) + tail, _float32(x, name)
        try:
            a = np.ascontiguousarray(np.broadcast_to(f, shape))
        except ValueError:
            raise _invalid(f"{name} must have shape {shape} (or broadcast to it), got {np.shape(x)}") from None
        return ffi.cast("float *", a.ctypes.data), a

    def _call(self, fn: Any, worlds: WorldSelection, *data: tuple) -> None:
        """fn(batch, select, arrays...) with each (value, tail shape, name) of data (None -> NULL)."""
        sel, rows, keep = self._selection(worlds)
        args = []
        for value, tail, name in data:
            if value is None:
                args.append(ffi.NULL)
            else:
                ptr, arr = self._rows(value, rows, tail, name)
                keep.append(arr)
                args.append(ptr)
        _check(self._c(fn, sel, *args))

    def apply_forces(self, force: Any, point: Any = None, worlds: WorldSelection = None) -> None:
        """Forces (N) [rows, B, 3] for the next step, at world points (m) [rows, B, 3] or the centres."""
        B = self.bodies
        self._call(lib.tp_batch_apply_forces, worlds, (force, (B, 3), "force"), (point, (B, 3), "point"))

    def apply_torques(self, torque: Any, worlds: WorldSelection = None) -> None:
        """Torques (N m) [rows, B, 3] for the next step."""
        self._call(lib.tp_batch_apply_torques, worlds, (torque, (self.bodies, 3), "torque"))

    def apply_impulses(self, impulse: Any, point: Any = None, worlds: WorldSelection = None) -> None:
        """Impulses (N s) [rows, B, 3] applied at once, at world points (m) or the centres."""
        B = self.bodies
        self._call(lib.tp_batch_apply_impulses, worlds, (impulse, (B, 3), "impulse"), (point, (B, 3), "point"))

    def set_poses(self, pos: Any, quat: Any, worlds: WorldSelection = None) -> None:
        """Positions (m) [rows, B, 3] and quaternions [x, y, z, w] [rows, B, 4]; static rows skipped."""
        B = self.bodies
        self._call(lib.tp_batch_set_poses, worlds, (pos, (B, 3), "pos"), (quat, (B, 4), "quat"))

    def set_velocities(self, v: Any, w: Any, worlds: WorldSelection = None) -> None:
        """Linear (m/s) and angular (rad/s) velocities [rows, B, 3]; static rows skipped."""
        B = self.bodies
        self._call(lib.tp_batch_set_velocities, worlds, (v, (B, 3), "v"), (w, (B, 3), "w"))

    def set_gravity(self, gravity: Any, worlds: WorldSelection = None) -> None:
        """Gravity (m/s^2) [rows, 3], each component in [-500, 500]."""
        self._call(lib.tp_batch_set_gravities, worlds, (gravity, (3,), "gravity"))

    def set_mass_scale(self, scale: Any, worlds: WorldSelection = None) -> None:
        """Mass scale [rows, B] (each in [0.01, 100]) of the dynamic bodies and articulation links, relative to the model's mass."""
        self._call(lib.tp_batch_set_mass_scales, worlds, (scale, (self.bodies,), "scale"))

    def set_friction(self, friction: Any, worlds: WorldSelection = None) -> None:
        """Friction coefficients [rows, B] (>= 0) of every body."""
        self._call(lib.tp_batch_set_frictions, worlds, (friction, (self.bodies,), "friction"))

    def reset(self, worlds: WorldSelection = None, keyframe: Union[int, str, None] = None) -> None:
        """Reset the selected worlds: each starts its next episode with a new random draw.

        worlds: None (all), an index list or a (W,) bool mask; :attr:`episodes` counts each
        world's resets (the episode its draws are keyed on). keyframe (a name or index of :attr:`Model.keyframe_names`): the joints and
        controls start from that keyframe (tp_batch_reset_to_keyframe), the scene's
        joint noise drawn around it; None: the model's start (its randomize.keyframe,
        else q0 / qd0). InvalidArgumentError for an unknown keyframe, nothing reset."""
        sel, _, keep = self._selection(worlds)
        if keyframe is None:
            _check(self._c(lib.tp_batch_reset_worlds, sel))
        else:
            _check(self._c(lib.tp_batch_reset_to_keyframe, sel, self.model._keyframe_index(keyframe)))

    def reset_to_state(self, pos: Any = None, quat: Any = None, v: Any = None, w: Any = None,
                       worlds: WorldSelection = None, *, joint_q: Any = None, joint_qd: Any = None) -> None:
        """Reset the selected worlds (a new episode, randomized anew), then set their
        dynamic and kinematic bodies' poses pos [rows, B, 3] m + quat [rows, B, 4] and,
        if given, velocities v, w [rows, B, 3] (m/s, rad/s); then, if given, the joint
        state joint_q [rows, nq] (rad, m, quaternions) and joint_qd [rows, nv] (rad/s,
        m/s), the links placed where the joints put them (tp_batch_reset_to_joint_state).
        pos and quat may both be None with a joint state (the bodies keep the reset's
        state). rows = W, or the length of an index list.

        Articulation links, a free root's included, are not posed by pos, quat, v, w:
        their rows are checked but not written, and the reset leaves each tree at its
        initial joint state (tp_batch_reset_to_state). To place a robot, give
        ``joint_q`` / ``joint_qd`` (a free root's pose is its joint_q columns,
        :meth:`Model.joint_slices`).

        Every value is checked before anything is reset (InvalidArgumentError naming
        it; nothing changes)."""
        B = self.bodies
        if joint_q is None and joint_qd is None:
            if pos is None or quat is None:
                raise _invalid("reset_to_state: give pos and quat, or a joint state")
            self._call(lib.tp_batch_reset_to_state, worlds, (pos, (B, 3), "pos"), (quat, (B, 4), "quat"),
                       (v, (B, 3), "v"), (w, (B, 3), "w"))
            return
        nq, nv = self.joint_q.shape[1], self.joint_qd.shape[1]
        self._call(lib.tp_batch_reset_to_joint_state, worlds, (pos, (B, 3), "pos"), (quat, (B, 4), "quat"),
                   (v, (B, 3), "v"), (w, (B, 3), "w"), (joint_q, (nq,), "joint_q"), (joint_qd, (nv,), "joint_qd"))

    # -- joints (include/torpor_joints.h: tp_batch_joints, tp_batch_set_joints)
    def joints(self) -> JointState:
        """Read-only views of the joint arrays (see :class:`JointState`), no copy;
        (W, 0) arrays for a model without joints. On the CUDA backend each call
        first copies the worlds the device changed (as :meth:`state` does)."""
        view = ffi.new("tp_joint_view *")
        _check(self._c(lib.tp_batch_joints, view))  # the same host arrays every call
        if self._joints is None:
            W, nq, nv = int(view.worlds), int(view.nq), int(view.nv)
            arrays = {}
            for name, width in (("q", nq), ("qd", nv), ("f", nv), ("target_q", nv), ("target_qd", nv)):
                ptr = getattr(view, name)
                arrays[name] = (_empty_view(W) if ptr == ffi.NULL else  # no joints: the C view has no arrays
                                _view(self._p(), int(ffi.cast("uintptr_t", ptr)), (W, width), "<f4"))
            self._joints = JointState(**arrays)
        return self._joints

    @property
    def joint_q(self) -> np.ndarray:
        """(W, nq) joint positions, rad or m: ``joints().q``."""
        return self.joints().q

    @property
    def joint_qd(self) -> np.ndarray:
        """(W, nv) joint velocities, rad/s or m/s: ``joints().qd``."""
        return self.joints().qd

    @property
    def joint_f(self) -> np.ndarray:
        """(W, nv) generalised forces for the next step, N m or N: ``joints().f``."""
        return self.joints().f

    @property
    def target_q(self) -> np.ndarray:
        """(W, nv) PD drive target positions, rad or m: ``joints().target_q``."""
        return self.joints().target_q

    @property
    def target_qd(self) -> np.ndarray:
        """(W, nv) drive target velocities, rad/s or m/s: ``joints().target_qd``."""
        return self.joints().target_qd

    def imu(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The IMU of every body at its centre of mass, body frame (tp_batch_imu):
        read-only zero-copy views (v, w, a), each (W, B, 3) float32: linear velocity
        m/s, angular velocity rad/s, and proper acceleration m/s^2 over the last step
        of the last :meth:`step` call ((v_after - v_before) / dt - gravity: 0 in free
        fall, |g| up at rest). The first call turns the sensor on: the arrays read 0
        until the next step, then every step call fills them. Both backends (on CUDA
        computed on the device; each call copies the last step's values into the views)."""
        view = ffi.new("tp_imu_view *")
        _check(self._c(lib.tp_batch_imu, view))  # CUDA: first copies the last step's values
        if self._imu is None:
            shape = (self.worlds, self.bodies, 3)
            self._imu = tuple(_view(self._p(), int(ffi.cast("uintptr_t", getattr(view, k))), shape, "<f4")
                              for k in ("v", "w", "a"))
        return self._imu

    def contact_sensors(self) -> tuple[np.ndarray, np.ndarray]:
        """The contact sensors (tp_batch_contact_sensors): read-only zero-copy views
        (force, touching): force (W, S, 3) float32, the total contact force on each
        sensor shape (normal plus friction) from everything it touches, world frame, N;
        touching (W, S) uint8, 1 where one of its contact points has separation <= 0 or
        a normal force > 0. Columns: :attr:`Model.contact_sensors`. Filled from the
        last step at the first call, then after every :meth:`step`; a reset world reads
        0 until its next step. With ``sleep.skip_constraints`` on (the default), a sensor on
        a sleeping body holds its last reading from before it slept, one on a static body
        reads awake bodies only (a body asleep on it adds nothing), and a body already asleep
        at the first call reads 0 until it wakes. Both backends (on CUDA computed on the device; each call copies the
        last step's values into the views)."""
        view = ffi.new("tp_contact_sensor_view *")
        _check(self._c(lib.tp_batch_contact_sensors, view))  # CUDA: first copies the last step's values
        if self._touch is None:
            W, S = int(view.worlds), int(view.sensors)
            self._touch = (_view(self._p(), int(ffi.cast("uintptr_t", view.force)), (W, S, 3), "<f4"),
                           _view(self._p(), int(ffi.cast("uintptr_t", view.touching)), (W, S), "|u1"))
        return self._touch

    def contacts(self, world: int) -> np.ndarray:
        """The contact points of one world from the last step (tp_batch_contacts), a
        copy in key order: a structured array of shape (n,) with fields body_a,
        body_b (int32, body_a < body_b), point (3,) m and normal (3,) (world frame,
        from A to B), separation m (negative when penetrating), normal_force N,
        friction_force (2,) N, feature (uint32) and key (uint64)."""
        count = ffi.new("int *")
        _check(self._c(lib.tp_batch_contacts, world, ffi.NULL, 0, count))
        out = np.zeros(int(count[0]), dtype=_contact_dtype())
        if out.size:
            _check(self._c(lib.tp_batch_contacts, world, ffi.cast("tp_contact_info *", out.ctypes.data),
                                         out.size, count))
        return out

    # -- actuators (include/torpor_actuators.h: tp_batch_actuators, tp_batch_set_ctrl)
    def _actuator_views(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        view = ffi.new("tp_actuator_view *")
        _check(self._c(lib.tp_batch_actuators, view))  # CUDA: first copies the worlds the device changed
        if self._actuators is None:
            W, nu, nv = int(view.worlds), int(view.nu), int(view.nv)
            arrays = []
            for ptr, width in ((view.ctrl, nu), (view.force, nv), (view.limit_force, nv)):
                arrays.append(_empty_view(W) if ptr == ffi.NULL else  # no actuators (or no joints)
                              _view(self._p(), int(ffi.cast("uintptr_t", ptr)), (W, width), "<f4"))
            self._actuators = (arrays[0], arrays[1], arrays[2])
        return self._actuators

    @property
    def ctrl(self) -> np.ndarray:
        """(W, nu) float32 read-only view of the actuator controls, no copy: held from
        step to step until written with :meth:`set_ctrl` (a reset sets them to 0);
        columns in :attr:`Model.actuator_names` order. (W, 0) without actuators."""
        return self._actuator_views()[0]

    @property
    def actuator_force(self) -> np.ndarray:
        """(W, nv) float32 read-only view, no copy: the actuators' generalised force on
        each dof (gear x force, N m or N) in the last substep of the last step."""
        return self._actuator_views()[1]

    @property
    def limit_force(self) -> np.ndarray:
        """(W, nv) float32 read-only view, no copy: the joint-limit constraint force on
        each dof (N m or N) in the last substep of the last step; 0 off the limits."""
        return self._actuator_views()[2]

    def set_ctrl(self, u: Any, worlds: WorldSelection = None) -> None:
        """Write the controls of the selected worlds: u of shape (rows, nu), or (nu,)
        broadcast to every row (rows = W, or the length of an index list). They act in
        every substep of every later step until written again; ctrl_range clamps
        them where they act. A non-finite value, a bad selection or a model
        without actuators raises InvalidArgumentError and nothing changes."""
        nu = self.model.actuator_count
        if nu == 0:
            raise _invalid(f"set_ctrl: model {self.model.name!r} has no actuators")
        self._call(lib.tp_batch_set_ctrl, worlds, (u, (nu,), "u"))

    # -- movers (include/torpor_movers.h: tp_batch_set_mover_targets, tp_batch_set_mover_enabled, tp_batch_movers)
    def _mover_mask(self, movers: Any) -> tuple[Any, list]:
        """(uint8_t * [M] or NULL, arrays to keep alive) from None (every mover), a
        mover name or index, or a list of them (each once)."""
        M = self.model.mover_count
        if M == 0:
            raise _invalid(f"model {self.model.name!r} has no movers")
        if movers is None:
            return ffi.NULL, []
        mask = np.zeros(M, np.uint8)
        mask[_pick("mover", movers, self.model.mover_names)] = 1
        return ffi.cast("uint8_t *", mask.ctypes.data), [mask]

    def set_mover_targets(self, targets: Any, worlds: WorldSelection = None, movers: Any = None) -> None:
        """Write the movers' targets of the selected worlds (docs/movers.md): targets of
        shape (rows, M, 4) with M = :attr:`Model.mover_count` whatever ``movers`` picks,
        broadcast as needed (one (4,) target for every row and mover included); rows =
        W, or the length of an index list. AlignPosition a point (m, world),
        AlignOrientation a quaternion [x, y, z, w], LinearVelocity its line / plane /
        vector speeds (m/s), AngularVelocity rad/s, VectorForce N, Torque N m, the rest 0.
        movers: None (every mover), one name or index, or a list of them (each once);
        the columns of the movers not picked are not read (so the shape stays (rows, M,
        4), unlike :meth:`set_constraint_params`' picked columns). InvalidArgumentError,
        nothing changed: a non-finite value (naming row, mover and component), an
        unknown or repeated mover, a model without movers. A change wakes the mover's body."""
        mask, keep = self._mover_mask(movers)
        M = self.model.mover_count
        self._call(lambda b, sel, t: lib.tp_batch_set_mover_targets(b, sel, t, mask), worlds,
                   (targets, (M, 4), "targets"))
        del keep

    def set_mover_enabled(self, enabled: Any, worlds: WorldSelection = None, movers: Any = None) -> None:
        """Enable or disable the movers of the selected worlds: enabled of shape (rows, M),
        M = :attr:`Model.mover_count`, broadcast as needed (one value for all included),
        each a bool or the number 0 or 1; movers and rows as :meth:`set_mover_targets`
        (the movers not picked are not read). InvalidArgumentError, nothing changed: any
        other value (NaN, 2, a string: naming it and its index in ``enabled``), a bad
        shape or selection, an unknown or repeated mover. A change wakes the mover's
        body; a disabled mover pushes nothing and keeps nothing awake."""
        mask, keep = self._mover_mask(movers)
        sel, rows, keep_sel = self._selection(worlds)
        e = _flags(enabled, (rows, self.model.mover_count), "enabled")
        _check(self._c(lib.tp_batch_set_mover_enabled, sel, ffi.cast("uint8_t *", e.ctypes.data), mask))
        del keep, keep_sel

    def movers(self) -> dict:
        """Copies of every mover's state in every world after the last step: "target"
        (W, M, 4) float32, "active" (W, M) bool (enabled and its attachment rules hold),
        "force" (W, M) float32 (the norm of its push over the last step, N or N m)."""
        W, M = self.worlds, self.model.mover_count
        t = np.zeros((W, M, 4), np.float32)
        a = np.zeros((W, M), np.uint8)
        f = np.zeros((W, M), np.float32)
        if M:
            _check(self._c(lib.tp_batch_movers, ffi.cast("float *", t.ctypes.data), ffi.cast("uint8_t *", a.ctypes.data),
                           ffi.cast("float *", f.ctypes.data)))
        return {"target": t, "active": a.astype(np.bool_), "force": f}

    # -- per-world robot parameters (include/torpor_actuators.h: tp_batch_set_robot_params)
    def _robot_param(self, name: str) -> tuple[int, int]:
        if name not in _ROBOT_PARAMS:
            raise _invalid(f"unknown robot parameter {name!r}; expected one of "
                                          f"{', '.join(map(repr, _ROBOT_PARAMS))}")
        which = _ROBOT_PARAMS[name]
        return which, self.model.joint_count if name.startswith("joint_") else self.model.actuator_count

    def robot_params(self, name: str) -> np.ndarray:
        """(W, J) or (W, nu) float32 copy of one per-world robot parameter (tp_batch_robot_params):
        "joint_damping" (N m s/rad or N s/m), "joint_armature" (kg m^2 or kg), "joint_friction"
        (friction loss, N m or N) per joint in :attr:`Model.joint_names` order; "actuator_gear",
        "actuator_kp", "actuator_kv" per actuator (kp of position actuators, kv of position and velocity
        ones, 0 elsewhere). Each reset sets them to the model's values times the randomize block's
        draws (``joint_damping_scale`` ...). Both backends (CUDA: copied back from the device)."""
        which, n = self._robot_param(name)
        out = np.zeros((self.worlds, n), np.float32)
        _check(self._c(lib.tp_batch_robot_params, which, ffi.cast("float *", out.ctypes.data)))
        return out

    def set_robot_params(self, name: str, values: Any, worlds: WorldSelection = None) -> None:
        """Write one per-world robot parameter (names as :meth:`robot_params`) of the selected worlds
        (None = all, an index list or a bool mask): values (rows, J or nu), or one row broadcast. Every
        value is checked first (finite, >= 0, gear not 0, kp / kv only where the actuator has them);
        a bad one raises InvalidArgumentError naming it and nothing changes. Fixed and free joints'
        columns are skipped. Holds until the next reset; a change wakes the world's trees."""
        which, n = self._robot_param(name)
        self._call(lambda b, sel, v: lib.tp_batch_set_robot_params(b, which, sel, v), worlds, (values, (n,), name))

    # -- per-world link COM offsets (include/torpor_actuators.h: tp_batch_set_link_com_offsets)
    def link_com_offsets(self) -> np.ndarray:
        """(W, J, 3) float32 copy of every world's link COM offsets (m, in each link's frame;
        tp_batch_link_com_offsets): row j is the offset of the centre of mass of joint j's link
        (its child body, :attr:`Model.joint_names` order) from the model's COM
        (:meth:`Model.body_inertia`). The link's mass and its inertia about the COM stay the
        model's, so its inertia about the joint changes by the parallel-axis theorem. Each reset
        sets them to 0, or draws each component k uniform in [-a_k, a_k] for
        ``randomize.link_com_offset`` = [a_x, a_y, a_z] (per world and episode: the same bits
        at any world count). Both backends (CUDA: copied back from the device). Raises
        InvalidArgumentError for a model without joints."""
        out = np.zeros((self.worlds, self.model.joint_count, 3), np.float32)
        _check(self._c(lib.tp_batch_link_com_offsets, ffi.cast("float *", out.ctypes.data)))
        return out

    def set_link_com_offsets(self, offsets: Any, worlds: WorldSelection = None) -> None:
        """Write the link COM offsets (m, link frame; see :meth:`link_com_offsets`) of the selected
        worlds (None = all, an index list or a bool mask): offsets (rows, J, 3), or (J, 3)
        broadcast to every row. Every value is checked first (finite, |d| <= 1e4 m); a bad one
        raises InvalidArgumentError naming its row, joint, axis, link and world, and nothing
        changes. joint_q and joint_qd are kept (a free base's linear velocity is its COM's), the
        links are placed again and a changed world's trees wake. Holds until the next reset."""
        J = self.model.joint_count
        self._call(lib.tp_batch_set_link_com_offsets, worlds, (offsets, (J, 3), "offsets"))

    # -- constraints between two bodies (include/torpor_constraints.h)
    def _constraint_param(self, name: str) -> int:
        which = lib.TP_CONS_PARAM_COUNT
        for k in range(int(lib.TP_CONS_PARAM_COUNT)):
            if ffi.string(lib.tp_constraint_param_name(k)).decode() == name:
                which = k
        if which == lib.TP_CONS_PARAM_COUNT:
            names = [ffi.string(lib.tp_constraint_param_name(k)).decode() for k in range(int(lib.TP_CONS_PARAM_COUNT))]
            raise _invalid(f"unknown constraint parameter {name!r}; expected one of {names}")
        return which

    def constraint_params(self, name: str) -> np.ndarray:
        """(W, C) float32 copy of one per-world constraint parameter (tp_batch_constraint_params),
        C = :attr:`Model.constraint_count`, columns in :attr:`Model.constraint_names` order: "enabled"
        (0 or 1), "velocity" (motor, rad/s or m/s), "target" (servo, rad or m), "speed" (servo, > 0),
        "max_force" (N m or N), "length" (rope, rod, spring free length, m; a rope's as its winch moves
        it), "restitution", "stiffness" (N/m), "damping" (N s/m), "winch" (0 or 1), "winch_target" (m),
        "winch_speed" (m/s), "winch_responsiveness", "winch_force" (N). Each reset sets the model's."""
        which = self._constraint_param(name)
        out = np.zeros((self.worlds, self.model.constraint_count), np.float32)
        _check(self._c(lib.tp_batch_constraint_params, which, ffi.cast("float *", out.ctypes.data)))
        return out

    def set_constraint_params(self, name: str, values: Any, worlds: WorldSelection = None,
                              constraints: Union[None, int, str, Sequence[Union[int, str]]] = None) -> None:
        """Write one per-world constraint parameter (names as :meth:`constraint_params`) of the selected
        worlds (None = all, an index list or a bool mask; rows = W, or the length of an index list):
        values (rows, C), C = :attr:`Model.constraint_count`; or, when ``constraints`` (one name or
        index, or a list of them, each once) picks columns, (rows, K) with K the number picked, column
        k for the k-th constraint picked (the others keep their values); broadcast as needed (one row,
        or one value, for all). Every value is checked first (InvalidArgumentError naming row, column and
        constraint; nothing changes), and an unknown or repeated constraint is an InvalidArgumentError
        too; a constraint without that parameter takes only its present value.
        A changed value wakes the constraint's bodies; it holds until the next reset. Seed 004's
        semantics (docs/constraints.md): servo targets, motor speeds, winch targets and ``enabled``
        act from the next step."""
        which, C = self._constraint_param(name), self.model.constraint_count
        if constraints is None:
            self._call(lambda b, sel, v: lib.tp_batch_set_constraint_params(b, which, sel, v), worlds,
                       (values, (C,), name))
            return
        cols = _pick("constraint", constraints, self.model.constraint_names)
        sel, rows, keep = self._selection(worlds)
        _, part = self._rows(values, rows, (len(cols),), name)
        full = self.constraint_params(name)
        if worlds is not None and np.asarray(worlds).dtype != np.bool_:
            idx = np.asarray(worlds, dtype=np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= self.worlds):
                bad = int(idx[(idx < 0) | (idx >= self.worlds)][0])
                raise _invalid(f"worlds: index {bad} out of range [0, {self.worlds}); nothing was changed")
            full = full[idx]
        full[:, cols] = part
        full = np.ascontiguousarray(full)
        _check(self._c(lambda b, s, v: lib.tp_batch_set_constraint_params(b, which, s, v), sel,
                       ffi.cast("float *", full.ctypes.data)))

    def constraints(self) -> tuple[np.ndarray, np.ndarray]:
        """(value, force), each (W, C) float32 copies after the last step (tp_batch_constraints):
        value is a hinge's angle (rad), a slider's position (m), the distance between the attachments
        of a ball socket, rope, spring or rod (m), 0 for a weld; force the constraint's force on body1
        (N): the norm of its summed impulse over the step / dt."""
        W, C = self.worlds, self.model.constraint_count
        value, force = np.zeros((W, C), np.float32), np.zeros((W, C), np.float32)
        if C:
            _check(self._c(lib.tp_batch_constraints, ffi.cast("float *", value.ctypes.data),
                           ffi.cast("float *", force.ctypes.data)))
        return value, force

    def constraint_impulses(self) -> np.ndarray:
        """(W, C, 3) float32 copy: each constraint's impulse on body1 over the last step, world
        frame, N s (tp_batch_constraint_impulses)."""
        out = np.zeros((self.worlds, self.model.constraint_count, 3), np.float32)
        if out.size:
            _check(self._c(lib.tp_batch_constraint_impulses, ffi.cast("float *", out.ctypes.data)))
        return out

    def set_joints(self, *, q: Any = None, qd: Any = None, f: Any = None, target_q: Any = None,
                   target_qd: Any = None, worlds: WorldSelection = None) -> None:
        """Write joint arrays of the selected worlds (tp_batch_set_joint_arrays), each given one:

        q [rows, nq] rad or m (ball and free quaternions are normalized; a zero
        one is refused); qd [rows, nv] rad/s or m/s; f [rows, nv] N m or N,
        applied in the next step only; target_q [rows, nv] rad or m and
        target_qd [rows, nv] rad/s or m/s, the drive targets. rows is the
        length of an index list, W otherwise (rows of unmasked worlds are not
        read); a value broadcasts to that shape. |q| and |target_q| of a 1-dof
        joint are at most 1e6 (TP_MAX_JOINT_Q), every |qd| and |target_qd| at
        most 1e4 (TP_MAX_JOINT_QD).

        Writing q or qd moves the links' bodies (the state views) at once;
        writing anything but f wakes the world's trees. The arrays given are
        written in one all-or-nothing C call (tp_batch_set_joint_arrays): a
        non-finite value, a zero quaternion, a bad world list or a model
        without joints raises InvalidArgumentError with the C message and
        nothing changes, sleep states and timers included.
        """
        given = [(k, v) for k, v in (("q", q), ("qd", qd), ("f", f), ("target_q", target_q),
                                     ("target_qd", target_qd)) if v is not None]
        sel, n_rows, keep = self._selection(worlds)
        view = self.joints()
        no_joints = view.q.shape[1] == 0 and view.qd.shape[1] == 0
        arrays = ffi.new("const float *[]", lib.TP_JOINT_ARRAY_COUNT)  # NULL: left alone
        for key, value in given:
            width = 0 if no_joints else getattr(view, key).shape[1]
            arrays[_JOINT_ARRAYS[key]], arr = self._rows(value, n_rows, (width,), key)
            keep.append(arr)
        _check(self._c(lib.tp_batch_set_joint_arrays, sel, arrays))
