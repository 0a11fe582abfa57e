"""udk against SymPy, PyDy and Pinocchio on the n-link planar pendulum chain.

Run through bench/compare.sh, which creates the virtual environment and builds the Rust side.
Every tool gets the same parameters and random states (out/workload.json, fixed seed). The
accelerations of all tools are checked against each other to 1e-9 first; any disagreement
stops the run. Then three tables: derivation time, time per acceleration call, and right-hand
side evaluations per second inside a DOP853 run. Each row gives the udk/peer ratio (below 1:
udk is faster).

Models (the same as udk_symbolic::models): point masses m_k on massless rods of length l_k,
gravity g along -y.
- cartesian: 2n coordinates x1, y1, ..., xn, yn and n constraints
  (x_k - x_{k-1})^2 + (y_k - y_{k-1})^2 - l_k^2 = 0 (x_0 = y_0 = 0);
- minimal: n absolute angles theta_k from the downward vertical.
"""

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

# UDK_BENCH_SIZES="2 5" restricts a quick run; the generated code has 2, 5, 10, 20 (feature large).
SIZES = [int(n) for n in os.environ.get("UDK_BENCH_SIZES", "2 5 10 20").split()]
FORMS = ["cartesian", "minimal"]
STATES = 16
SEED = 20260521
TOLERANCE = 1e-9
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
BENCH_BIN = os.path.join(ROOT, "target", "release", "udk-bench")
# Simulation: span (s) and DOP853 rtol = atol, the same on both sides (udk: its simulator,
# simulate_lagrangian, without Baumgarte stabilization, so that both integrate the same equations).
SIM_T_END = 10.0
SIM_TOL = 1e-9


