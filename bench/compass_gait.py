"""The compass-gait walker, 100 steps on its limit cycle: udk against SciPy's solve_ivp with
events, on the same walker and at the same tolerance (DOP853, rtol 1e-10, atol 1e-12).

SciPy integrates Goswami, Thuilot & Espiau's (1996) equations in their coordinates, with the
heel strike as a terminal event and their impact map between steps, from
tests/fixtures/make_compass_gait.py. udk runs its model file examples/models/compass_gait.toml
(the stance foot pinned by two holonomic constraints, the impact by the fundamental equation at
velocity level) with `udk simulate`, output only at the end. Both start on the gait of the 3°
slope (tests/fixtures/compass_gait.json) and must land back on it after 100 steps.

Drake's `CompassGait` (pydrake, when installed) runs its own equations in its own coordinates,
with its default integrator (error-controlled RK3) at target accuracy 1e-10 (Drake's accuracy,
not rtol/atol): it settles onto the cycle for 20 s, then is timed over 100 periods, which must
move its stance toe by 100 step lengths.

udk's time per step is the difference between a 100.5-step and a 0.5-step run of the command,
over 100: the derivation and the JIT compilation, done once per command, cancel. Each figure
is the best of `--repeat` runs.

udk's static path, a second udk row: the same walker written with `#[lagrangian]`
(bench/udk-bench/src/bin/walker.rs), the same simulator, event and impact, timed in-process in
the same way (best of 7); it also times a limit-cycle search with multipliers
(`periodic_orbit`), and checks both against the fixture. `udk limit-cycle` on the model file is
timed as a command (best of `--repeat`, including its derivation and JIT).

Writes bench/out/compass_gait.md and prints it.

    python bench/compass_gait.py [--udk target/release/udk] [--walker target/release/walker] [--repeat 5]
"""

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
import make_compass_gait as goswami  # noqa: E402

RTOL, ATOL, STEPS = 1e-10, 1e-12, 100


def scipy_walk(x, slope, steps):
    """`steps` steps from x = (tns, ts, tns', ts') just after an impact: the time of the last
    strike and the state after it."""

    def ahead(_, y):
        return y[0] + y[1] + 2 * slope if y[0] - y[1] > 0 else 1.0

    ahead.terminal, ahead.direction = True, -1.0
    t = 0.0
    for _ in range(steps):
        run = solve_ivp(goswami.rates, (0.0, 5.0), x, method="DOP853", rtol=RTOL, atol=ATOL, events=ahead)
        assert run.status == 1, run.message
        t += run.t_events[0][0]
        x = goswami.impact(run.y_events[0][0])
    return t, x


def drake_walk(slope, period, steps):
    """Drake's compass gait: the distance its toe moved in `steps` periods after settling."""
    from pydrake.examples import CompassGait
    from pydrake.systems.analysis import Simulator

    simulator = Simulator(CompassGait())
    context = simulator.get_mutable_context()
    context.get_mutable_numeric_parameter(0).SetAtIndex(5, slope)
    context.SetContinuousState([0.0, 0.0, 0.4, -2.0])
    context.SetAccuracy(1e-10)
    simulator.Initialize()
    simulator.AdvanceTo(20.0)
    toe = context.get_discrete_state_vector().CopyToVector()[0]
    start, cpu_start = time.perf_counter(), time.thread_time()
    simulator.AdvanceTo(20.0 + steps * period)
    elapsed, cpu = time.perf_counter() - start, time.thread_time() - cpu_start
    return elapsed, cpu, context.get_discrete_state_vector().CopyToVector()[0] - toe


def cpu_time(children):
    """CPU seconds (user + system) of this thread, or of the finished child processes."""
    if not children:
        return time.thread_time()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best(f, repeat, children=False):
    """The fastest wall-clock and CPU seconds of `repeat` calls of f (each its own best), and the
    last result. On a loaded machine the CPU time leaves out the waits for a core."""
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu_start = time.perf_counter(), cpu_time(children)
        result = f()
        walls.append(time.perf_counter() - start)
        cpus.append(cpu_time(children) - cpu_start)
    return (min(walls), min(cpus)), result


