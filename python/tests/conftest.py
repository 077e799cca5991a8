"""Shared fixtures: the repository's scenes and a small randomized model."""
from pathlib import Path

import pytest

import torpor

ROOT = Path(__file__).resolve().parents[2]

RAND_SCENE = """{"name": "rand", "randomize": {"seed": 11, "pos_noise": 0.03, "yaw_noise_deg": 15,
 "mass_scale": [0.8, 1.25], "friction_range": [0.3, 0.8]},
 "bodies": [{"shape": "box", "size": [4, 4, 0.2], "pos": [0, 0, -0.1], "static": true},
 {"shape": "box", "size": [0.4, 0.4, 0.4], "pos": [0, 0, 0.2]},
 {"shape": "box", "size": [0.4, 0.4, 0.4], "pos": [0, 0, 0.6]},
 {"shape": "box", "size": [0.4, 0.4, 0.4], "pos": [0, 0, 1.0]}]}"""


@pytest.fixture(scope="session")
def tower() -> torpor.Model:
    return torpor.Model.load(ROOT / "scenes" / "tower.json")


@pytest.fixture(scope="session")
def rand_model() -> torpor.Model:
    return torpor.Model.from_json(RAND_SCENE, "rand")