def machine():
    """CPU model, core count and load: the figures' context."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{model}, {os.cpu_count()} cores, 1-minute load average {load:.1f}"


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- workload


def make_workload(seed=SEED):
    """Parameters and random states shared by every tool; Cartesian states satisfy the
    length constraints at position and velocity level by construction."""
    rng = np.random.default_rng(seed)
    chains = []
    for n in SIZES:
        masses = rng.uniform(0.5, 2.0, n)
        lengths = rng.uniform(0.5, 1.5, n)
        states = []
        for _ in range(STATES):
            theta = rng.uniform(-1.2, 1.2, n)
            omega = rng.uniform(-1.0, 1.0, n)
            x = np.cumsum(lengths * np.sin(theta))
            y = -np.cumsum(lengths * np.cos(theta))
            vx = np.cumsum(lengths * np.cos(theta) * omega)
            vy = np.cumsum(lengths * np.sin(theta) * omega)
            states.append(
                {
                    "theta": theta.tolist(),
                    "omega": omega.tolist(),
                    "q": np.column_stack([x, y]).ravel().tolist(),
                    "qd": np.column_stack([vx, vy]).ravel().tolist(),
                }
            )
        chains.append(
            {"masses": masses.tolist(), "lengths": lengths.tolist(), "g": 9.81, "states": states}
        )
    return {"seed": seed, "chains": chains}


def chain_of(workload, n):
    return next(c for c in workload["chains"] if len(c["masses"]) == n)


def states_in(chain, form):
    keys = ("q", "qd") if form == "cartesian" else ("theta", "omega")
    return [(np.array(s[keys[0]]), np.array(s[keys[1]])) for s in chain["states"]]


def parameter_values(chain):
    """m1..mn, l1..ln, g: the order of the SymPy symbols below."""
    return np.array(chain["masses"] + chain["lengths"] + [chain["g"]])


# ----------------------------------------------------------------------------- timing


def ns_per_call(fn, arglists, repeats=7, min_run=0.05):
    """Nanoseconds per call of fn(*args), cycling through arglists: best of `repeats` runs."""

    def run(rounds):
        start = time.perf_counter()
        for _ in range(rounds):
            for args in arglists:
                fn(*args)
        return time.perf_counter() - start

    rounds = 1
    while run(rounds) < min_run:
        rounds *= 2
    best = min(run(rounds) for _ in range(repeats))
    return best * 1e9 / (rounds * len(arglists))


def empty(*args):
    return None


class Timeout(Exception):
    pass


def with_timeout(seconds, fn, *args):
    """fn(*args), or Timeout after `seconds` (SIGALRM; pure-Python work such as SymPy)."""

    def handler(signum, frame):
        raise Timeout()

    previous = signal.signal(signal.SIGALRM, handler)
    signal.alarm(int(seconds))
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ----------------------------------------------------------------------------- SymPy / PyDy


def sympy_equations(form, n):
    """LagrangesMethod for the chain; returns (coordinates, velocities, parameters, K, F) with
    K z = F the equations of motion (the KKT system [M -A^T; A 0] [q''; lambda] = [Q; b] for the
    Cartesian chain, M q'' = Q for the minimal one) and the seconds it took."""
    import sympy as sp
    import sympy.physics.mechanics as me

    t = me.dynamicsymbols._t
    m = sp.symbols(f"m1:{n + 1}")
    l = sp.symbols(f"l1:{n + 1}")
    g = sp.Symbol("g")
    half = sp.Rational(1, 2)
    start = time.perf_counter()
    if form == "cartesian":
        xs = me.dynamicsymbols(f"x1:{n + 1}")
        ys = me.dynamicsymbols(f"y1:{n + 1}")
        q = [c for pair in zip(xs, ys) for c in pair]
        L = sum(
            half * m[k] * (xs[k].diff(t) ** 2 + ys[k].diff(t) ** 2) - m[k] * g * ys[k]
            for k in range(n)
        )
        constraints = [xs[0] ** 2 + ys[0] ** 2 - l[0] ** 2] + [
            (xs[k] - xs[k - 1]) ** 2 + (ys[k] - ys[k - 1]) ** 2 - l[k] ** 2 for k in range(1, n)
        ]
        lm = me.LagrangesMethod(L, q, hol_coneqs=constraints)
        lm.form_lagranges_equations()
        k = len(q)
        K = lm.mass_matrix_full[k:, k:]
        F = lm.forcing_full[k:, :]
    else:
        q = me.dynamicsymbols(f"th1:{n + 1}")
        qd = [c.diff(t) for c in q]
        L = 0
        for k in range(n):
            vx = sum(l[j] * sp.cos(q[j]) * qd[j] for j in range(k + 1))
            vy = sum(l[j] * sp.sin(q[j]) * qd[j] for j in range(k + 1))
            height = sum(l[j] * sp.cos(q[j]) for j in range(k + 1))
            L += half * m[k] * (vx**2 + vy**2) + m[k] * g * height
        lm = me.LagrangesMethod(L, q)
        lm.form_lagranges_equations()
        K = lm.mass_matrix
        F = lm.forcing
    seconds = time.perf_counter() - start
    qd = [c.diff(t) for c in q]
    return (q, qd, list(m) + list(l) + [g], K, F), seconds


def sympy_lambdify(equations):
    import sympy as sp

    q, qd, p, K, F = equations
    start = time.perf_counter()
    f = sp.lambdify((q, qd, p), [K, F], modules="numpy", cse=True)
    return f, time.perf_counter() - start


def pydy_compile(equations):
    """PyDy's Cython code generation (CythonMatrixGenerator, what generate_ode_function uses)
    for K and F, compiled; velocities become PyDy speeds u."""
    import sympy.physics.mechanics as me
    from pydy.codegen.cython_code import CythonMatrixGenerator

    q, qd, p, K, F = equations
    start = time.perf_counter()
    u = me.dynamicsymbols(f"u0:{len(q)}")
    speeds = dict(zip(qd, u))
    generator = CythonMatrixGenerator([q, u, p], [me.msubs(K, speeds), me.msubs(F, speeds)])
    f = generator.compile()
    return f, K.shape, time.perf_counter() - start


def kkt_solver(evaluate, k):
    """q'' from K z = F: the first k entries of numpy.linalg.solve."""

    def acceleration(q, qd):
        K, F = evaluate(q, qd)
        return np.linalg.solve(K, F).ravel()[:k]

    return acceleration


# ----------------------------------------------------------------------------- Pinocchio


def pinocchio_chain(chain):
    """The minimal chain as a Pinocchio model: n revolute joints about z, joint k at the end of
    rod k-1, point mass m_k at (0, -l_k, 0) in joint k's frame, gravity (0, -g, 0). Pinocchio's
    joint angles are relative: q_k = theta_k - theta_{k-1}."""
    import pinocchio as pin

    model = pin.Model()
    model.gravity.linear = np.array([0.0, -chain["g"], 0.0])
    parent = 0
    for k, (mass, length) in enumerate(zip(chain["masses"], chain["lengths"])):
        offset = np.array([0.0, -chain["lengths"][k - 1], 0.0]) if k else np.zeros(3)
        parent = model.addJoint(parent, pin.JointModelRZ(), pin.SE3(np.eye(3), offset), f"joint{k + 1}")
        inertia = pin.Inertia(mass, np.array([0.0, -length, 0.0]), np.zeros((3, 3)))
        model.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    return model, model.createData()


def pinocchio_cpp(workload, binary):
    """Pinocchio's own in-process ABA cost from bench/pinocchio_aba.cpp (built by compare.sh
    against the wheel's headers): {n: (ns per call, accelerations per state)}."""
    lines = [str(len(SIZES))]
    for n in SIZES:
        chain = chain_of(workload, n)
        lines += [str(n), " ".join(map(repr, chain["masses"])), " ".join(map(repr, chain["lengths"])),
                  repr(chain["g"]), str(len(chain["states"]))]
        for state in chain["states"]:
            lines += [" ".join(map(repr, state["theta"])), " ".join(map(repr, state["omega"]))]
    out = subprocess.run([binary], input="\n".join(lines) + "\n", check=True, capture_output=True, text=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    return {r["links"]: (r["ns"], r["accelerations"]) for r in rows}


def relative(x):
    return np.diff(x, prepend=0.0)


# ----------------------------------------------------------------------------- Rust side


def rust(*args):
    out = subprocess.run([BENCH_BIN, *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def cargo_build_times(forms_sizes):
    """Wall time of `cargo build --release` for a crate holding just one chain model under
    #[lagrangian], dependencies already built (a warm-up crate builds them first)."""
    base = os.path.join(ROOT, "target", "udk-bench-crates")
    os.makedirs(base, exist_ok=True)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(base, "target"))
    times = {}

    def build(name, form, n):
        crate = os.path.join(base, name)
        os.makedirs(os.path.join(crate, "src"), exist_ok=True)
        with open(os.path.join(crate, "Cargo.toml"), "w") as f:
            f.write(
                f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n'
                f'[dependencies]\nudk = {{ path = "{ROOT}" }}\n\n[workspace]\n'
            )
        source = subprocess.run(
            [BENCH_BIN, "macro-source", form, str(n)], check=True, capture_output=True, text=True
        ).stdout
        with open(os.path.join(crate, "src", "lib.rs"), "w") as f:
            f.write(source)
        start = time.perf_counter()
        done = subprocess.run(
            ["cargo", "build", "--release", "--quiet", "--manifest-path", os.path.join(crate, "Cargo.toml")],
            env=env,
        )
        return time.perf_counter() - start if done.returncode == 0 else "build failed"

    build("warm_up", "minimal", 2)
    for form, n in forms_sizes:
        name = f"chain_{form}_{n}"
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        times[(form, n)] = build(name, form, n)
        log(f"cargo build --release {name}: {fmt_time(times[(form, n)])}")
    return times


# ----------------------------------------------------------------------------- checks


def disagreement(a, reference):
    a, reference = np.asarray(a), np.asarray(reference)
    return float(np.max(np.abs(a - reference) / np.maximum(1.0, np.abs(reference))))


def check_agreement(results, workload):
    """results[(form, n)][tool] = list of accelerations per state. Every tool against the udk
    generated code (or the udk tape where the size was not generated), and the Cartesian chain
    against the minimal one. Exits on any disagreement above TOLERANCE."""
    failures = []
    worst = {}
    for (form, n), tools in sorted(results.items()):
        reference_tool = "udk generated" if "udk generated" in tools else "udk tape"
        reference = tools[reference_tool]
        for tool, values in tools.items():
            if tool == reference_tool:
                continue
            d = max(disagreement(v, r) for v, r in zip(values, reference))
            worst[(form, n, tool)] = d
            if not d <= TOLERANCE:
                failures.append(f"{tool} vs {reference_tool}, {form} n={n}: {d:.3e}")
    for n in SIZES:
        if ("minimal", n) not in results or ("cartesian", n) not in results:
            continue
        minimal = results[("minimal", n)]
        cartesian = results[("cartesian", n)]
        chain = chain_of(workload, n)
        lengths = np.array(chain["lengths"])
        ref_m = minimal.get("udk generated", minimal["udk tape"])
        ref_c = cartesian.get("udk generated", cartesian["udk tape"])
        d = 0.0
        for state, alpha, acc in zip(chain["states"], ref_m, ref_c):
            theta, omega = np.array(state["theta"]), np.array(state["omega"])
            ax = np.cumsum(lengths * (np.cos(theta) * alpha - np.sin(theta) * omega**2))
            ay = np.cumsum(lengths * (np.sin(theta) * alpha + np.cos(theta) * omega**2))
            d = max(d, disagreement(acc, np.column_stack([ax, ay]).ravel()))
        worst[("cartesian", n, "minimal chain mapped to Cartesian")] = d
        if not d <= TOLERANCE:
            failures.append(f"Cartesian vs minimal chain, n={n}: {d:.3e}")
    for key, d in sorted(worst.items()):
        log(f"agreement {key}: {d:.2e}")
    if failures:
        log("DISAGREEMENT (tolerance %.0e, relative to max(1, |reference|)):" % TOLERANCE)
        for f in failures:
            log("  " + f)
        sys.exit(1)
    return worst


# ----------------------------------------------------------------------------- tables


def fmt_time(seconds):
    if seconds is None:
        return "—"
    if isinstance(seconds, str):
        return seconds
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e9:.0f} ns"


def ratio(udk, peer):
    if udk is None or peer is None or isinstance(udk, str) or isinstance(peer, str) or peer <= 0:
        return "—"
    r = udk / peer
    return f"{r:.3g} ({1 / r:.3g}× faster)" if r < 1 else f"{r:.3g} ({r:.3g}× slower)"


def table(title, header, rows):
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sympy-timeout", type=float, default=900.0,
                        help="seconds allowed for one SymPy derivation (default 900)")
    parser.add_argument("--skip-build-times", action="store_true")
    parser.add_argument("--pinocchio-cpp", default=os.path.join(OUT, "pinocchio_aba"),
                        help="bench/pinocchio_aba.cpp built against the pin wheel (compare.sh builds it)")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    machine_at_start = machine()
    workload = make_workload()
    workload_path = os.path.join(OUT, "workload.json")
    with open(workload_path, "w") as f:
        json.dump(workload, f)

    notes = []
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    try:
        import sympy
        import scipy

        versions["sympy"] = sympy.__version__
        versions["scipy"] = scipy.__version__
    except ImportError as e:
        sys.exit(f"SymPy and SciPy are required: {e}")
    try:
        import pydy

        versions["pydy"] = pydy.__version__
        have_pydy = True
    except ImportError as e:
        notes.append(f"PyDy did not import: {e}")
        have_pydy = False
    try:
        import pinocchio as pin

        versions["pinocchio"] = pin.__version__
        have_pin = True
    except ImportError as e:
        notes.append(f"Pinocchio did not import: {e}")
        have_pin = False

    # --- udk (Rust) figures
    log("udk: accelerations at the workload states")
    rust_check = rust("check", workload_path)
    results = {}
    for row in rust_check:
        results.setdefault((row["form"], row["links"]), {})[
            {"generated": "udk generated", "tape": "udk tape", "closed_form": "closed form (Rust)"}[row["tool"]]
        ] = row["accelerations"]
    log("udk: derivation + emission")
    udk_derive = {(r["form"], r["links"]): r["seconds"] for r in rust("derive", *SIZES)}

    # --- SymPy and PyDy: derivation, lambdify, Cython
    derivation = {}
    evaluators = {}
    for n in SIZES:
        chain = chain_of(workload, n)
        p = parameter_values(chain)
        for form in FORMS:
            key = (form, n)
            row = derivation.setdefault(key, {})
            log(f"SymPy LagrangesMethod {form} n={n}")
            try:
                equations, row["lagrange"] = with_timeout(args.sympy_timeout, sympy_equations, form, n)
            except Timeout:
                row["lagrange"] = f"> {args.sympy_timeout:.0f} s"
                notes.append(f"SymPy LagrangesMethod for the {form} chain n={n} did not finish in "
                             f"{args.sympy_timeout:.0f} s; no SymPy or PyDy figures for it.")
                continue
            log(f"  {row['lagrange']:.2f} s; lambdify(cse=True)")
            try:
                f, row["lambdify"] = with_timeout(args.sympy_timeout, sympy_lambdify, equations)
            except Timeout:
                row["lambdify"] = f"> {args.sympy_timeout:.0f} s"
                continue
            k = len(equations[0])
            evaluators.setdefault(key, {})["SymPy lambdify + solve"] = kkt_solver(
                lambda q, qd, f=f, p=p: f(q, qd, p), k)
            if have_pydy:
                log(f"  {row['lambdify']:.2f} s; PyDy Cython")
                try:
                    fc, shape, row["pydy"] = pydy_compile(equations)
                    K_out = np.empty(shape[0] * shape[1])
                    F_out = np.empty(shape[0])

                    def pydy_eval(q, qd, fc=fc, p=p, K_out=K_out, F_out=F_out):
                        return fc(q, qd, p, K_out, F_out)

                    evaluators[key]["PyDy Cython + solve"] = kkt_solver(pydy_eval, k)
                except Exception as e:  # record and continue: a failed peer is a result too
                    row["pydy"] = "failed"
                    notes.append(f"PyDy Cython failed for {form} n={n}: {e}")
            if have_pin and form == "minimal":
                model, data = pinocchio_chain(chain)
                tau = np.zeros(n)

                def pin_aba(theta, omega, model=model, data=data, tau=tau):
                    return np.cumsum(pin.aba(model, data, relative(theta), relative(omega), tau))

                evaluators[key]["Pinocchio ABA"] = pin_aba
    pin_cpp = {}
    if have_pin and os.path.exists(args.pinocchio_cpp):
        log("Pinocchio ABA in C++")
        pin_cpp = pinocchio_cpp(workload, args.pinocchio_cpp)
        for n, (_, accelerations) in pin_cpp.items():
            results[("minimal", n)]["Pinocchio ABA (C++)"] = accelerations
    elif have_pin:
        notes.append("bench/pinocchio_aba.cpp was not built: Pinocchio's C++ cost is not measured.")
    if have_pin:
        notes.append("Pinocchio has no distance constraint between two points (its constraint "
                     "models are point/frame anchors and contacts, joint limits and joint "
                     "friction), so constraintDynamics cannot express the Cartesian chain's "
                     "length constraints: no Pinocchio figure for the Cartesian model.")

    for key, tools in evaluators.items():
        states = states_in(chain_of(workload, key[1]), key[0])
        for tool, fn in tools.items():
            results[key][tool] = [fn(q, qd).tolist() for q, qd in states]

    log("checking agreement")
    worst = check_agreement(results, workload)

    # --- per-call times
    log("timing the Python peers")
    python_times = {}
    overhead = {}
    for key, tools in evaluators.items():
        form, n = key
        states = states_in(chain_of(workload, n), form)
        for tool, fn in tools.items():
            python_times[(form, n, tool)] = ns_per_call(fn, states)
            log(f"  {tool} {form} n={n}: {python_times[(form, n, tool)]:.0f} ns")
        if "Pinocchio ABA" in tools:
            model, data = pinocchio_chain(chain_of(workload, n))
            tau = np.zeros(n)
            raw = [(model, data, relative(q), relative(qd), tau) for q, qd in states]
            python_times[(form, n, "Pinocchio aba (bare call)")] = ns_per_call(pin.aba, raw)
            overhead[(form, n)] = ns_per_call(empty, raw)
    overhead_2 = ns_per_call(empty, states_in(chain_of(workload, 2), "minimal"))
    log("timing udk")
    rust_accel = {(r["form"], r["links"], r["tool"]): r["ns"] for r in rust("accel", workload_path)}

    # --- simulation
    log("simulation: udk DOP853")
    rust_sim = {(r["form"], r["links"]): r for r in rust("simulate", workload_path, SIM_T_END, SIM_TOL)}
    from scipy.integrate import solve_ivp

    scipy_sim = {}
    for key, tools in evaluators.items():
        if key not in rust_sim:
            continue
        acceleration = tools["SymPy lambdify + solve"]
        k = len(states_in(chain_of(workload, key[1]), key[0])[0][0])

        def rhs(t, y, acceleration=acceleration, k=k):
            return np.concatenate([y[k:], acceleration(y[:k], y[k:])])

        q0, qd0 = states_in(chain_of(workload, key[1]), key[0])[0]
        y0 = np.concatenate([q0, qd0])
        start = time.perf_counter()
        solution = solve_ivp(rhs, (0.0, SIM_T_END), y0, method="DOP853", rtol=SIM_TOL, atol=SIM_TOL)
        seconds = time.perf_counter() - start
        if not solution.success:
            sys.exit(f"SciPy DOP853 failed for {key}: {solution.message}")
        scipy_sim[key] = {"evaluations": solution.nfev, "seconds": seconds}
        log(f"  SciPy {key}: {solution.nfev} evaluations in {seconds:.2f} s")

    # --- build times
    build_times = {}
    if not args.skip_build_times:
        log("cargo build --release of one-model crates")
        build_times = cargo_build_times([(form, n) for n in SIZES for form in FORMS])

    # --- tables
    out = []
    rows = []
    for n in SIZES:
        for form in FORMS:
            d = derivation.get((form, n), {})
            lagrange, lam, pydy_t = d.get("lagrange"), d.get("lambdify"), d.get("pydy")
            sympy_total = lagrange + lam if isinstance(lagrange, float) and isinstance(lam, float) else lagrange
            pydy_total = lagrange + pydy_t if isinstance(lagrange, float) and isinstance(pydy_t, float) else pydy_t
            u = udk_derive[(form, n)]
            b = build_times.get((form, n))
            rows.append([
                form, n, fmt_time(u), fmt_time(b), fmt_time(lagrange), fmt_time(lam), fmt_time(pydy_t),
                ratio(u, sympy_total), ratio(b, sympy_total), ratio(b, pydy_total),
            ])
    out.append(table(
        "1. Derivation time",
        ["model", "n", "udk derive+emit", "udk cargo build --release", "SymPy LagrangesMethod",
         "SymPy lambdify(cse)", "PyDy Cython codegen+compile",
         "udk derive+emit / SymPy (LM+lambdify)", "udk build / SymPy (LM+lambdify)",
         "udk build / PyDy (LM+Cython)"],
        rows))

    times, ratios = [], []
    ns = lambda v: "—" if v is None else f"{v:,.0f}"
    for n in SIZES:
        for form in FORMS:
            gen = rust_accel.get((form, n, "generated"))
            tape = rust_accel.get((form, n, "tape"))
            sym = python_times.get((form, n, "SymPy lambdify + solve"))
            pydy_ns = python_times.get((form, n, "PyDy Cython + solve"))
            pin_ns = python_times.get((form, n, "Pinocchio aba (bare call)"))
            pin_net = pin_ns - overhead[(form, n)] if pin_ns is not None else None
            pin_c = pin_cpp[n][0] if form == "minimal" and n in pin_cpp else None
            pin = (lambda v: "n/a") if form == "cartesian" else ns
            times.append([form, n, ns(gen), ns(tape), ns(sym), ns(pydy_ns), pin(pin_ns), pin(pin_net), pin(pin_c)])
            ratios.append([form, n, ratio(gen, sym), ratio(gen, pydy_ns), ratio(gen, pin_net), ratio(gen, pin_c),
                           ratio(tape, gen)])
    closed = rust_accel.get(("minimal", 2, "closed_form"))
    gen2 = rust_accel.get(("minimal", 2, "generated"))
    out.append(table(
        "2a. Acceleration evaluation, ns per call",
        ["model", "n", "udk generated", "udk tape", "SymPy lambdify + numpy solve",
         "PyDy Cython + numpy solve", "Pinocchio aba from Python", "same, net of Python overhead",
         "Pinocchio aba in C++"],
        times)
        + f"\nPython overhead of an empty call in the same timing loop: {overhead_2:.0f} ns with 2 arguments; "
        + ", ".join(f"{v:.0f} ns with Pinocchio's 5 arguments (n={k[1]})" for k, v in sorted(overhead.items()))
        + ".\n")
    out.append(table(
        "2b. Acceleration evaluation, udk/peer ratios",
        ["model", "n", "generated / SymPy", "generated / PyDy", "generated / Pinocchio (Python, net)",
         "generated / Pinocchio (C++)", "tape / generated"],
        ratios)
        + f"\nDouble pendulum floor: hand-written closed form {closed:.1f} ns, generated {gen2:.1f} ns, "
        f"generated / closed form = {gen2 / closed:.2f}.\n")

    rows = []
    for n in SIZES:
        for form in FORMS:
            r = rust_sim.get((form, n))
            s = scipy_sim.get((form, n))
            if r is None:
                continue
            udk_rate = r["evaluations"] / r["seconds"]
            sci_rate = s["evaluations"] / s["seconds"] if s else None
            rows.append([
                form, n, r["evaluations"], f"{udk_rate:,.0f}",
                s["evaluations"] if s else "—", f"{sci_rate:,.0f}" if s else "—",
                ratio(1 / udk_rate, 1 / sci_rate) if s else "—",
            ])
    out.append(table(
        f"3. Simulation throughput: DOP853, t = 0…{SIM_T_END:g} s, rtol = atol = {SIM_TOL:g}",
        ["model", "n", "udk RHS evaluations", "udk RHS evaluations/s", "SciPy RHS evaluations",
         "SciPy RHS evaluations/s", "udk / SciPy (time per evaluation)"],
        rows))

    text = (f"Run of {started}; machine at the start: {machine_at_start}; at the end: {machine()}. "
            "The machine is shared with other jobs and noisy: compare ratios, not absolute times.\n\n")
    text += "\n".join(out)
    text += "\nVersions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".\n"
    worst_peer = max((d for (f, n, t), d in worst.items()), default=0.0)
    text += f"All tools agree to {worst_peer:.1e} (relative to max(1, |q̈|)) at {STATES} random states per model.\n"
    for note in notes:
        text += f"\nNote: {note}\n"
    print(text)
    with open(os.path.join(OUT, "tables.md"), "w") as f:
        f.write(text)
    with open(os.path.join(OUT, "raw.json"), "w") as f:
        json.dump({
            "udk_derive": {f"{k[0]} {k[1]}": v for k, v in udk_derive.items()},
            "derivation": {f"{k[0]} {k[1]}": v for k, v in derivation.items()},
            "rust_accel": {" ".join(map(str, k)): v for k, v in rust_accel.items()},
            "python_times": {" ".join(map(str, k)): v for k, v in python_times.items()},
            "overhead": {f"{k[0]} {k[1]}": v for k, v in overhead.items()},
            "rust_sim": {f"{k[0]} {k[1]}": v for k, v in rust_sim.items()},
            "scipy_sim": {f"{k[0]} {k[1]}": v for k, v in scipy_sim.items()},
            "build_times": {f"{k[0]} {k[1]}": v for k, v in build_times.items()},
        }, f, indent=1)


if __name__ == "__main__":
    main()
