"""udk from Python against Pinocchio and SymPy from Python, side by side in one run.

1. One q̈ of the UR5 (example-robot-data's URDF): `Model.acceleration` against `pin.aba`.
2. q̈ at 100 000 UR5 states: one batch call against a Python loop over `pin.aba` and against
   Pinocchio's own parallel batch `pin.abaInParallel` (a `ModelPool`, one thread per core).
3. An n-link pendulum on a cart: `Model.from_sympy` + the JIT to the first q̈ (and its phases:
   printing SymPy into udk's language, derivation + compilation, the first q̈), against
   SymPy's `KanesMethod` + `lambdify` to the first q̈ and, with --pydy-links, PyDy's Cython
   code generation (`generate_ode_function(..., generator="cython")`, needs Cython and a C
   compiler) to the first q̈.

Needs udk-dynamics built in release mode (`pip install ./python`, or `maturin develop
--release` in python/), pin and sympy. Run from the repository's root:

    python bench/python_vs_pinocchio_sympy.py --links 5 10 20 --pydy-links 5 10 --repeat 3

With --repeat k, each time to the first q̈ is the best of k runs (each from scratch).
"""

import argparse
import gc
import os
import time
import timeit
from pathlib import Path

import numpy as np
import pinocchio as pin
import sympy as sp
import sympy.physics.mechanics as me

import udk
import udk.sympy

UR5 = Path(__file__).resolve().parents[1] / "robots" / "ur5_robot.urdf"


def per_call(function, repeat=7, number=20_000):
    """The best of `repeat` timings of `number` calls, per call (s)."""
    return min(timeit.repeat(function, repeat=repeat, number=number)) / number


def ur5(count):
    robot = udk.Model.from_urdf(UR5)
    reference = pin.buildModelFromUrdf(str(UR5))
    data = reference.createData()
    rng = np.random.default_rng(1)
    q = rng.uniform(-np.pi, np.pi, (count, 6))
    qd = rng.uniform(-2.0, 2.0, (count, 6))
    tau = np.zeros(6)
    one_udk = per_call(lambda: robot.acceleration(q[0], qd[0]))
    one_pin = per_call(lambda: pin.aba(reference, data, q[0], qd[0], tau))
    print(f"UR5, one q̈:       udk {one_udk * 1e6:7.2f} µs   pin.aba {one_pin * 1e6:7.2f} µs")
    batch_udk = best(lambda: robot.acceleration(q, qd))
    start = time.perf_counter()
    loop = np.array([pin.aba(reference, data, q[i], qd[i], tau) for i in range(count)])
    loop_pin = time.perf_counter() - start
    batch = robot.acceleration(q, qd)
    error = np.abs(batch - loop).max() / max(1.0, np.abs(loop).max())
    print(f"UR5, {count} q̈:  udk batch {batch_udk * 1e3:8.1f} ms   "
          f"pin.aba loop {loop_pin * 1e3:8.1f} ms   ({loop_pin / batch_udk:.1f}×; "
          f"largest difference {error:.1e} relative)")
    # Pinocchio's batch takes states as columns (nq × count), column-major.
    threads = os.cpu_count()
    pool = pin.ModelPool(reference, threads)
    qt, qdt = np.asfortranarray(q.T), np.asfortranarray(qd.T)
    taut, out = np.zeros((6, count), order="F"), np.zeros((6, count), order="F")
    parallel_pin = best(lambda: pin.abaInParallel(threads, pool, qt, qdt, taut, out))
    error = np.abs(batch - out.T).max() / max(1.0, np.abs(loop).max())
    print(f"UR5, {count} q̈:  udk batch {batch_udk * 1e3:8.1f} ms   "
          f"pin.abaInParallel ({threads} threads) {parallel_pin * 1e3:8.1f} ms   "
          f"({parallel_pin / batch_udk:.1f}×; largest difference {error:.1e} relative)")


def best(function, repeat=5):
    """The best of `repeat` timings of one call (s)."""
    return min(timeit.repeat(function, repeat=repeat, number=1))


def pendulum_on_cart(n):
    """Symbols of an n-link pendulum on a cart (PyDy's classic example): cart x, link
    angles from the vertical, point masses at the link ends."""
    q = me.dynamicsymbols(f"q0:{n + 1}")
    u = me.dynamicsymbols(f"u0:{n + 1}")
    m = sp.symbols(f"m0:{n + 1}")
    length = sp.symbols(f"l0:{n}")
    g = sp.Symbol("g")
    values = {g: 9.81} | {s: 1.0 for s in m} | {s: 0.5 for s in length}
    return q, u, m, length, g, values


