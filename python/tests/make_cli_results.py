"""The `udk` command line's results on the papers' example models, for test_papers.py and
test_control.py.

Writes python/tests/cli_results.json: for every model of examples/models/ with an initial
state, `udk eval MODEL` at that state (q̈, Qᶜ, M, Q, A, b or ṗ, H_pp, A_p, b_p, the outputs),
with inputs u = 0.5, −0.25, 0.125, … for a model with inputs (their number from
`udk.Model.input_names`), or the command's error message where it fails; for a model with
`servo` constraints, also the servo controller's report under each law of SERVO_LAWS
(`servo`: {law: report}).
Run from the repository's root, with the binary built (`cargo build -p udk-cli`):

    python3 python/tests/make_cli_results.py target/debug/udk
"""

import json
import subprocess
import sys
from pathlib import Path

import udk

ROOT = Path(__file__).resolve().parents[2]
KEYS = {
    "lagrangian": ["acceleration", "constraint_force", "mass_matrix", "generalized_force",
                   "constraint_matrix", "constraint_rhs", "outputs"],
    "hamiltonian": ["momentum_rate", "h_p", "h_q", "h_pp", "a_p", "b_p", "outputs"],
}
# The servo laws of the command line, by name: no convergence term, eq 72 of the review paper
# (P = 0.25 s), the task-space law (K_p = 4 s⁻², K_d = 2 s⁻¹).
SERVO_LAWS = {
    "none": [],
    "gain": ["--servo-gain", "0.25"],
    "task_space": ["--servo-stiffness", "4", "--servo-damping", "2"],
}
SERVO_KEYS = ["input", "acceleration", "servo_force", "unrealized_force", "task_residual"]


def main(binary):
    results = {}
    for path in sorted((ROOT / "examples" / "models").glob("*.toml")):
        if "[initial]" not in path.read_text():
            continue
        k = len(udk.Model.from_file(path).input_names)
        u = [0.5 * (-0.5) ** i for i in range(k)]
        command = [binary, "eval", str(path.relative_to(ROOT))] + (["--u", ",".join(map(str, u))] if k else [])
        run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if run.returncode != 0:
            results[path.name] = {"error": run.stderr.strip(), "exit": run.returncode}
            continue
        report = json.loads(run.stdout)
        kind = "hamiltonian" if "momentum_rate" in report else "lagrangian"
        state = {k: report[k] for k in ("t", "q", "qd", "p", "u") if k in report}
        if kind == "hamiltonian":
            state.pop("qd")
        results[path.name] = {"kind": kind, "state": state} | {
            k: report[k] for k in KEYS[kind] if k in report
        }
        if "servo" in report:
            results[path.name]["servo"] = {
                law: {k: v for k, v in servo(command + flags).items() if k in SERVO_KEYS}
                for law, flags in SERVO_LAWS.items()
            }
    out = ROOT / "python" / "tests" / "cli_results.json"
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"{out}: {len(results)} models")


def servo(command):
    """The `servo` object of `udk eval`'s report."""
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(run.stdout)["servo"]


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "udk")