def udk_walk(udk, model, t_end):
    """Runs `udk simulate` to t_end; the event log's rows."""
    with tempfile.TemporaryDirectory() as tmp:
        events = Path(tmp) / "events.csv"
        command = [udk, "simulate", str(model), "--t-end", repr(t_end), "--dt-out", repr(t_end)]
        command += ["--rtol", repr(RTOL), "--atol", repr(ATOL), "--events", str(events)]
        subprocess.run(command, check=True, capture_output=True)
        lines = events.read_text().splitlines()
    return [[float(v) for i, v in enumerate(line.split(",")) if i != 1] for line in lines[1:]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--udk", default=str(ROOT / "target" / "release" / "udk"))
    parser.add_argument("--walker", default=str(ROOT / "target" / "release" / "walker"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    fixture = json.loads((ROOT / "tests" / "fixtures" / "compass_gait.json").read_text())
    gait = fixture["gaits"][0]
    slope, state, period = gait["slope"], gait["state"], gait["period"]
    x0 = np.array([state[3], state[2], state[7], state[6]])  # (tns, ts, tns', ts')

    (scipy_time, scipy_cpu), (scipy_t, scipy_x) = best(lambda: scipy_walk(x0, slope, STEPS), args.repeat)
    assert abs(scipy_t - STEPS * period) < 1e-6, scipy_t
    assert np.abs(scipy_x - x0).max() < 1e-8, scipy_x - x0

    text = (ROOT / "examples" / "models" / "compass_gait.toml").read_text()
    initial = f"[initial]\nq0 = {state[:4]}\nqd0 = {state[4:]}\n"
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "compass_gait.toml"
        model.write_text(re.sub(r"\[initial\][\s\S]*", initial, text))
        (long_time, long_cpu), log = best(lambda: udk_walk(args.udk, model, (STEPS + 0.5) * period), args.repeat, True)
        (short_time, short_cpu), short = best(lambda: udk_walk(args.udk, model, 0.5 * period), args.repeat, True)
    assert len(log) == STEPS and not short, (len(log), len(short))
    assert abs(log[-1][0] - STEPS * period) < 1e-6, log[-1][0]
    after = np.array(log[-1][9:17])  # t, then q and q' before, then q and q' after
    assert np.abs(after - np.array(state)).max() < 1e-8, after - np.array(state)

    udk_step, udk_cpu = (long_time - short_time) / STEPS, (long_cpu - short_cpu) / STEPS
    scipy_step, scipy_step_cpu = scipy_time / STEPS, scipy_cpu / STEPS

    # The static path: prints its own timings and checks (JSON).
    static = json.loads(subprocess.run([args.walker], check=True, capture_output=True, text=True).stdout)
    assert static["steps"] == STEPS, static
    assert static["state_error"] < 1e-8 and static["last_strike_time_error"] < 1e-6, static
    assert static["search_state_error"] < 1e-8 and static["search_multipliers"] == 3, static
    assert static["search_multiplier_error"] < 1e-8, static
    (search_time, search_cpu), search = best(
        lambda: subprocess.run([args.udk, "limit-cycle", str(ROOT / "examples" / "models" / "compass_gait.toml")],
                               check=True, capture_output=True, text=True).stdout,
        args.repeat,
        True,
    )
    found = json.loads(search)
    assert np.abs(np.array(found["state"]) - np.array(state)).max() < 1e-8, found
    try:
        runs = [drake_walk(slope, period, STEPS) for _ in range(args.repeat)]
        drake_time, drake_cpu = min(r[0] for r in runs), min(r[1] for r in runs)
        moved = runs[-1][2]
        spread = 2 * np.sin((state[2] - state[3]) / 2)  # the step length 2 l sin(alpha), l = 1
        assert abs(moved / spread - STEPS) < 0.01, moved / spread
        drake = (
            f"| Drake `CompassGait` (pydrake, RK3 at accuracy 1e-10) | {drake_time / STEPS * 1e6:.0f} µs | "
            f"{drake_cpu / STEPS * 1e6:.0f} µs | {drake_time * 1e3:.0f} ms | "
            f"{scipy_step / (drake_time / STEPS):.0f}× | {scipy_step_cpu / (drake_cpu / STEPS):.0f}× |"
        )
    except ImportError:
        drake = "| Drake `CompassGait` | not installed (`pip install drake`) | | | | |"
    static_step, static_cpu = static["step_us"] * 1e-6, static["step_cpu_us"] * 1e-6
    table = "\n".join(
        [
            f"Compass gait (3° slope), {STEPS} steps on the limit cycle, DOP853 rtol {RTOL:g} atol {ATOL:g}; "
            "time per step in wall-clock and CPU time (user + system; on a loaded machine the CPU "
            "time leaves out the waits for a core)",
            "",
            "| | per step (wall) | per step (CPU) | whole run (wall) | SciPy / tool (wall) | SciPy / tool (CPU) |",
            "|---|---:|---:|---:|---:|---:|",
            f"| udk (`udk simulate`, model file, JIT) | {udk_step * 1e6:.0f} µs | {udk_cpu * 1e6:.0f} µs | "
            f"{long_time * 1e3:.0f} ms (of which {short_time * 1e3:.0f} ms derivation, JIT and start-up) | "
            f"{scipy_step / udk_step:.0f}× | {scipy_step_cpu / udk_cpu:.0f}× |",
            f"| udk static path (`#[lagrangian]`, `simulate_lagrangian_with_events`) | {static_step * 1e6:.0f} µs | "
            f"{static_cpu * 1e6:.0f} µs | {static['whole_ms']:.1f} ms | {scipy_step / static_step:.0f}× | "
            f"{scipy_step_cpu / static_cpu:.0f}× |",
            f"| SciPy `solve_ivp` with events (Goswami's equations) | {scipy_step * 1e6:.0f} µs | "
            f"{scipy_step_cpu * 1e6:.0f} µs | {scipy_time * 1e3:.0f} ms | 1× | 1× |",
            drake,
            "",
            f"udk right-hand sides per step: {static['evaluations_per_step']:.0f} (static path). "
            f"Limit-cycle search with multipliers: `udk limit-cycle examples/models/compass_gait.toml` "
            f"{search_time * 1e3:.0f} ms wall, {search_cpu * 1e3:.0f} ms CPU (the whole command, derivation "
            f"and JIT included); `periodic_orbit` on the static path {static['search_ms']:.1f} ms wall, "
            f"{static['search_cpu_ms']:.1f} ms CPU ({static['search_iterations']} Newton iterations).",
        ]
    )
    out = BENCH / "out"
    out.mkdir(exist_ok=True)
    (out / "compass_gait.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
