"""The papers' example models (examples/models/) against the `udk` command line's results
(cli_results.json, written by make_cli_results.py): the JIT evaluates the tape the command
line interprets, through the same kernels, so the two agree to rounding."""

import json
from pathlib import Path

import numpy as np
import pytest

import udk
from conftest import MODELS

RESULTS = json.loads((Path(__file__).parent / "cli_results.json").read_text())
LAGRANGIAN = {
    "acceleration": lambda m, s: m.acceleration(s["q"], s["qd"], s["t"]),
    "constraint_force": lambda m, s: m.constraint_force(s["q"], s["qd"], s["t"]),
    "mass_matrix": lambda m, s: m.terms(s["q"], s["qd"], s["t"])["M"],
    "generalized_force": lambda m, s: m.terms(s["q"], s["qd"], s["t"])["Q"],
    "constraint_matrix": lambda m, s: m.terms(s["q"], s["qd"], s["t"])["A"],
    "constraint_rhs": lambda m, s: m.terms(s["q"], s["qd"], s["t"])["b"],
}
HAMILTONIAN = {
    "momentum_rate": lambda m, s: m.momentum_rate(s["q"], s["p"], s["t"]),
    "h_p": lambda m, s: m.hamiltonian_terms(s["q"], s["p"], s["t"])["H_p"],
    "h_q": lambda m, s: m.hamiltonian_terms(s["q"], s["p"], s["t"])["H_q"],
    "h_pp": lambda m, s: m.hamiltonian_terms(s["q"], s["p"], s["t"])["H_pp"],
    "a_p": lambda m, s: m.hamiltonian_terms(s["q"], s["p"], s["t"])["A_p"],
    "b_p": lambda m, s: m.hamiltonian_terms(s["q"], s["p"], s["t"])["b_p"],
}


def close(actual, expected):
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    if expected.size == 0:
        return actual.size == 0
    scale = max(1.0, np.abs(expected).max())
    return actual.shape == expected.shape and np.abs(actual - expected).max() <= 1e-12 * scale


@pytest.mark.parametrize("file", sorted(k for k, v in RESULTS.items() if "error" not in v))
def test_example_matches_cli(file):
    expected = RESULTS[file]
    model = udk.Model.from_file(MODELS / file)
    state = expected["state"]
    if "u" in state:
        model.u = state["u"]
    functions = HAMILTONIAN if expected["kind"] == "hamiltonian" else LAGRANGIAN
    for key, function in functions.items():
        assert close(function(model, state), expected[key]), (file, key)
    if "outputs" in expected:
        velocity = state["p"] if model.hamiltonian else state["qd"]
        values = dict(zip(model.output_columns, model.outputs(state["q"], velocity, state["t"])))
        for name, value in expected["outputs"].items():
            components = [values[name]] if name in values else [
                values[f"{name}.{c}"] for c in "xyz"
            ]
            assert close(components, np.atleast_1d(value)), (file, name)


@pytest.mark.parametrize("file", sorted(k for k, v in RESULTS.items() if "error" in v))
def test_example_fails_as_the_cli(file):
    """The command line's message after `FILE: ` (`at t = 0: ` and the kernel's message)."""
    expected = RESULTS[file]
    model = udk.Model.from_file(MODELS / file)
    message = expected["error"].split(": at t = 0: ", 1)[1]
    with pytest.raises(udk.MotionError) as raised:
        spec = json.loads(model.spec)["initial"]
        model.acceleration(spec["q0"], spec["qd0"])
    assert str(raised.value) == message
