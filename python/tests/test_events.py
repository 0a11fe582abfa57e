"""The event log of `Model.simulate` for models with [[events]] and [[contacts]], against
closed forms (/work/shared/references/hybrid.md as the example models quote it)."""

import math

import numpy as np

import udk
from conftest import MODELS


def test_sliding_block_sticks_when_it_stops():
    # Thrown up the incline at 3 m/s, the block decelerates at g (sin β + μ cos β) and sticks
    # at t1 = v0 / (g (sin β + μ cos β)) because μ ≥ tan β.
    model = udk.Model.from_file(MODELS / "sliding_block.toml")
    motion = model.simulate(2.0)
    beta, mu, g = 0.3, 0.5, 9.81
    t1 = 3.0 / (g * (math.sin(beta) + mu * math.cos(beta)))
    names = [e["name"] for e in motion["events"]]
    assert names == ["ground stick"], names
    stick = motion["events"][0]
    assert abs(stick["t"] - t1) < 1e-8
    assert np.abs(stick["qd_after"]).max() < 1e-8
    # It stays where it stopped.
    assert np.allclose(motion["q"][-1], stick["q_after"], rtol=0, atol=1e-8)


def test_sliding_block_slides_back_without_enough_friction():
    # μ < tan β: at t1 the block cannot stick and slides back at g (sin β − μ cos β).
    model = udk.Model.from_file(MODELS / "sliding_block.toml")
    model.set_parameters(mu=0.2)
    motion = model.simulate(2.0)
    beta, mu, g, v0, tf = 0.3, 0.2, 9.81, 3.0, 2.0
    t1 = v0 / (g * (math.sin(beta) + mu * math.cos(beta)))
    assert [e["name"] for e in motion["events"]] == ["ground stick"]
    assert abs(motion["events"][0]["t"] - t1) < 1e-8
    s = 0.5 * v0 * t1 - 0.5 * g * (math.sin(beta) - mu * math.cos(beta)) * (tf - t1) ** 2
    assert np.allclose(motion["q"][-1], [s * math.cos(beta), s * math.sin(beta)], atol=1e-10)


def test_rimless_wheel_strikes_map_the_coordinates():
    # Each strike moves the stance foot to the new spoke: q⁺ = (0, 0, θ − 2π/spokes).
    model = udk.Model.from_file(MODELS / "rimless_wheel.toml")
    motion = model.simulate(3.0)
    strikes = [e for e in motion["events"] if e["name"] == "strike"]
    assert len(strikes) >= 3
    for e in strikes:
        theta = e["q_before"][2]
        assert abs(theta - (0.08 + math.pi / 8)) < 1e-8
        assert np.allclose(e["q_after"], [0.0, 0.0, theta - 2 * math.pi / 8], atol=1e-12)
    times = [e["t"] for e in motion["events"]]
    assert times == sorted(times)


def test_models_without_events_log_none():
    model = udk.Model.from_file(MODELS / "double_pendulum_minimal.toml")
    assert model.simulate(0.5)["events"] == []
