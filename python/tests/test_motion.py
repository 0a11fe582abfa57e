"""Model.simulate and Model.linearize: published values and properties."""

import numpy as np
import pytest

import udk
from conftest import MODELS


def test_whipple_bicycle_has_the_published_eigenvalues():
    """Meijaard, Papadopoulos, Ruina & Schwab (2007), Table 2, at v = 5 m/s: upright, roll
    (3) and steer (6) independent, the rear-wheel rate (5) held (as udk-cli's test)."""
    model = udk.Model.from_file(MODELS / "whipple_bicycle.toml")
    q = [0, 0, 0, 0, np.pi / 10, 0, 0, 0]
    qd = [5, 0, 0, 0, 0, -5 / 0.3, 0, -5 / 0.35]
    linear = model.linearize(q, qd, independent=[3, 6], held_velocities=[5])
    assert linear["dependent"] == [4] and linear["held_velocities"] == [5]
    expected = np.array([-14.0783896927982, -0.77534188219585 - 4.46486771378823j,
                         -0.77534188219585 + 4.46486771378823j, -0.32286642900409])
    assert np.allclose(linear["eigenvalues"], expected, rtol=0, atol=1e-10)
    assert linear["A"].shape == (4, 4) and linear["B"].shape == (4, 0)


def test_linearize_off_the_constraints_names_the_row():
    model = udk.Model.from_file(MODELS / "four_bar.toml")
    with pytest.raises(udk.BadInputError, match="holonomic"):
        model.linearize([1.0, 0.5, 1.7], [0.0, 0.0, 0.0])


def test_simulate_four_bar_from_its_file_state():
    """The four-bar's crank at 1 rad turning at 6 rad/s, no friction: the energy is kept and
    the loop stays closed."""
    model = udk.Model.from_file(MODELS / "four_bar.toml")
    run = model.simulate(1.0, dt=0.01)
    assert run["t"][0] == 0.0 and run["t"][-1] == 1.0 and len(run["t"]) == 101
    assert run["q"].shape == (101, 3) and run["qd"].shape == (101, 3)
    assert run["outputs"].shape == (101, 3)
    assert run["output_columns"] == ["coupler_point.x", "coupler_point.y", "coupler_point.z"]
    summary = run["summary"]
    assert summary["final_time"] == 1.0 and summary["steps"] > 0
    assert summary["energy_drift"] < 1e-8 and summary["max_position_residual"] < 1e-8
    # The outputs are the model's at each sample.
    i = 37
    assert np.array_equal(run["outputs"][i], model.outputs(run["q"][i], run["qd"][i], run["t"][i]))


def test_simulate_hamiltonian_model():
    model = udk.Model.from_file(MODELS / "spherical_pendulum_hamiltonian.toml")
    run = model.simulate(0.5, dt=0.1)
    assert "p" in run and run["p"].shape == (6, model.n)
    assert run["summary"]["energy_drift"] < 1e-8


def test_inconsistent_start_is_bad_input():
    model = udk.Model.from_file(MODELS / "four_bar.toml")
    with pytest.raises(udk.BadInputError, match="the initial state is off the constraints"):
        model.simulate(1.0, q0=[1.0, 0.5, 1.7], v0=[6.0, 0.0, 0.0])


def test_a_run_that_stops_keeps_its_motion():
    """A spring whose mass is 0: q̈ is not unique, so the run stops at its first step."""
    model = udk.Model.from_spec({
        "name": "Spring",
        "coordinates": ["x"],
        "parameters": [{"name": "m", "value": 0.0}],
        "lagrangian": "0.5 * m * dot(x).powi(2) - 0.5 * x.powi(2)",
    })
    with pytest.raises(udk.MotionError, match="not unique") as raised:
        model.simulate(1.0, q0=[1.0], v0=[0.0])
    assert raised.value.time == 0.0


def test_simulate_options_are_checked():
    model = udk.Model.from_file(MODELS / "four_bar.toml")
    with pytest.raises(udk.BadInputError, match="unknown method \"euler\""):
        model.simulate(1.0, method="euler")
    with pytest.raises(udk.BadInputError, match="needs `step`"):
        model.simulate(1.0, method="rk4")
    run = model.simulate(0.2, method="rk4", step=1e-3, dt=0.1)
    assert len(run["t"]) == 3


def test_a_start_missing_from_the_call_and_the_spec_is_named():
    """q0, v0 and t0 come from the call or else the spec's [initial] table."""
    spec = {
        "name": "Spring",
        "coordinates": ["x"],
        "lagrangian": "0.5 * dot(x).powi(2) - 0.5 * x.powi(2)",
    }
    model = udk.Model.from_spec(spec)
    with pytest.raises(udk.BadInputError, match="no `q0`: give it, or an \\[initial\\] table"):
        model.simulate(1.0)
    with pytest.raises(udk.BadInputError, match="no `v0`: give it, or .* with qd0 in the model"):
        model.simulate(1.0, q0=[1.0])
    # From the table, t0 included: x = cos(t - t0) from rest at x = 1.
    model = udk.Model.from_spec(spec | {"initial": {"t0": 0.5, "q0": [1.0], "qd0": [0.0]}})
    run = model.simulate(1.5, dt=0.5)
    assert list(run["t"]) == [0.5, 1.0, 1.5]
    assert abs(run["q"][-1, 0] - np.cos(1.0)) < 1e-8
