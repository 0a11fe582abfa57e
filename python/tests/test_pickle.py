"""A model pickles as its spec, parameter values and inputs, and is derived again."""

import pickle

import numpy as np

import udk
from conftest import MODELS, UR5


def test_pickle_round_trip_keeps_parameters_and_inputs():
    model = udk.Model.from_file(MODELS / "cart_double_pendulum.toml")
    model.set_parameters(g=3.7)
    copy = pickle.loads(pickle.dumps(model))
    assert copy.parameters == model.parameters and copy.parameters["g"] == 3.7
    q, qd = np.array([0.1, 0.2, -0.3]), np.array([0.5, 0.0, 1.0])
    assert np.array_equal(copy.acceleration(q, qd), model.acceleration(q, qd))


def test_pickled_urdf_robot():
    robot = udk.Model.from_urdf(UR5, gravity=[0.0, 0.0, -1.62])
    robot.u = [1.0, 2.0, 3.0, 0.1, 0.2, 0.3]
    copy = pickle.loads(pickle.dumps(robot))
    assert copy.u == robot.u
    q = np.linspace(-1.0, 1.0, 6)
    assert np.array_equal(copy.acceleration(q, -q), robot.acceleration(q, -q))


def test_equations_latex():
    model = udk.Model.from_file(MODELS / "double_pendulum_minimal.toml")
    equations = model.equations()
    latex = equations._repr_latex_()
    assert latex.startswith("$$") and latex.endswith("$$")
    assert "M_{1,1}" in latex and "\\begin{aligned}" in latex
    assert "M[1,1]" in str(equations)
