"""Batches (states × n, evaluated in parallel with the GIL released) against a loop of
single calls: bit for bit."""

import numpy as np
import pytest

import udk
from conftest import MODELS, random_states


def test_acceleration_batch_is_the_loop_bit_for_bit(ur5):
    q, qd = random_states(ur5.n, 257)
    ur5.u = [0.5, -1.0, 2.0, 0.1, -0.2, 0.3]
    batch = ur5.acceleration(q, qd)
    assert batch.shape == (257, 6)
    loop = np.array([ur5.acceleration(q[i], qd[i]) for i in range(len(q))])
    assert np.array_equal(batch, loop)
    ur5.u = [0.0] * 6


def test_every_batch_function_is_the_loop_bit_for_bit():
    model = udk.Model.from_file(MODELS / "cart_double_pendulum.toml")
    q, qd = random_states(model.n, 64, seed=3)
    t = np.linspace(0.0, 2.0, 64)
    for function in (model.acceleration, model.constraint_force, model.outputs):
        batch = function(q, qd, t)
        loop = np.array([function(q[i], qd[i], t[i]) for i in range(64)])
        assert np.array_equal(batch, loop), function.__name__
    for function in (model.terms, model.jacobian):
        batch = function(q, qd, t)
        for i in (0, 17, 63):
            one = function(q[i], qd[i], t[i])
            for key, value in one.items():
                assert np.array_equal(batch[key][i], value), (function.__name__, key)


def test_acceleration_batch_time_shared_or_per_state_bit_for_bit():
    """One t for every state (a number) and one t per state (an array) are the loop's."""
    model = udk.Model.from_spec({
        "name": "DrivenOscillator",
        "coordinates": ["x"],
        "lagrangian": "0.5 * dot(x).powi(2) - 0.5 * x.powi(2) + x * (3.0 * t).sin()",
    })
    q, qd = random_states(model.n, 50, seed=5)
    shared = model.acceleration(q, qd, 0.7)
    assert np.array_equal(shared, [model.acceleration(q[i], qd[i], 0.7) for i in range(50)])
    # q̈ = -x + sin(3t): the time is not dropped.
    assert np.allclose(shared[:, 0], -q[:, 0] + np.sin(2.1), rtol=0, atol=1e-15)
    t = np.linspace(0.0, 1.0, 50)
    each = model.acceleration(q, qd, t)
    assert np.array_equal(each, [model.acceleration(q[i], qd[i], t[i]) for i in range(50)])
    assert np.allclose(each[:, 0], -q[:, 0] + np.sin(3.0 * t), rtol=0, atol=1e-15)


def test_batch_shapes_and_time():
    model = udk.Model.from_file(MODELS / "constrained_double_pendulum.toml")
    q, p = random_states(model.n, 5)
    assert model.momentum_rate(q, p, 0.3).shape == (5, 2)
    terms = model.hamiltonian_terms(q, p, np.arange(5.0))
    assert terms["H_pp"].shape == (5, 2, 2) and terms["A_p"].shape == (5, 1, 2)
    # The constraint p1 = α p2 sin(ω t) depends on t: one time per state is honoured.
    assert np.array_equal(terms["b_p"][3], model.hamiltonian_terms(q[3], p[3], 3.0)["b_p"])


def test_batch_error_names_the_first_failing_state():
    model = udk.Model.from_spec({
        "name": "Free",
        "coordinates": ["x"],
        "parameters": [{"name": "m"}],
        "lagrangian": "0.5 * m * dot(x).powi(2)",
    })
    model.set_parameters(m=0.0)
    with pytest.raises(udk.MotionError, match="^state 0 of the batch: "):
        model.acceleration(np.zeros((3, 1)), np.zeros((3, 1)))


def test_unaligned_and_strided_arrays(ur5):
    """Arrays unpickled from out-of-band buffers (as Dask sends them) may be unaligned; views
    may be strided: both are read as their values."""
    q, qd = random_states(ur5.n, 3)
    raw = np.frombuffer(b"\0" + q.tobytes(), dtype=np.float64, offset=1).reshape(3, 6)
    assert not raw.flags.aligned
    wide = np.zeros((3, 12))
    wide[:, ::2] = qd
    assert np.array_equal(ur5.acceleration(raw, wide[:, ::2]), ur5.acceleration(q, qd))
    assert np.array_equal(ur5.acceleration(raw[1], qd[1]), ur5.acceleration(q[1], qd[1]))


def test_parameter_rows_are_the_loop_with_set_parameters_bit_for_bit():
    model = udk.Model.from_file(MODELS / "cart_double_pendulum.toml")
    names = list(model.parameters)
    q, qd = random_states(model.n, 40, seed=4)
    rng = np.random.default_rng(8)
    values = np.array(list(model.parameters.values())) * rng.uniform(0.5, 1.5, (40, len(names)))
    batch = model.acceleration(q, qd, 0.0, parameters=values)
    loop = []
    for i in range(40):
        one = model.copy()
        one.set_parameters(dict(zip(names, values[i])))
        loop.append(one.acceleration(q[i], qd[i]))
    assert np.array_equal(batch, np.array(loop))
    with pytest.raises(udk.BadInputError, match="`parameters` is 40×2 but"):
        model.acceleration(q, qd, parameters=values[:, :2])
    with pytest.raises(udk.BadInputError, match="goes with a batch"):
        model.acceleration(q[0], qd[0], parameters=values[0])
