"""Ensembles on a Dask LocalCluster of 2 worker processes against the serial run: bit for
bit."""

import numpy as np
import pytest

import udk
from conftest import MODELS, random_states
from udk import ensemble

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def model():
    return udk.Model.from_file(MODELS / "cart_double_pendulum.toml")


def accelerations(model):
    q, qd = random_states(model.n, 100, seed=1)
    return model.acceleration(q, qd)


def test_sweep_on_two_workers_is_the_serial_run(client, model):
    values = [{"g": g, "m1": 1.0 + 0.1 * i} for i, g in enumerate(np.linspace(1.0, 20.0, 8))]
    distributed_run = ensemble.sweep(accelerations, model, values, client=client)
    serial = ensemble.sweep(accelerations, model, values)
    assert len(distributed_run) == 8
    for a, b in zip(distributed_run, serial):
        assert np.array_equal(a, b)
    # Each value was set: the results differ.
    assert not np.array_equal(serial[0], serial[1])
    # The tasks worked on copies: the model's own values are unchanged.
    assert model.parameters["g"] == udk.Model.from_file(MODELS / "cart_double_pendulum.toml").parameters["g"]
    workers = client.run(lambda: 1)
    assert len(workers) == 2


def final_state(model, q0, qd0):
    run = model.simulate(1.0, q0=q0, v0=qd0)
    return run["q"][-1], run["qd"][-1], run["summary"]["steps"]


def test_monte_carlo_simulations_on_two_workers_are_the_serial_run(client):
    model = udk.Model.from_file(MODELS / "double_pendulum_minimal.toml")
    q0, qd0 = random_states(model.n, 12, seed=9)
    distributed_run = ensemble.monte_carlo(final_state, model, q0, qd0, client=client)
    serial = ensemble.monte_carlo(final_state, model, q0, qd0)
    assert len(serial) == 12
    for (q, qd, steps), (q_s, qd_s, steps_s) in zip(distributed_run, serial):
        assert np.array_equal(q, q_s) and np.array_equal(qd, qd_s) and steps == steps_s
    assert len({tuple(q) for q, _, _ in serial}) == 12
    # Chunks of 5 (the last one short) give the same results in the same order.
    chunked = ensemble.monte_carlo(final_state, model, q0, qd0, client=client, chunk_size=5)
    for (q, qd, steps), (q_s, qd_s, steps_s) in zip(chunked, serial):
        assert np.array_equal(q, q_s) and np.array_equal(qd, qd_s) and steps == steps_s
    with pytest.raises(ValueError, match="positive integer"):
        ensemble.monte_carlo(final_state, model, q0, qd0, client=client, chunk_size=0)


def test_unknown_parameter_in_a_sweep_is_raised(client, model):
    with pytest.raises(udk.BadInputError, match="`gravity` is not a parameter"):
        ensemble.sweep(accelerations, model, [{"gravity": 1.0}], client=client)
