"""The UR5 of example-robot-data against Pinocchio's articulated-body algorithm
(`pin.aba`, Featherstone 2008, ch. 7), where Pinocchio is installed."""

import numpy as np
import pytest

from conftest import UR5, random_states

pin = pytest.importorskip(
    "pinocchio", reason="Pinocchio (`pip install pin`) is not installed: no reference for the UR5"
)


def test_ur5_acceleration_matches_aba(ur5):
    reference = pin.buildModelFromUrdf(str(UR5))
    data = reference.createData()
    assert reference.nq == ur5.n == 6
    q, qd = random_states(6, 20, seed=11)
    tau = np.random.default_rng(5).uniform(-5.0, 5.0, (20, 6))
    for i in range(20):
        ur5.u = list(tau[i])
        qdd = ur5.acceleration(q[i], qd[i])
        expected = pin.aba(reference, data, q[i], qd[i], tau[i])
        scale = max(1.0, np.abs(expected).max())
        assert np.abs(qdd - expected).max() <= 1e-10 * scale, (i, qdd, expected)
    ur5.u = [0.0] * 6


def test_ur5_mass_matrix_matches_crba(ur5):
    reference = pin.buildModelFromUrdf(str(UR5))
    data = reference.createData()
    q, qd = random_states(6, 5, seed=2)
    for i in range(5):
        expected = pin.crba(reference, data, q[i])
        expected = np.triu(expected) + np.triu(expected, 1).T
        assert np.allclose(ur5.terms(q[i], qd[i])["M"], expected, rtol=0, atol=1e-12)