def first_qdd_udk(n):
    """Time to the first q̈ and its phases (printing, derivation + compilation, first q̈)."""
    q, _, m, length, g, values = pendulum_on_cart(n)
    t = me.dynamicsymbols._t
    x, y = q[0], sp.Integer(0)
    kinetic, potential = m[0] * q[0].diff(t) ** 2 / 2, 0
    for i in range(n):
        x, y = x + length[i] * sp.sin(q[i + 1]), y - length[i] * sp.cos(q[i + 1])
        kinetic += m[i + 1] * (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
        potential += m[i + 1] * g * y
    # Each tool starts on a collected heap: the garbage of the one before (SymPy's) is not
    # collected inside the next one's timing.
    gc.collect()
    start = time.perf_counter()
    # `Model.from_sympy` is these two steps.
    spec = udk.sympy.spec(kinetic - potential, q, parameters=values)
    printed = time.perf_counter()
    model = udk.Model.from_spec(spec)
    built = time.perf_counter()
    qdd = model.acceleration(np.full(n + 1, 0.1), np.zeros(n + 1))
    end = time.perf_counter()
    return end - start, qdd, (printed - start, built - printed, end - built)


def kane(n):
    """SymPy's KanesMethod on the n-link pendulum on a cart: the method, q, u, the values."""
    q, u, m, length, g, values = pendulum_on_cart(n)
    frame = me.ReferenceFrame("I")
    origin = me.Point("O")
    origin.set_vel(frame, 0)
    cart = origin.locatenew("P0", q[0] * frame.x)
    cart.set_vel(frame, u[0] * frame.x)
    particles = [me.Particle("Pa0", cart, m[0])]
    forces = [(cart, -m[0] * g * frame.y)]
    kinematics = [q[0].diff() - u[0]]
    point = cart
    for i in range(n):
        link = frame.orientnew(f"B{i}", "Axis", [q[i + 1], frame.z])
        link.set_ang_vel(frame, u[i + 1] * frame.z)
        point = point.locatenew(f"P{i + 1}", -length[i] * link.y)
        point.v2pt_theory(particles[-1].point, frame, link)
        particles.append(me.Particle(f"Pa{i + 1}", point, m[i + 1]))
        forces.append((point, -m[i + 1] * g * frame.y))
        kinematics.append(q[i + 1].diff() - u[i + 1])
    method = me.KanesMethod(frame, q_ind=q, u_ind=u, kd_eqs=kinematics)
    method.kanes_equations(particles, forces)
    return method, q, u, values


def first_qdd_sympy(n):
    gc.collect()
    start = time.perf_counter()
    method, q, u, values = kane(n)
    mass, forcing = method.mass_matrix_full, method.forcing_full
    symbols = list(q) + list(u) + list(values)
    rhs = sp.lambdify(symbols, [mass, forcing])
    state = [0.1] * (n + 1) + [0.0] * (n + 1) + list(values.values())
    mm, ff = rhs(*state)
    qdd = np.linalg.solve(np.array(mm, dtype=float), np.array(ff, dtype=float).ravel())
    return time.perf_counter() - start, qdd[n + 1:]


def first_qdd_pydy(n):
    """PyDy's Cython code generation of the Kane equations, compiled, to the first q̈."""
    from pydy.codegen.ode_function_generators import generate_ode_function

    gc.collect()
    start = time.perf_counter()
    method, q, u, values = kane(n)
    rhs = generate_ode_function(method.forcing_full, q, u, list(values),
                                mass_matrix=method.mass_matrix_full, generator="cython",
                                constants_arg_type="array")
    state = np.array([0.1] * (n + 1) + [0.0] * (n + 1))
    xd = rhs(state, 0.0, np.array(list(values.values())))
    return time.perf_counter() - start, xd[n + 1:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=100_000)
    parser.add_argument("--links", type=int, nargs="*", default=[3, 5, 10])
    parser.add_argument("--pydy-links", type=int, nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    def fastest(first_qdd, n):
        return min((first_qdd(n) for _ in range(args.repeat)), key=lambda run: run[0])

    if args.states:
        ur5(args.states)
    # SymPy's caches and imports warm up once, outside the timings.
    first_qdd_sympy(2)
    first_qdd_udk(2)
    for n in args.links:
        udk_time, udk_qdd, phases = fastest(first_qdd_udk, n)
        sympy_time, sympy_qdd = fastest(first_qdd_sympy, n)
        # The cart pendulum of the two formulations, angles from the downward vertical.
        difference = np.abs(udk_qdd - sympy_qdd).max()
        print(f"{n}-link pendulum on a cart, to the first q̈: udk {udk_time:7.3f} s "
              f"(print {phases[0]:.4f}, derive + compile {phases[1]:.4f}, "
              f"first q̈ {phases[2]:.4f})   SymPy KanesMethod + lambdify {sympy_time:7.3f} s   "
              f"({sympy_time / udk_time:.0f}×; q̈ differ by {difference:.1e})")
    for n in args.pydy_links:
        udk_time, udk_qdd, _ = fastest(first_qdd_udk, n)
        pydy_time, pydy_qdd = fastest(first_qdd_pydy, n)
        difference = np.abs(udk_qdd - pydy_qdd).max()
        print(f"{n}-link pendulum on a cart, to the first q̈: udk {udk_time:7.3f} s   "
              f"PyDy Cython {pydy_time:7.3f} s   "
              f"({pydy_time / udk_time:.0f}×; q̈ differ by {difference:.1e})")


if __name__ == "__main__":
    main()
