"""udk from Python against Pinocchio and SymPy from Python, side by side in one run.

1. One q̈ of the UR5 (example-robot-data's URDF): `Model.acceleration` against `pin.aba`.
2. q̈ at 100 000 UR5 states: one batch call against a Python loop over `pin.aba` and against
   Pinocchio's own parallel batch `pin.abaInParallel` (a `ModelPool`, one thread per core).
3. An n-link pendulum on a cart, to the first q̈: the Lagrangian written in SymPy and
   `Model.from_sympy` + the JIT + one `acceleration` (and its phases: printing SymPy into
   udk's language, derivation + compilation, the first q̈), against SymPy's frames and
   particles, `KanesMethod` + `lambdify` + one call and, with --pydy-links, PyDy's Cython code
   generation (`generate_ode_function(..., generator="cython")`, needs Cython and a C
   compiler) + one call. Each is timed from the symbols (the model's description included on
   both sides) and from the description (as issue 26 puts it: `from_sympy` + JIT against
   `KanesMethod` + `lambdify`), in wall and in CPU time, on a collected heap with SymPy's
   cache cleared. With --lagrange-links, also against SymPy's `LagrangesMethod` on the very
   Lagrangian udk is given (+ `lambdify` + one call).

Needs udk-dynamics built in release mode (`pip install ./python`, or `maturin develop
--release` in python/), pin and sympy. Run from the repository's root:

    python bench/python_vs_pinocchio_sympy.py --links 5 10 20 --pydy-links 5 10 --repeat 3

With --repeat k, each time to the first q̈ is the run of least CPU time of k (each from
scratch).
"""

import argparse
import gc
import os
import resource
import time
import timeit
from pathlib import Path

import numpy as np
import pinocchio as pin
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.cache import clear_cache

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
    def pin_loop():
        return np.array([pin.aba(reference, data, q[i], qd[i], tau) for i in range(count)])
    # The best of 3 loops, as the batch is the best of 5 calls.
    loop_pin = best(pin_loop, repeat=3)
    loop = pin_loop()
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


