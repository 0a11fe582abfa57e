"""`Model.control`, the servo controller (review paper, Zhao, Chen, Zhao & Dong 2018, section
8.3), against the `udk` command line's `servo` report (cli_results.json, written by
make_cli_results.py) on the flexible-joint manipulator under qd2 + qd4 = 0, and its
properties: the closed loop's q̈ is `acceleration` at the controller's u, and a batch is the
loop bit for bit."""

import json
from pathlib import Path

import numpy as np
import pytest

import udk
from conftest import MODELS

EXPECTED = json.loads((Path(__file__).parent / "cli_results.json").read_text())[
    "flexible_joint_servo.toml"
]
LAWS = {
    "none": {},
    "gain": {"gain": 0.25},
    "task_space": {"stiffness": 4.0, "damping": 2.0},
}


@pytest.fixture(scope="module")
def servo():
    return udk.Model.from_file(MODELS / "flexible_joint_servo.toml")


@pytest.mark.parametrize("law", sorted(LAWS))
def test_control_matches_cli(servo, law):
    state = EXPECTED["state"]
    control = servo.control(state["q"], state["qd"], state["t"], **LAWS[law])
    assert sorted(control) == sorted(EXPECTED["servo"][law])
    for key, expected in EXPECTED["servo"][law].items():
        np.testing.assert_allclose(control[key], expected, rtol=0, atol=1e-12, err_msg=key)


def test_control_drives_the_servo_error(servo):
    state = EXPECTED["state"]
    # beta = qd2 + qd4 = 0.9 at the start; eq 72 with P = 0.25 s makes beta' = -beta / P.
    control = servo.control(state["q"], state["qd"], gain=0.25)
    qdd = control["acceleration"]
    assert qdd[1] + qdd[3] == pytest.approx(-0.9 / 0.25, abs=1e-12)
    # The task is realizable by tau2, tau4: nothing is left unrealized.
    assert np.abs(control["unrealized_force"]).max() < 1e-12
    # The closed loop: q̈ at the controller's u.
    closed = servo.copy()
    closed.u = control["input"]
    np.testing.assert_allclose(closed.acceleration(state["q"], state["qd"]), qdd, atol=1e-12)
    # The task realization reaches the same task acceleration (by other inputs: one servo
    # row, two inputs, and it takes the smallest u).
    task = servo.control(state["q"], state["qd"], gain=0.25, realization="task")
    assert task["acceleration"][1] + task["acceleration"][3] == pytest.approx(-3.6, abs=1e-12)
    assert np.abs(task["task_residual"]).max() < 1e-12
    assert np.linalg.norm(task["input"]) < np.linalg.norm(control["input"])


def test_control_batch_is_the_loop(servo):
    rng = np.random.default_rng(3)
    q, qd = rng.uniform(-1.0, 1.0, (5, 4)), rng.uniform(-1.0, 1.0, (5, 4))
    batch = servo.control(q, qd, 0.5, stiffness=4.0, damping=2.0)
    for i in range(5):
        one = servo.control(q[i], qd[i], 0.5, stiffness=4.0, damping=2.0)
        for key, value in one.items():
            assert np.array_equal(batch[key][i], value), key


def test_control_without_servo_constraints():
    model = udk.Model.from_file(MODELS / "four_bar.toml")
    with pytest.raises(udk.BadInputError, match="has no servo constraints"):
        model.control([1.0, 0.6, 1.7], [0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "law, message",
    [
        ({"gain": 0.25, "damping": 1.0}, "two laws"),
        ({"gain": 0.0}, "positive and finite"),
        ({"stiffness": -1.0}, "finite and ≥ 0"),
        ({"realization": "torque"}, "unknown realization"),
    ],
)
def test_control_bad_law(servo, law, message):
    with pytest.raises(udk.BadInputError, match=message):
        servo.control([0.0] * 4, [0.0] * 4, **law)
