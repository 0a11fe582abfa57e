"""A floating-base model file with ground contacts (tests/fixtures/solo12_landing.toml):
`Model.from_file` gives a `FloatingBaseModel` whose `simulate` drops Solo12 onto the ground,
with the contacts' events and the foot forces by name. Checked against free fall: with no
joint torque the robot falls as one rigid body, so the base follows 0.3 − g t²/2 and the
lowest foot touches down at √(2 h / g)."""

import numpy as np
import pytest

import udk
from conftest import ROOT

LANDING = ROOT / "tests" / "fixtures" / "solo12_landing.toml"
G = 9.81


def test_solo12_lands_on_its_foot_contacts():
    model = udk.Model.from_file(LANDING)
    assert isinstance(model, udk.FloatingBaseModel)
    assert model.contacts == ["FL", "FR", "HL", "HR"]
    motion = model.simulate(0.15, dt=0.05)
    t = motion["t"]
    assert motion["q"].shape == (4, 19) and motion["v"].shape == (4, 18)
    columns = motion["output_columns"]
    assert columns[:3] == ["FL.x", "FL.y", "FL.z"]
    assert columns[12:15] == ["FL.normal", "FL.tangent", "FL.lateral"]
    outputs = motion["outputs"]
    heights = outputs[0, [columns.index(f"{foot}.z") for foot in model.contacts]]
    # In the air until the lowest foot touches down: free fall, and no force.
    touchdown = np.sqrt(2 * heights.min() / G)
    events = motion["events"]
    assert events[0]["name"] == f"{model.contacts[heights.argmin()]} touchdown"
    assert events[0]["t"] == pytest.approx(touchdown, abs=1e-9)
    assert events[0]["v_before"].shape == (18,)
    assert {e["name"] for e in events} >= {f"{foot} touchdown" for foot in model.contacts}
    before = t < touchdown
    assert np.allclose(motion["q"][before, 2], 0.3 - G * t[before] ** 2 / 2, atol=1e-9, rtol=0)
    forces = [columns.index(f"{foot}.{kind}") for foot in model.contacts for kind in ("normal", "tangent", "lateral")]
    assert np.all(outputs[before][:, forces] == 0.0)
    # The quaternion stays of unit norm through the impacts.
    assert np.allclose(np.linalg.norm(motion["q"][:, 3:7], axis=1), 1.0, atol=1e-14, rtol=0)


def test_a_wrong_start_is_refused():
    model = udk.Model.from_file(LANDING)
    with pytest.raises(udk.BadInputError):
        model.simulate(0.1, q0=[0.0] * 18)
    with pytest.raises(udk.BadInputError, match="tau"):
        model.simulate(0.1, tau=[0.0] * 11)
