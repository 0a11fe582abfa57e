"""udk's O(n) path against Pinocchio's C++ aba on the minimal n-link chain, n = 2 … 60.

Run through bench/compare.sh (UDK_BENCH_PARTS=trees runs only this part), which builds the Rust
side with the `large` feature and bench/pinocchio_aba.cpp against the `pin` wheel. The chain is
`udk_symbolic::models::pendulum_chain_tree(n)`: unit masses and lengths, g = 9.81 m/s², joint
angles relative to the parent, the model bench/pinocchio_aba.cpp builds. `udk-bench tree` gives
its 32 states, q̈ by the generated `acceleration` (articulated-body path) and nanoseconds per
call of that and of the dense kernel on the same model's M and Q; Pinocchio's accelerations at
the same states must agree to 1e-9 relative, or the run stops. Writes out/trees.md and
out/trees_raw.json.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from compare import fmt_time, log, machine, ratio, table
from robots import BENCH_BIN, OUT

SIZES = [int(n) for n in os.environ.get("UDK_BENCH_TREE_SIZES", "2 5 10 20 30 40 60").split()]
TOLERANCE = 1e-9


def pinocchio(binary, rows):
    """Pinocchio's ns per aba call and absolute angular accelerations, by chain size."""
    lines = [str(len(rows))]
    for row in rows:
        n = row["links"]
        lines += [str(n), " ".join(["1.0"] * n), " ".join(["1.0"] * n), "9.81", str(len(row["states"]))]
        for q, qd in row["states"]:
            lines += [" ".join(map(repr, np.cumsum(q).tolist())), " ".join(map(repr, np.cumsum(qd).tolist()))]
    out = subprocess.run([binary], input="\n".join(lines) + "\n", check=True, capture_output=True, text=True)
    return {r["links"]: r for r in map(json.loads, out.stdout.splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pinocchio-cpp", default=os.path.join(OUT, "pinocchio_aba"),
                        help="bench/pinocchio_aba.cpp built against the pin wheel (compare.sh builds it)")
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    machine_at_start = machine()
    log(f"udk: tree chains {SIZES}")
    rows = json.loads(subprocess.run([BENCH_BIN, "tree", *map(str, SIZES)], check=True,
                                     capture_output=True, text=True).stdout)
    peers = pinocchio(args.pinocchio_cpp, rows) if os.path.exists(args.pinocchio_cpp) else {}
    if not peers:
        log(f"{args.pinocchio_cpp} was not built: no Pinocchio figures")
    table_rows = []
    for row in rows:
        n = row["links"]
        peer = peers.get(n)
        if peer is not None:
            # udk's q̈ are relative joint accelerations; Pinocchio's binary prints absolute ones.
            ours = np.cumsum(np.array(row["accelerations"]), axis=1)
            theirs = np.array(peer["accelerations"])
            worst = float(np.max(np.abs(ours - theirs)) / max(1.0, float(np.max(np.abs(theirs)))))
            if worst > TOLERANCE:
                sys.exit(f"n = {n}: udk and Pinocchio disagree by {worst:.2e} (relative)")
            row["pinocchio_difference"] = worst
        udk, dense = row["factored_ns"] * 1e-9, row["dense_ns"] * 1e-9
        pin_s = peer["ns"] * 1e-9 if peer else None
        table_rows.append([
            str(n), fmt_time(udk), fmt_time(dense), fmt_time(pin_s) if pin_s else "–",
            ratio(udk, pin_s) if pin_s else "–", f"{row['relative_difference']:.1e}",
            f"{row.get('pinocchio_difference', float('nan')):.1e}",
        ])
        row["pinocchio_ns"] = peer["ns"] if peer else None
        for key in ("states", "accelerations"):
            row.pop(key)
    text = "\n".join([
        f"# udk O(n) path against Pinocchio's C++ aba, tree chains ({started})",
        "",
        f"Machine at start: {machine_at_start}; at end: {machine()}.",
        "",
        table(
            "One acceleration call (best of 7 runs over 32 states)",
            ["n", "udk O(n) path", "udk dense kernel", "Pinocchio C++ aba", "udk vs Pinocchio",
             "O(n) vs dense", "vs Pinocchio"],
            table_rows,
        ),
    ])
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "trees.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(OUT, "trees_raw.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(text)


if __name__ == "__main__":
    main()
