"""The Dask ensemble helper (`udk.ensemble.monte_carlo`) on 1000 simulations, on a
`LocalCluster` of 1 and of 2 worker processes (one thread each), against the serial loop in
this process, side by side in one run.

Each simulation is the cart double pendulum of examples/models/ (n = 3) from a random start,
DOP853 to t = 2 s at rtol 1e-10, atol 1e-12, returning the final state. The start-up of the
cluster is not timed; its first task (the model unpickled and compiled on each worker) is, as a
user waits for it. Needs udk-dynamics built in release mode (`pip install ./python`) and
dask.distributed. Run from the repository's root:

    python bench/python_ensemble.py --simulations 1000
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np
from dask.distributed import Client, LocalCluster

import udk
from udk import ensemble

MODEL = Path(__file__).resolve().parents[1] / "examples" / "models" / "cart_double_pendulum.toml"


def final_state(model, q0, qd0):
    run = model.simulate(2.0, q0=q0, v0=qd0, dt=2.0)
    return np.concatenate([run["q"][-1], run["qd"][-1]])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=1000)
    args = parser.parse_args()
    model = udk.Model.from_file(MODEL)
    rng = np.random.default_rng(3)
    count = args.simulations
    q0 = np.column_stack([rng.uniform(-0.5, 0.5, count),
                          rng.uniform(-1.0, 1.0, (count, model.n - 1))])
    qd0 = rng.uniform(-1.0, 1.0, (count, model.n))
    start = time.perf_counter()
    serial = ensemble.monte_carlo(final_state, model, q0, qd0)
    times = {"serial (this process)": time.perf_counter() - start}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            start = time.perf_counter()
            results = ensemble.monte_carlo(final_state, model, q0, qd0, client=client)
            times[f"Dask, {workers} worker{'s' if workers > 1 else ''}"] = \
                time.perf_counter() - start
            assert all(np.array_equal(a, b) for a, b in zip(results, serial)), \
                "the distributed run differs from the serial one"
    load = os.getloadavg()[0]
    print(f"{count} simulations of {model.name} (n = {model.n}), 1-minute load {load:.1f}:")
    print("| run | wall time (s) | simulations/s |")
    print("|---|---:|---:|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds:.2f} | {count / seconds:.0f} |")


if __name__ == "__main__":
    main()
