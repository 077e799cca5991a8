"""torpor: many replicated rigid-body worlds with island sleep, from Python.

A thin layer over the C library libtorpor (CFFI, declarations read from
torpor.h): the C library is the one implementation. Quick start::

    import numpy as np, torpor
    model = torpor.Model.load("scenes/tower.json")
    batch = torpor.Batch(model, worlds=1024)
    s = batch.state()                    # read-only NumPy views, no copy on the CPU
    push = np.zeros((2, batch.bodies, 3), np.float32); push[:, 10, 0] = 2.0
    batch.apply_impulses(push, worlds=[3, 7])
    batch.step(60)
    fallen = s.pos[:, 10, 2] < 5.0       # (W,) the top cube fell
    batch.reset(fallen)                  # mask reset: a new random draw per world

Units are SI (m, kg, s, rad, N), z up, quaternions [x, y, z, w], float32.

Errors: a failed library call raises a subclass of :class:`TorporError`, one
per C status: InvalidArgumentError and SceneError (both ValueError),
FileError (OSError), OutOfMemoryError (MemoryError), CapacityError
(ValueError), BackendError (RuntimeError). Each carries ``status`` and the C
library's message, which names the bad value and where it came from.
"""
from ._ffi import library_path
from .core import (BackendError, Batch, CapacityError, FileError, InvalidArgumentError, JointState, Model,
                   OutOfMemoryError, SceneError, State, TorporError, View, WorldSelection, cuda_built,
                   cuda_device_count, import_scene)

__version__ = "0.1.0"


def _register_gymnasium_envs() -> None:
    """torpor/<Task>-v0 for Gymnasium's make and make_vec, when Gymnasium is installed."""
    import importlib.util

    if importlib.util.find_spec("gymnasium") is not None:
        from .envs.registration import register_envs
        register_envs()


_register_gymnasium_envs()

__all__ = ["Batch", "Model", "State", "JointState", "TorporError", "InvalidArgumentError", "SceneError", "FileError",
           "OutOfMemoryError", "CapacityError", "BackendError", "View", "WorldSelection", "cuda_built",
           "cuda_device_count", "import_scene", "library_path", "__version__"]
