"""Errors are Python exceptions with the messages of udk::ModelError (the CLI's)."""

import numpy as np
import pytest

import udk
from conftest import MODELS


@pytest.fixture(scope="module")
def pendulum():
    return udk.Model.from_file(MODELS / "double_pendulum_minimal.toml")


def test_bad_shape(pendulum):
    name = pendulum.name
    with pytest.raises(udk.BadInputError, match=f"`q` has 3 entries but `{name}` needs 2"):
        pendulum.acceleration([0.0, 0.0, 0.0], [0.0, 0.0])
    with pytest.raises(udk.BadInputError, match=f"`qd` has 1 entries but `{name}` needs 2"):
        pendulum.acceleration(np.zeros((4, 2)), np.zeros((4, 1)))
    with pytest.raises(udk.BadInputError, match="`q` has 4 states"):
        pendulum.acceleration(np.zeros((4, 2)), np.zeros((3, 2)))
    with pytest.raises(udk.BadInputError, match="not of shapes"):
        pendulum.acceleration(np.zeros((1, 2, 2)), np.zeros((1, 2, 2)))
    with pytest.raises(udk.BadInputError, match="`t` must be a number"):
        pendulum.acceleration([0.0, 0.0], [0.0, 0.0], [0.0, 1.0])


def test_unknown_parameter(pendulum):
    with pytest.raises(udk.BadInputError, match="`mass` is not a parameter of .*parameters: "):
        pendulum.set_parameters(mass=1.0)


def test_missing_parameter():
    model = udk.Model.from_spec({
        "name": "Spring",
        "coordinates": ["x"],
        "parameters": [{"name": "k"}],
        "lagrangian": "0.5 * dot(x).powi(2) - 0.5 * k * x.powi(2)",
    })
    with pytest.raises(udk.BadInputError, match="parameter `k` of `Spring` has no value"):
        model.acceleration([1.0], [0.0])
    model.set_parameters({"k": 4.0})
    assert model.acceleration([1.0], [0.0])[0] == -4.0


def test_non_unique_acceleration():
    """A massless particle with no constraint: [M; A] = [0] has rank 0 < n."""
    model = udk.Model.from_spec({
        "name": "Massless",
        "coordinates": ["x"],
        "parameters": [{"name": "m", "value": 0.0}],
        "lagrangian": "0.5 * m * dot(x).powi(2)",
    })
    with pytest.raises(udk.MotionError, match="not unique"):
        model.acceleration([0.0], [0.0])


def test_derivation_errors_are_listed():
    with pytest.raises(udk.BadInputError, match="model `Bad`: .*unknown"):
        udk.Model.from_spec({"name": "Bad", "coordinates": ["x"], "lagrangian": "dot(x) * y"})


def test_unreadable_file(tmp_path):
    with pytest.raises(udk.BadInputError, match="missing.toml"):
        udk.Model.from_file(tmp_path / "missing.toml")


def test_wrong_kind(pendulum):
    with pytest.raises(udk.BadInputError, match="is not a Hamiltonian model"):
        pendulum.momentum_rate([0.0, 0.0], [0.0, 0.0])
