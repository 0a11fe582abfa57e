#!/usr/bin/env bash
# udk against SymPy, PyDy and Pinocchio on the n-link pendulum chain (n = 2, 5, 10, 20,
# Cartesian and minimal coordinates), in one run on one machine. Prints three tables
# (derivation time, time per acceleration call, DOP853 throughput) with udk/peer ratios, and
# writes them to bench/out/tables.md (raw figures: bench/out/raw.json).
# Then udk against Pinocchio (C++ and Python) on sixteen URDF robots of example-robot-data
# (n = 6 … 44, axis-aligned and generic joint frames): acceleration vs aba, M vs crba, bias
# vs rnea, derivation and build time (bench/robots.py; bench/out/robots.md).
# Then the tree chains (n = 2 … 60) on the O(n) articulated-body path against Pinocchio's C++ aba
# (bench/trees.py; bench/out/trees.md).
# Then the compass-gait walker, 100 steps on its limit cycle, `udk simulate` against SciPy's
# solve_ivp with events at the same tolerance (bench/compass_gait.py; bench/out/compass_gait.md).
# Then the floating-base robots Solo12, ANYmal C and Talos reduced: v̇ vs Pinocchio's C++ aba
# with JointModelFreeFlyer, and Solo12 with its four feet held vs constraintDynamics and
# forwardDynamics (bench/floating.py; bench/out/floating.md).
# UDK_BENCH_PARTS="robots" (or "chains", "trees", "walker", "floating", or several,
# space-separated) runs
# those parts only.
#
# Needs python3 (3.11) with venv, network access to PyPI, a Rust toolchain, g++. Takes about
# half an hour on 2 cores. Not part of CI. Arguments are passed to compare.py (--help).
set -euo pipefail
BENCH="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$BENCH")"
VENV="$BENCH/.venv"
OUT="$BENCH/out"
mkdir -p "$OUT"

echo "== Python peers in $VENV" >&2
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
grep -v '^\s*#' "$BENCH/requirements.txt" | grep -v '^\s*$' | while read -r requirement; do
    "$VENV/bin/pip" install -q "$requirement" || echo "pip install $requirement FAILED: its figures will be missing" >&2
done

PARTS="${UDK_BENCH_PARTS:-chains robots trees walker floating}"
PREFIX="$(ls -d "$VENV"/lib/python3*/site-packages/cmeel.prefix 2>/dev/null | head -n 1 || true)"
FEATURE_LIST=()
case "$PARTS" in *chains*|*trees*) FEATURE_LIST+=(large) ;; esac
case "$PARTS" in *robots*) FEATURE_LIST+=(robots) ;; esac
case "$PARTS" in *floating*) FEATURE_LIST+=(floating) ;; esac
case "$PARTS" in *robots*|*floating*)
    # Talos (full for the robots part, reduced for the floating part) is read from the
    # installed example-robot-data package, never committed (its licence forbids it); the
    # other robots are vendored in robots/.
    PACKAGE="$PREFIX/share/example-robot-data/robots"
    COPIES="$BENCH/udk-bench/package-robots"
    if [ -n "$PREFIX" ] && [ -d "$PACKAGE" ]; then
        mkdir -p "$COPIES"
        cp "$PACKAGE/talos_data/robots/talos_full_v2.urdf" \
            "$PACKAGE/talos_data/robots/talos_reduced.urdf" "$COPIES/"
        FEATURE_LIST+=(package-robots)
    else
        echo "no example-robot-data in the venv: no Talos" >&2
    fi
esac
FEATURES="$(IFS=,; echo "${FEATURE_LIST[*]}")"
case "$PARTS" in *chains*|*robots*|*trees*|*floating*)
    echo "== udk (Rust): cargo build --release -p udk-bench --features $FEATURES" >&2
    (cd "$ROOT" && cargo build --release -p udk-bench --features "$FEATURES")
