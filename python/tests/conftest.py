"""Shared paths and states of the udk-dynamics tests."""

from pathlib import Path

import numpy as np
import pytest

import udk

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "examples" / "models"
UR5 = ROOT / "robots" / "ur5_robot.urdf"


@pytest.fixture(scope="session")
def ur5():
    """The UR5 of example-robot-data, default options (gravity −9.81 z)."""
    return udk.Model.from_urdf(UR5)


def random_states(n, count, seed=7):
    """`count` states (q, q̇) of n coordinates, uniform in [−π, π] and [−2, 2]."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-2.0, 2.0, (count, n))
