"""`Model.from_urdf(path, floating_base=True)` against Pinocchio with `JointModelFreeFlyer`
(`pin.aba`, `pin.crba`, `pin.rnea`, `pin.integrate`), where Pinocchio is installed."""

import numpy as np
import pytest

import udk
from conftest import ROOT

pin = pytest.importorskip(
    "pinocchio",
    reason="Pinocchio (`pip install pin`) is not installed: no reference for the floating base",
)

ROBOTS = ROOT / "robots" / "example-robot-data"
SOLO12 = ROBOTS / "solo_description" / "robots" / "solo12.urdf"
HECTOR = ROBOTS / "hector_description" / "robots" / "quadrotor_base.urdf"


def states(reference, count, seed):
    """`count` random (q, v, τ) of `reference`: base position and unit quaternion, joints in
    [−π, π], velocities and efforts uniform."""
    rng = np.random.default_rng(seed)
    n = reference.nv - 6
    for _ in range(count):
        quaternion = rng.normal(size=4)
        quaternion /= np.linalg.norm(quaternion)
        q = np.concatenate([rng.uniform(-1, 1, 3), quaternion, rng.uniform(-np.pi, np.pi, n)])
        yield q, rng.uniform(-2, 2, reference.nv), rng.uniform(-3, 3, n)


@pytest.mark.parametrize("urdf", [SOLO12, HECTOR], ids=["solo12", "hector"])
def test_acceleration_matches_aba(urdf):
    model = udk.Model.from_urdf(urdf, floating_base=True)
    assert isinstance(model, udk.FloatingBaseModel)
    reference = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    data = reference.createData()
    assert (model.nq, model.nv) == (reference.nq, reference.nv)
    for q, v, tau in states(reference, 10, seed=3):
        a = model.acceleration(q, v, tau)
        expected = pin.aba(reference, data, q, v, np.concatenate([np.zeros(6), tau]))
        scale = max(1.0, np.abs(expected).max())
        assert np.abs(a - expected).max() <= 1e-10 * scale, (a, expected)


def test_mass_matrix_inverse_dynamics_and_integrate_match_pinocchio():
    model = udk.Model.from_urdf(SOLO12, floating_base=True)
    reference = pin.buildModelFromUrdf(str(SOLO12), pin.JointModelFreeFlyer())
    data = reference.createData()
    rng = np.random.default_rng(8)
    for q, v, _ in states(reference, 5, seed=4):
        expected = pin.crba(reference, data, q)
        expected = np.triu(expected) + np.triu(expected, 1).T
        assert np.allclose(model.mass_matrix(q), expected, rtol=0, atol=1e-12)
        a = rng.uniform(-1, 1, reference.nv)
        assert np.allclose(
            model.inverse_dynamics(q, v, a), pin.rnea(reference, data, q, v, a), atol=1e-10
        )
        assert np.allclose(
            model.integrate(q, v, 0.01), pin.integrate(reference, q, v * 0.01), atol=1e-14
        )


def test_floating_base_refuses_fixed_base_options_and_bad_states():
    with pytest.raises(udk.BadInputError, match="floating-base"):
        udk.Model.from_urdf(SOLO12, floating_base=True, joint_damping=True)
    model = udk.Model.from_urdf(HECTOR, floating_base=True)
    with pytest.raises(udk.BadInputError, match="quaternion"):
        model.acceleration([0.0] * 7, [0.0] * 6)
    with pytest.raises(udk.BadInputError, match="entries"):
        model.acceleration([0.0] * 6, [0.0] * 6)