esac
case "$PARTS" in *walker*)
    echo "== udk (Rust): cargo build --release -p udk-cli, and udk-bench's walker" >&2
    (cd "$ROOT" && cargo build --release -p udk-cli && cargo build --release -p udk-bench --bin walker)
esac

echo "== Pinocchio in C++ against the pin wheel's headers and libraries" >&2
rm -f "$OUT/pinocchio_aba" "$OUT/pinocchio_urdf" "$OUT/pinocchio_floating"
if [ -n "$PREFIX" ] && [ -d "$PREFIX/include/pinocchio" ] && [ -d "$PREFIX/include/eigen3" ]; then
    # The definitions are those of the wheel's pinocchio CMake target; -O3 as the Rust side (no
    # -march=native on either side). The algorithms are header-only; the URDF reader is the
    # wheel's libpinocchio_parsers with urdfdom (headers from cmeel-urdfdom-headers).
    CXXFLAGS=(-O3 -DNDEBUG -std=c++17
        -DBOOST_MPL_LIMIT_LIST_SIZE=30 -DBOOST_MPL_LIMIT_VECTOR_SIZE=30
        -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_FUSION_INVOKE_MAX_ARITY=12
        -I"$PREFIX/include" -I"$PREFIX/include/eigen3")
    case "$PARTS" in *chains*|*trees*)
        g++ "${CXXFLAGS[@]}" "$BENCH/pinocchio_aba.cpp" -o "$OUT/pinocchio_aba" \
            || echo "building pinocchio_aba.cpp FAILED: no Pinocchio C++ figures for the chains" >&2
    esac
    case "$PARTS" in *robots*)
        g++ "${CXXFLAGS[@]}" -I"$PREFIX/include/urdfdom_headers" -I"$PREFIX/include/urdfdom" \
            "$BENCH/pinocchio_urdf.cpp" -o "$OUT/pinocchio_urdf" \
            -L"$PREFIX/lib" -Wl,-rpath,"$PREFIX/lib" \
            -lpinocchio_parsers -lpinocchio_default -lurdfdom_model -lconsole_bridge -ltinyxml2 \
            || echo "building pinocchio_urdf.cpp FAILED: no Pinocchio C++ figures for the robots" >&2
    esac
    case "$PARTS" in *floating*)
        g++ "${CXXFLAGS[@]}" -I"$PREFIX/include/urdfdom_headers" -I"$PREFIX/include/urdfdom" \
            "$BENCH/pinocchio_floating.cpp" -o "$OUT/pinocchio_floating" \
            -L"$PREFIX/lib" -Wl,-rpath,"$PREFIX/lib" \
            -lpinocchio_parsers -lpinocchio_default -lurdfdom_model -lconsole_bridge -ltinyxml2 \
            || echo "building pinocchio_floating.cpp FAILED: no Pinocchio C++ figures for the floating base" >&2
    esac
else
    echo "no Pinocchio/Eigen headers in the venv: no Pinocchio C++ figures" >&2
fi

cd "$BENCH"
case "$PARTS" in *chains*)
    echo "== running the chain comparison" >&2
    "$VENV/bin/python" "$BENCH/compare.py" "$@"
esac
case "$PARTS" in *robots*)
    echo "== running the robot comparison" >&2
    "$VENV/bin/python" "$BENCH/robots.py"
esac
case "$PARTS" in *trees*)
    echo "== running the tree-chain comparison (O(n) path)" >&2
    "$VENV/bin/python" "$BENCH/trees.py"
esac
case "$PARTS" in *walker*)
    echo "== running the compass-gait comparison" >&2
    "$VENV/bin/python" "$BENCH/compass_gait.py" --udk "${CARGO_TARGET_DIR:-$ROOT/target}/release/udk" \
        --walker "${CARGO_TARGET_DIR:-$ROOT/target}/release/walker"
esac
case "$PARTS" in *floating*)
    echo "== running the floating-base comparison" >&2
    "$VENV/bin/python" "$BENCH/floating.py"
esac
