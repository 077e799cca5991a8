"""Registration of torpor's environments with Gymnasium, without importing them."""
from __future__ import annotations

TASKS = {  # id: (module, class stem, Gymnasium's max_episode_steps)
    "InvertedPendulum": ("classic", "InvertedPendulum", 1000),
    "InvertedDoublePendulum": ("classic", "InvertedDoublePendulum", 1000),
    "Reacher": ("classic", "Reacher", 50),
    "Hopper": ("locomotion", "Hopper", 1000),
    "HalfCheetah": ("locomotion", "HalfCheetah", 1000),
    "Walker2d": ("locomotion", "Walker2d", 1000),
    "Ant": ("locomotion", "Ant", 1000),
    "Humanoid": ("locomotion", "Humanoid", 1000),
    "Clutter": ("clutter", "Clutter", 200),
    "Topple": ("topple", "Topple", None),
}


def register_envs() -> None:
    """Register ``torpor/<Task>-v0`` for every task of :data:`TASKS` (idempotent).

    The single form's entry point is ``torpor.envs.<module>:<Task>Env`` (Gymnasium
    adds the time limit); ``make_vec`` calls ``<Task>VecEnv(num_envs, **kwargs)``,
    which truncates at the same step count itself."""
    import gymnasium

    for task, (module, stem, steps) in TASKS.items():
        env_id = f"torpor/{task}-v0"
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(id=env_id, entry_point=f"torpor.envs.{module}:{stem}Env",
                           vector_entry_point=f"torpor.envs.{module}:{stem}VecEnv", max_episode_steps=steps)