def now():
    """(wall, CPU) time now (s)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter(), time.process_time() + children.ru_utime + children.ru_stime


class Clock:
    """Wall and CPU times (user + system of all threads of this process and of the child
    processes it waited for, such as PyDy's C compiler) of the phases of one run, each tool started on a collected heap and with SymPy's cache cleared, so
    that neither the garbage nor the cached results of the run before fall into its timing."""

    def __init__(self):
        clear_cache()
        gc.collect()
        self.marks = [now()]

    def mark(self):
        self.marks.append(now())

    def phases(self):
        """[(wall, cpu)] of each phase, in seconds."""
        return [(b[0] - a[0], b[1] - a[1]) for a, b in zip(self.marks, self.marks[1:])]


def cart_lagrangian(q, m, length, g):
    """The Lagrangian of the n-link pendulum on a cart in SymPy."""
    t = me.dynamicsymbols._t
    # Each link's offset differentiated once: differentiating every link's whole position,
    # `x.diff(t)`, does the links before again (SymPy's CPU time with its cache cleared, 26 ms
    # against 19 at 5 links, 128 against 78 at 20).
    y, vx, vy = sp.Integer(0), q[0].diff(t), sp.Integer(0)
    kinetic, potential = m[0] * vx ** 2 / 2, 0
    for i in range(len(length)):
        dx, dy = length[i] * sp.sin(q[i + 1]), -length[i] * sp.cos(q[i + 1])
        y, vx, vy = y + dy, vx + dx.diff(t), vy + dy.diff(t)
        kinetic += m[i + 1] * (vx ** 2 + vy ** 2) / 2
        potential += m[i + 1] * g * y
    return kinetic - potential


def first_qdd_udk(n):
    """q̈ and the phases to it: the Lagrangian written in SymPy (the model's description),
    printing it into udk's language, derivation + compilation, the first q̈."""
    q, _, m, length, g, values = pendulum_on_cart(n)
    clock = Clock()
    lagrangian = cart_lagrangian(q, m, length, g)
    clock.mark()
    # `Model.from_sympy` is these two steps.
    spec = udk.sympy.spec(lagrangian, q, parameters=values)
    clock.mark()
    model = udk.Model.from_spec(spec)
    clock.mark()
    qdd = model.acceleration(np.full(n + 1, 0.1), np.zeros(n + 1))
    clock.mark()
    return clock.phases(), qdd


def kane(n, clock=None):
    """SymPy's KanesMethod on the n-link pendulum on a cart: the method, q, u, the values.
    `clock` is marked between the description (frames, points, particles) and the method."""
    q, u, m, length, g, values = pendulum_on_cart(n)
    clock = clock or Clock()
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
    clock.mark()
    method = me.KanesMethod(frame, q_ind=q, u_ind=u, kd_eqs=kinematics)
    method.kanes_equations(particles, forces)
    return method, q, u, values


def first_qdd_sympy(n):
    """q̈ and the phases to it: the description, KanesMethod + lambdify + the first q̈."""
    # The symbols are made before the clock starts, as for udk.
    pendulum_on_cart(n)
    clock = Clock()
    method, q, u, values = kane(n, clock)
    mass, forcing = method.mass_matrix_full, method.forcing_full
    symbols = list(q) + list(u) + list(values)
    rhs = sp.lambdify(symbols, [mass, forcing])
    state = [0.1] * (n + 1) + [0.0] * (n + 1) + list(values.values())
    mm, ff = rhs(*state)
    qdd = np.linalg.solve(np.array(mm, dtype=float), np.array(ff, dtype=float).ravel())
    clock.mark()
    return clock.phases(), qdd[n + 1:]


def first_qdd_lagrange(n):
    """SymPy's LagrangesMethod on the Lagrangian udk is given, to the first q̈: the
    description, then `LagrangesMethod` + `form_lagranges_equations` + `lambdify` + the
    first q̈."""
    q, _, m, length, g, values = pendulum_on_cart(n)
    clock = Clock()
    lagrangian = cart_lagrangian(q, m, length, g)
    clock.mark()
    method = me.LagrangesMethod(lagrangian, q)
    method.form_lagranges_equations()
    qd = [x.diff(me.dynamicsymbols._t) for x in q]
    rhs = sp.lambdify(list(q) + qd + list(values), [method.mass_matrix, method.forcing])
    mm, ff = rhs(*([0.1] * (n + 1) + [0.0] * (n + 1) + list(values.values())))
    qdd = np.linalg.solve(np.array(mm, dtype=float), np.array(ff, dtype=float).ravel())
    clock.mark()
    return clock.phases(), qdd


def first_qdd_pydy(n):
    """PyDy's Cython code generation of the Kane equations, compiled, to the first q̈: the
    description, then KanesMethod + code generation + compilation + the first q̈."""
    from pydy.codegen.ode_function_generators import generate_ode_function

    pendulum_on_cart(n)
    clock = Clock()
    method, q, u, values = kane(n, clock)
    rhs = generate_ode_function(method.forcing_full, q, u, list(values),
                                mass_matrix=method.mass_matrix_full, generator="cython",
                                constants_arg_type="array")
    state = np.array([0.1] * (n + 1) + [0.0] * (n + 1))
    xd = rhs(state, 0.0, np.array(list(values.values())))
    clock.mark()
    return clock.phases(), xd[n + 1:]


def total(phases, start=0):
    """(wall, cpu) of `phases[start:]` summed."""
    return tuple(sum(p[k] for p in phases[start:]) for k in (0, 1))


def compare(n, name, udk_phases, other_phases):
    """Prints the times to the first q̈ of udk and of `name`, from the symbols (the model's
    description included on both sides) and from the description (`from_sympy` + JIT + q̈
    against the method + q̈), wall and CPU."""
    line = [f"{n}-link pendulum on a cart, to the first q̈ (wall / CPU):"]
    for label, start in (("from the symbols", 0), ("from the description", 1)):
        (uw, uc), (ow, oc) = total(udk_phases, start), total(other_phases, start)
        line.append(f"  {label}: udk {uw:.4f} / {uc:.4f} s   {name} {ow:.3f} / {oc:.3f} s   "
                    f"({ow / uw:.0f}× wall, {oc / uc:.0f}× CPU)")
    print("\n".join(line))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=100_000)
    parser.add_argument("--links", type=int, nargs="*", default=[3, 5, 10])
    parser.add_argument("--pydy-links", type=int, nargs="*", default=[])
    parser.add_argument("--lagrange-links", type=int, nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    def fastest(first_qdd, n):
        """The run of the least CPU time from the symbols, of `args.repeat`."""
        return min((first_qdd(n) for _ in range(args.repeat)),
                   key=lambda run: total(run[0])[1])

    if args.states:
        ur5(args.states)
    # SymPy's caches and imports warm up once, outside the timings.
    first_qdd_sympy(2)
    first_qdd_udk(2)
    for n in args.links:
        udk_phases, udk_qdd = fastest(first_qdd_udk, n)
        sympy_phases, sympy_qdd = fastest(first_qdd_sympy, n)
        compare(n, "SymPy KanesMethod + lambdify", udk_phases, sympy_phases)
        # The cart pendulum of the two formulations, angles from the downward vertical.
        print("  udk's phases (wall, ms): " + ", ".join(
            f"{name} {p[0] * 1e3:.2f}" for name, p in
            zip(("Lagrangian in SymPy", "print", "derive + compile", "first q̈"), udk_phases))
            + f"; q̈ differ by {np.abs(udk_qdd - sympy_qdd).max():.1e}")
    for n in args.pydy_links:
        udk_phases, udk_qdd = fastest(first_qdd_udk, n)
        pydy_phases, pydy_qdd = fastest(first_qdd_pydy, n)
        compare(n, "PyDy Cython", udk_phases, pydy_phases)
        print(f"  q̈ differ by {np.abs(udk_qdd - pydy_qdd).max():.1e}")
    for n in args.lagrange_links:
        udk_phases, udk_qdd = fastest(first_qdd_udk, n)
        lagrange_phases, lagrange_qdd = fastest(first_qdd_lagrange, n)
        compare(n, "SymPy LagrangesMethod + lambdify", udk_phases, lagrange_phases)
        print(f"  q̈ differ by {np.abs(udk_qdd - lagrange_qdd).max():.1e}")
    print(f"1-minute load average at the end: {os.getloadavg()[0]:.1f}")

if __name__ == "__main__":
    main()
