"""udk against Pinocchio's C++ on robots with a floating base, in one run on one machine:
Solo12, ANYmal C (robots/example-robot-data/) and Talos reduced (32 joints, read from the
installed example-robot-data package).

Run through bench/compare.sh (UDK_BENCH_PARTS=floating runs only this part), which builds the
Rust side with the `floating` feature and bench/pinocchio_floating.cpp against the `pin` wheel.
Every tool gets the same random states (out/floating_workload.json, fixed seed, joints within
the URDF limits, base anywhere within 0.5 m, any unit quaternion, v in (-1, 1), τ in (-5, 5) N m,
in Pinocchio's layout and joint order; udk maps the joints by name). Then, per robot,
nanoseconds per call of:
- v̇ on the free-flyer root: udk's generated `acceleration` (`floating_base = true`) against
  Pinocchio's `aba` with `JointModelFreeFlyer`;
- on Solo12, v̇ with the four feet held (3D point contacts at the foot frames' origins): udk's
  generated `contact_dynamics` (v̇ and λ; the fundamental equation's fast path written out over the
  terms' zeros) and, beside it, `contact_terms` (M, τ − h, J, −J̇ v from one program) with the
  kernel (`udk::runtime::acceleration`, A = J, b = −J̇ v), against Pinocchio's
  `constraintDynamics` (RigidConstraintModel CONTACT_3D, LOCAL_WORLD_ALIGNED) and against
  its `forwardDynamics(q, v, τ, J, γ)` with J and γ computed in the timed call.
The accelerations of every udk path are checked against Pinocchio's (1e-9 relative) first;
a disagreement stops the run. Writes out/floating.md and out/floating_raw.json.
"""

import json
import os
import subprocess
import sys

import numpy as np

from compare import log, machine, table

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
# name -> (URDF path, the foot frames held in the contact comparison)
ROBOTS = {
    "solo12": (os.path.join(ROOT, "robots/example-robot-data/solo_description/robots/solo12.urdf"),
               ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]),
    "anymal_c": (os.path.join(ROOT, "robots/example-robot-data/anymal_c_simple_description/urdf/anymal.urdf"), []),
    "talos_reduced": (os.path.join(HERE, "udk-bench/package-robots/talos_reduced.urdf"), []),
}
STATES = 16
SEED = 20261122
TOLERANCE = 1e-9
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BENCH_BIN = os.path.join(TARGET, "release", "udk-bench")


def workload(pin):
    """STATES random states per robot whose file exists, in Pinocchio's layout."""
    rng = np.random.default_rng(SEED)
    robots = []
    for name, (path, feet) in ROBOTS.items():
        if not os.path.exists(path):
            log(f"{name}: {path} is missing, skipped")
            continue
        model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        lower, upper = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()
        unbounded = (np.abs(lower) > 1e10) | (np.abs(upper) > 1e10)
        lower[unbounded], upper[unbounded] = -0.5, 0.5
        states = []
        for _ in range(STATES):
            q = rng.uniform(lower, upper)
            quaternion = rng.normal(size=4)
            q[3:7] = quaternion / np.linalg.norm(quaternion)
            v = rng.uniform(-1.0, 1.0, model.nv)
            tau = rng.uniform(-5.0, 5.0, model.nv - 6)
            states.append({"q": q.tolist(), "v": v.tolist(), "tau": tau.tolist()})
        robots.append({"name": name, "urdf": path, "feet": feet,
                       "joints": list(model.names)[2:], "states": states})
    return robots


def pinocchio_cpp(robots):
    """The JSON rows of bench/out/pinocchio_floating, one per robot."""
    binary = os.path.join(OUT, "pinocchio_floating")
    lines = [str(len(robots))]
    for robot in robots:
        lines += [robot["urdf"], f"{len(robot['feet'])} {' '.join(robot['feet'])}",
                  str(len(robot["states"]))]
        for s in robot["states"]:
            lines += [" ".join(repr(x) for x in s[k]) for k in ("q", "v", "tau")]
    run = subprocess.run([binary], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         check=True)
    return [json.loads(line) for line in run.stdout.splitlines()]


def agree(name, what, ours, theirs):
    ours, theirs = np.array(ours), np.array(theirs)
    error = np.abs(ours - theirs).max() / max(1.0, np.abs(theirs).max())
    log(f"{name} {what}: largest relative difference {error:.1e}")
    if not error <= TOLERANCE:
        sys.exit(f"{name} {what}: udk and Pinocchio disagree by {error:.1e} (> {TOLERANCE:g})")


def main():
    import pinocchio as pin

    os.makedirs(OUT, exist_ok=True)
    robots = workload(pin)
    path = os.path.join(OUT, "floating_workload.json")
    with open(path, "w") as f:
        json.dump(robots, f)
    ours = json.loads(subprocess.run([BENCH_BIN, "floating", path], capture_output=True,
                                     text=True, check=True).stdout)
    theirs = pinocchio_cpp(robots) if os.path.exists(os.path.join(OUT, "pinocchio_floating")) else None
    rows, contact_rows = [], []
    for robot, udk in zip(robots, ours):
        name = robot["name"]
        cpp = theirs[robots.index(robot)] if theirs else None
        if cpp:
            agree(name, "aba", udk["accelerations"], cpp["accelerations"])
        aba = cpp["aba_ns"] if cpp else float("nan")
        n = len(robot["joints"])
        rows.append([name, n, f"{udk['acceleration_ns']:.0f}", f"{aba:.0f}",
                     f"{aba / udk['acceleration_ns']:.2f}×"])
        if "contact_ns" in udk:
            if cpp:
                agree(name, "contact dynamics", udk["contact_accelerations"],
                      cpp["contact_accelerations"])
                agree(name, "contact dynamics (kernel)", udk["contact_kernel_accelerations"],
                      cpp["contact_accelerations"])
            constraint = cpp["constraint_dynamics_ns"] if cpp else float("nan")
            forward = cpp["forward_dynamics_ns"] if cpp else float("nan")
            for label, ns in [("`contact_dynamics`", udk["contact_ns"]),
                              ("`contact_terms` + kernel", udk["contact_kernel_ns"])]:
                contact_rows.append([name, label, len(robot["feet"]), f"{ns:.0f}",
                                     f"{constraint:.0f}", f"{constraint / ns:.2f}×",
                                     f"{forward:.0f}", f"{forward / ns:.2f}×"])
    text = f"Machine: {machine()}. Best of 7 runs, ns per call.\n\n"
    text += table("Floating base: v̇ (udk `acceleration`) vs Pinocchio C++ `aba` with JointModelFreeFlyer",
                  ["robot", "joints", "udk ns", "Pinocchio ns", "Pinocchio/udk"], rows)
    text += "\n" + table("Four feet held: udk (M, h, J, J̇v, fundamental equation) vs Pinocchio C++",
                         ["robot", "udk path", "feet", "udk ns", "constraintDynamics ns", "ratio",
                          "forwardDynamics(J, γ) ns", "ratio"], contact_rows)
    with open(os.path.join(OUT, "floating.md"), "w") as f:
        f.write(text)
    with open(os.path.join(OUT, "floating_raw.json"), "w") as f:
        json.dump({"udk": ours, "pinocchio_cpp": theirs}, f)
    print(text)


if __name__ == "__main__":
    main()
