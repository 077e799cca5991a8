"""Gymnasium environments on torpor batches (needs ``gymnasium``).

- :mod:`torpor.envs.topple`: "topple the tower" (:class:`ToppleVecEnv`, :class:`ToppleEnv`);
- :mod:`torpor.envs.classic` and :mod:`torpor.envs.locomotion`: Gymnasium's MuJoCo v5
  tasks on the same MJCF models imported into torpor (InvertedPendulum,
  InvertedDoublePendulum, Reacher, Hopper, HalfCheetah, Walker2d, Ant, Humanoid), on
  the shared machinery of :mod:`torpor.envs.base`;
- :mod:`torpor.envs.clutter`: a fixed-base arm pushing a marked box through a bin of
  resting objects, the task where sleep pays.

``import torpor`` registers them with Gymnasium (:func:`register_envs`) as
``torpor/<Task>-v0``: ``gymnasium.make_vec("torpor/Ant-v0", num_envs=4096)`` makes
one batch of 4,096 worlds, ``gymnasium.make("torpor/Ant-v0")`` the single form.
"""
from .registration import TASKS, register_envs
from .topple import ToppleEnv, ToppleVecEnv, tower_model

__all__ = ["ToppleEnv", "ToppleVecEnv", "tower_model", "register_envs", "TASKS"]
