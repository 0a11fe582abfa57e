"""udk against Pinocchio on URDF robots, in one run on one machine: sixteen robots of
example-robot-data from n = 6 (UR5, SO-100, Kinova) to n = 44 (Talos), with axis-aligned and
generic joint frames (ROBOTS; Talos is read from the installed package, not redistributed here).

Run through bench/compare.sh (UDK_BENCH_PARTS=robots runs only this part), which creates the
virtual environment, builds the Rust side with the `robots` feature and bench/pinocchio_urdf.cpp
against the `pin` wheel. Every tool gets the same random states (out/robots_workload.json, fixed
seed, within the URDF limits, in Pinocchio's joint order; udk maps them by joint name). The
accelerations are checked against Pinocchio's first (1e-9 relative); any disagreement stops the
run. Then, per robot, nanoseconds per call of:
- udk: the generated `acceleration` (τ as input), `terms` (M, Q, A, b together), `mass_matrix`
  (M alone), `generalized_forces` at τ = 0 (the bias alone) and `acceleration_jacobian`
  (q̈ with ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ);
- Pinocchio in C++: `aba`, `crba`, `rnea(q, q̇, 0)`, `computeABADerivatives`;
- Pinocchio from Python: the same three, net of the cost of an empty Python call with the same
  arguments in the same loop;
and the seconds of `udk_symbolic::urdf::expand` and `udk_symbolic::generate`, and of
`cargo build --release` of a crate holding just the robot (dependencies built first).
Writes out/robots.md and out/robots_raw.json.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

from compare import empty, log, machine, ns_per_call, table

# The robots: URDF file stem -> (the struct name in udk-bench/src/robots.rs and of its one-model
# crate (build_time), the file's path under robots/ of this repository). Talos, whose licence does
# not allow redistribution, is read from the installed example-robot-data package instead
# (PACKAGE_ROBOTS: compare.sh copies it into udk-bench/package-robots/ for the `package-robots`
# feature).
ERD = "example-robot-data"
ROBOTS = {
    "ur5_robot": ("Ur5", "ur5_robot.urdf"),
    "so100": ("So100", "so100.urdf"),
    "kinova": ("Kinova", f"{ERD}/kinova_description/robots/kinova.urdf"),
    "xarm7": ("Xarm7", f"{ERD}/xarm_description/urdf/xarm7.urdf"),
    "panda": ("Panda", "panda.urdf"),
    "a1": ("A1", "a1.urdf"),
    "allegro_right_hand": ("AllegroRightHand", f"{ERD}/allegro_hand_description/urdf/allegro_right_hand.urdf"),
    "baxter": ("Baxter", f"{ERD}/baxter_description/urdf/baxter.urdf"),
    "g1_29dof_rev_1_0": ("G1", f"{ERD}/g1_description/urdf/g1_29dof_rev_1_0.urdf"),
    "pr2": ("Pr2", f"{ERD}/pr2_description/urdf/pr2.urdf"),
    "romeo_small": ("RomeoSmall", "romeo_small.urdf"),
    "tiago_pro": ("TiagoPro", f"{ERD}/tiago_pro_description/robots/tiago_pro.urdf"),
    "human": ("Human", f"{ERD}/human_description/robots/human.urdf"),
    "centauro": ("Centauro", f"{ERD}/centauro_description/urdf/centauro.urdf"),
    "g1_29dof_with_hand_rev_1_0": ("G1WithHands", f"{ERD}/g1_description/urdf/g1_29dof_with_hand_rev_1_0.urdf"),
    "talos_full_v2": ("TalosFull", None),
}
PACKAGE_ROBOTS = {"talos_full_v2": "talos_data/robots/talos_full_v2.urdf"}
# A joint origin's rpy angle within this of a multiple of pi/2 is a quarter turn (as udk reads it).
QUARTER_TURN = 1e-12
STATES = 16
SEED = 20261122
TOLERANCE = 1e-9
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BENCH_BIN = os.path.join(TARGET, "release", "udk-bench")


def urdf(robot):
    if robot in PACKAGE_ROBOTS:
        return os.path.join(HERE, "udk-bench", "package-robots", f"{robot}.urdf")
    return os.path.join(ROOT, "robots", ROBOTS[robot][1])


def generic_frames(robot):
    """The number of movable joints whose frame is generic: an origin rpy angle that is not a
    quarter turn (as udk reads it: within QUARTER_TURN of a multiple of pi/2), or an axis that is
    not a coordinate axis. Fixed joints are not counted (udk merges them into their child)."""
    import xml.etree.ElementTree as ET

    def quarter_turns(values):
        grid = np.pi / 2
        return all(abs(v / grid - round(v / grid)) * grid <= QUARTER_TURN for v in values)

    count = 0
    for joint in ET.parse(urdf(robot)).getroot().iter("joint"):
        if joint.get("type") in ("fixed", "floating"):
            continue
        origin, axis = joint.find("origin"), joint.find("axis")
        rpy = [] if origin is None else [float(v) for v in origin.get("rpy", "0 0 0").split()]
        xyz = [1.0, 0.0, 0.0] if axis is None else [float(v) for v in axis.get("xyz").split()]
        count += not quarter_turns(rpy) or sum(v != 0 for v in xyz) != 1
    return count


def available():
    """The robots of ROBOTS whose URDF file is there (the package robots only once compare.sh
    has copied them)."""
    return [robot for robot in ROBOTS if os.path.exists(urdf(robot))]


def random_angles(model, rng):
    """(q for udk, one angle per joint; q for Pinocchio, nq entries): within the URDF's position
    limits, a continuous joint (Pinocchio's (cos θ, sin θ)) at θ in (−π, π)."""
    angles, q = [], np.zeros(model.nq)
    for joint in model.joints[1:]:
        if joint.nv != 1:
            sys.exit(f"joint {joint.shortname()} has {joint.nv} velocities: not supported here")
        iq = joint.idx_q
        if joint.nq == 2:
            theta = rng.uniform(-np.pi, np.pi)
            q[iq:iq + 2] = [np.cos(theta), np.sin(theta)]
        else:
            theta = rng.uniform(model.lowerPositionLimit[iq], model.upperPositionLimit[iq])
            q[iq] = theta
        angles.append(theta)
    return angles, q.tolist()


def make_workload(pin, robots):
    """Per robot: Pinocchio's joint names and STATES random (q, q̇, τ) within the URDF's
    position, velocity and effort limits (one-dof joints only; `q_pinocchio` is Pinocchio's q)."""
    rng = np.random.default_rng(SEED)
    rows = []
    for robot in robots:
        model = pin.buildModelFromUrdf(urdf(robot))
        states = []
        for _ in range(STATES):
            q, q_pinocchio = random_angles(model, rng)
            states.append({
                "q": q,
                "q_pinocchio": q_pinocchio,
                "qd": rng.uniform(-model.velocityLimit, model.velocityLimit).tolist(),
                "tau": rng.uniform(-model.effortLimit, model.effortLimit).tolist(),
            })
        rows.append({"name": robot, "coordinates": list(model.names[1:]), "states": states})
    return {"seed": SEED, "robots": rows}


def arrays(robot):
    return [(np.array(s["q_pinocchio"]), np.array(s["qd"]), np.array(s["tau"])) for s in robot["states"]]


def rust(*args):
    out = subprocess.run([BENCH_BIN, *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def pinocchio_cpp(binary, workload):
    """{robot: row of bench/pinocchio_urdf.cpp}."""
    lines = [str(len(workload["robots"]))]
    for robot in workload["robots"]:
        lines += [urdf(robot["name"]), str(len(robot["states"]))]
        for s in robot["states"]:
            lines += [" ".join(map(repr, s[key])) for key in ("q_pinocchio", "qd", "tau")]
    out = subprocess.run([binary], input="\n".join(lines) + "\n", check=True, capture_output=True, text=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    return {robot["name"]: row for robot, row in zip(workload["robots"], rows)}


def pinocchio_python(pin, robot):
    """Nanoseconds per bare call of aba, crba and rnea(q, q̇, 0) from Python, the overhead of an
    empty call with the same arguments, and the accelerations."""
    model = pin.buildModelFromUrdf(urdf(robot["name"]))
    data = model.createData()
    states = arrays(robot)
    zero = np.zeros(model.nv)
    aba_args = [(model, data, q, qd, tau) for q, qd, tau in states]
    crba_args = [(model, data, q) for q, _, _ in states]
    rnea_args = [(model, data, q, qd, zero) for q, qd, _ in states]
    return {
        "aba": ns_per_call(pin.aba, aba_args),
        "aba overhead": ns_per_call(empty, aba_args),
        "crba": ns_per_call(pin.crba, crba_args),
        "crba overhead": ns_per_call(empty, crba_args),
        "rnea": ns_per_call(pin.rnea, rnea_args),
        "rnea overhead": ns_per_call(empty, rnea_args),
        "accelerations": [pin.aba(*args).tolist() for args in aba_args],
    }


def check_agreement(name, ours, theirs, what):
    worst = 0.0
    for a, b in zip(ours, theirs):
        a, b = np.array(a), np.array(b)
        error = np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b)))
        worst = max(worst, error)
    if not worst < TOLERANCE:
        sys.exit(f"{name}: udk and {what} disagree: {worst:.2e} relative")
    return worst


def build_time(robot):
    """Wall time of `cargo build --release` of a crate holding just `robot` under
    #[lagrangian(urdf = ...)], its dependencies built first by a warm-up crate."""
    base = os.path.join(TARGET, "udk-bench-robots")
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(base, "target"))

    def build(name, source):
        crate = os.path.join(base, name)
        os.makedirs(os.path.join(crate, "src"), exist_ok=True)
        with open(os.path.join(crate, "Cargo.toml"), "w") as f:
            f.write(f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n'
                    f'[dependencies]\nudk = {{ path = "{ROOT}" }}\n\n[workspace]\n')
        with open(os.path.join(crate, "src", "lib.rs"), "w") as f:
            f.write(source)
        start = time.perf_counter()
        done = subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path",
                               os.path.join(crate, "Cargo.toml")], env=env)
        return time.perf_counter() - start if done.returncode == 0 else None

    build("warm_up", "//! Builds the dependencies.\npub use udk;\n")
    crate = f"robot_{robot}"
    os.makedirs(os.path.join(base, crate), exist_ok=True)
    shutil.copy(urdf(robot), os.path.join(base, crate, f"{robot}.urdf"))
    source = (f"//! Just the {robot} model.\n\n/// The robot.\n"
              f"#[udk::lagrangian(urdf = \"{robot}.urdf\")]\npub struct {ROBOTS[robot][0]};\n")
    # Touch the source so that cargo rebuilds the crate even when a previous run built it.
    build(crate, source + f"// run {time.time()}\n")
    return build(crate, source)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-build-times", action="store_true")
    parser.add_argument("--pinocchio-cpp", default=os.path.join(OUT, "pinocchio_urdf"),
                        help="bench/pinocchio_urdf.cpp built against the pin wheel (compare.sh builds it)")
    args = parser.parse_args()
    import pinocchio as pin

    os.makedirs(OUT, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    machine_at_start = machine()
    robots = available()
    missing = [robot for robot in ROBOTS if robot not in robots]
    if missing:
        log(f"no URDF file for {', '.join(missing)} (compare.sh copies them from example-robot-data)")
    workload = make_workload(pin, robots)
    workload_path = os.path.join(OUT, "robots_workload.json")
    with open(workload_path, "w") as f:
        json.dump(workload, f)

    log("udk: robots")
    udk = {row["name"]: row for row in rust("robots", workload_path)}
    log("udk: expand + generate")
    derive = {row["name"]: row for row in rust("robot-derive", *(f"{r}={urdf(r)}" for r in robots))}
    log("Pinocchio from C++")
    cpp = pinocchio_cpp(args.pinocchio_cpp, workload) if os.path.exists(args.pinocchio_cpp) else {}
    log("Pinocchio from Python")
    python = {robot["name"]: pinocchio_python(pin, robot) for robot in workload["robots"]}
    builds = {}
    if not args.skip_build_times:
        for robot in robots:
            log(f"cargo build --release of a crate holding just {robot}")
            builds[robot] = build_time(robot)

    worst = {}
    for robot in robots:
        worst[robot] = check_agreement(robot, udk[robot]["accelerations"], python[robot]["accelerations"],
                                       "Pinocchio (Python)")
        if robot in cpp:
            worst[robot] = max(worst[robot], check_agreement(
                robot, udk[robot]["accelerations"], cpp[robot]["accelerations"], "Pinocchio (C++)"))

    ns = lambda v: "—" if v is None else f"{v:,.0f}"
    ratio = lambda a, b: "—" if a is None or b is None else f"{a / b:.2f}"
    rows, ratios = [], []
    for robot in robots:
        u, p, c = udk[robot], python[robot], cpp.get(robot, {})
        net = {k: p[k] - p[f"{k} overhead"] for k in ("aba", "crba", "rnea")}
        for what, ours, theirs in (("q̈: acceleration vs aba", "acceleration_ns", "aba"),
                                   ("M: mass_matrix vs crba", "mass_matrix_ns", "crba"),
                                   ("bias: generalized_forces(τ = 0) vs rnea(q, q̇, 0)", "bias_ns", "rnea")):
            cpp_ns = c.get(f"{theirs}_ns")
            rows.append([robot, what, ns(u[ours]), ns(cpp_ns), ns(p[theirs]), ns(net[theirs]),
                         ratio(cpp_ns, u[ours]), ratio(net[theirs], u[ours])])
        rows.append([robot, "M, Q, A, b together: terms (inside acceleration)", ns(u["terms_ns"]),
                     "—", "—", "—", "—", "—"])
        jacobian_cpp = c.get("aba_derivatives_ns")
        rows.append([robot, "∂q̈/∂(q, q̇, τ): acceleration_jacobian vs computeABADerivatives",
                     ns(u["jacobian_ns"]), ns(jacobian_cpp), "—", "—", ratio(jacobian_cpp, u["jacobian_ns"]),
                     "—"])
        ratios.append([robot, ratio(u["jacobian_ns"], u["acceleration_ns"])])
    out = [table(
        "Robots: ns per call (best of 7 runs, 16 states)",
        ["robot", "quantity", "udk generated", "Pinocchio C++", "Pinocchio Python",
         "Pinocchio Python, net of overhead", "C++ / udk", "Python net / udk"],
        rows)]
    out.append(table(
        "Robots: one exact Jacobian ∂q̈/∂(q, q̇, τ) in units of one acceleration (udk)",
        ["robot", "acceleration_jacobian / acceleration"], ratios))
    rows = []
    for robot in robots:
        d = derive[robot]
        build = builds.get(robot)
        rows.append([robot, f"{d['expand_seconds'] * 1e3:.1f} ms", f"{d['generate_seconds'] * 1e3:.0f} ms",
                     "—" if build is None else f"{build:.1f} s"])
    out.append(table(
        "Robots: derivation and build",
        ["robot", "udk_symbolic::urdf::expand (read + expand)", "udk_symbolic::generate",
         "cargo build --release of the one-model crate"],
        rows))
    rows = []
    for robot in robots:
        u, c, build = udk[robot], cpp.get(robot, {}), builds.get(robot)
        aba, derivatives = c.get("aba_ns"), c.get("aba_derivatives_ns")
        rows.append([robot, len(u["accelerations"][0]), generic_frames(robot), ns(u["acceleration_ns"]), ns(aba),
                     ratio(aba, u["acceleration_ns"]), ns(u["jacobian_ns"]), ns(derivatives),
                     ratio(derivatives, u["jacobian_ns"]), "—" if build is None else f"{build:.1f} s"])
    out.insert(0, table(
        "Robots: summary (ns per call; ratio = Pinocchio C++ / udk)",
        ["robot", "n", "generic joint frames", "udk acceleration", "Pinocchio aba", "ratio",
         "udk acceleration_jacobian", "Pinocchio computeABADerivatives", "ratio", "one-robot crate build"],
        rows))
    text = (f"Run of {started}; machine at the start: {machine_at_start}; at the end: {machine()}. "
            "The machine is shared with other jobs and noisy: compare ratios, not absolute times.\n\n")
    text += "\n".join(out)
    text += (f"\nPinocchio {pin.__version__}; udk and Pinocchio agree to "
             + ", ".join(f"{w:.1e} ({r})" for r, w in worst.items())
             + " relative to max(1, |q̈|).\n")
    if not cpp:
        text += "\nNote: bench/pinocchio_urdf.cpp was not built: no Pinocchio C++ figures.\n"
    print(text)
    with open(os.path.join(OUT, "robots.md"), "w") as f:
        f.write(text)
    with open(os.path.join(OUT, "robots_raw.json"), "w") as f:
        json.dump({"udk": udk, "derive": derive, "cpp": cpp, "python": python, "builds": builds}, f, indent=1)


if __name__ == "__main__":
    main()
