//! Robots read from URDF files (`robots/`) by `#[lagrangian(urdf = "...")]`, against
//! Pinocchio 4.1 (`tests/fixtures/urdf_<robot>.json`, written by
//! `tests/fixtures/make_urdf_robots.py`): q̈ against `aba`, M against `crba`, the bias
//! −Q(q, q̇, τ = 0) against `rnea(q, q̇, 0)`; and against mechanics: M symmetric positive
//! definite, the energy of a passive run conserved. The closed-loop and mimic examples of
//! `examples/` are compiled here as modules, so the models tested are the ones they show.

mod a1;
mod closed_loop;
mod double_pendulum;
mod mimic;
mod model;
mod panda;
mod romeo;
mod so100;
mod ur5;

use std::path::Path;
use udk::nalgebra::{DMatrix, SMatrix, SVector};
use udk::runtime::ControlledLagrangianSystem;

/// One state of a fixture, its vectors and matrix permuted into udk's coordinate order.
pub struct State<const N: usize> {
    /// Joint positions (rad or m).
    pub q: SVector<f64, N>,
    /// Joint rates (rad/s or m/s).
    pub qd: SVector<f64, N>,
    /// Joint efforts (N m or N).
    pub tau: SVector<f64, N>,
    /// Pinocchio's `aba(q, q̇, τ)`.
    pub qdd: SVector<f64, N>,
    /// Pinocchio's `crba(q)`, symmetrized.
    pub mass_matrix: SMatrix<f64, N, N>,
    /// Pinocchio's `rnea(q, q̇, 0)`: h with M q̈ + h = τ.
    pub bias: SVector<f64, N>,
}

/// The states of `tests/fixtures/urdf_<robot>.json`, in the order of `names` (udk's
/// `COORDINATE_NAMES`); the fixture lists the same joints in Pinocchio's order.
pub fn states<const N: usize>(robot: &str, names: &[&str; N]) -> Vec<State<N>> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/urdf_{robot}.json"));
    let text = std::fs::read_to_string(&path).expect("the fixture is committed");
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("the fixture is JSON");
    let pinocchio: Vec<&str> = (fixture["coordinates"].as_array().unwrap().iter())
        .map(|name| name.as_str().unwrap())
        .collect();
    // position[i]: where udk's coordinate i sits in the fixture.
    let position: Vec<usize> = (names.iter())
        .map(|name| {
            (pinocchio.iter().position(|p| p == name))
                .unwrap_or_else(|| panic!("{name} is not among Pinocchio's joints {pinocchio:?}"))
        })
        .collect();
    assert_eq!(pinocchio.len(), N, "Pinocchio's joints: {pinocchio:?}");
    let numbers = |value: &serde_json::Value| -> Vec<f64> {
        (value.as_array().unwrap().iter())
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let vector = |value: &serde_json::Value| {
        let values = numbers(value);
        SVector::<f64, N>::from_fn(|i, _| values[position[i]])
    };
    (fixture["states"].as_array().unwrap().iter())
        .map(|state| {
            let rows: Vec<Vec<f64>> = (state["mass_matrix"].as_array().unwrap().iter())
                .map(numbers)
                .collect();
            State {
                q: vector(&state["q"]),
                qd: vector(&state["qd"]),
                tau: vector(&state["tau"]),
                qdd: vector(&state["qdd"]),
                mass_matrix: SMatrix::from_fn(|i, j| rows[position[i]][position[j]]),
                bias: vector(&state["bias"]),
            }
        })
        .collect()
}

/// Asserts `actual` equals `expected` to `tolerance`, relative to the larger of 1 and the
/// largest expected entry (in magnitude).
#[track_caller]
pub fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64, what: &str) {
    assert_eq!(actual.len(), expected.len());
    let scale = expected.iter().fold(1.0f64, |s, x| s.max(x.abs()));
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= tolerance * scale,
            "{what}, entry {i}: {a:e}, expected {e:e} (difference {:e}, scale {scale:e})\n  \
             actual:   {actual:?}\n  expected: {expected:?}",
            (a - e).abs()
        );
    }
}

/// Checks `robot` at every state of `tests/fixtures/urdf_<fixture>.json`: q̈ against `aba` to
/// 1e-10, M against `crba` and the bias −Q(q, q̇, 0) against `rnea(q, q̇, 0)` to 1e-12, all
/// relative to max(1, largest entry). Returns the number of states checked.
pub fn assert_matches_pinocchio<S, const N: usize>(
    robot: &S,
    names: &[&str; N],
    fixture: &str,
) -> usize
where
    S: ControlledLagrangianSystem<N, 0, N>,
{
    let states = states(fixture, names);
    for (k, s) in states.iter().enumerate() {
        let qdd = robot.acceleration(&s.q, &s.qd, &s.tau, 0.0).unwrap();
        assert_close(
            qdd.as_slice(),
            s.qdd.as_slice(),
            1e-10,
            &format!("{fixture} state {k}: q̈"),
        );
        let terms = robot.terms(&s.q, &s.qd, &SVector::zeros(), 0.0);
        assert_close(
            terms.mass_matrix.as_slice(),
            s.mass_matrix.as_slice(),
            1e-12,
            &format!("{fixture} state {k}: M"),
        );
        assert_close(
            (-terms.generalized_force).as_slice(),
            s.bias.as_slice(),
            1e-12,
            &format!("{fixture} state {k}: bias"),
        );
    }
    states.len()
}

/// Asserts M(q) is exactly zero between joints on different branches of a tree, that is
/// wherever `on_one_path(i, j)` is false (Featherstone 2008, §6.2: M[i, j] = S_iᵀ I^c_j S_j
/// when joint i is an ancestor of joint j, and 0 when neither is the other's ancestor).
#[track_caller]
pub fn assert_zero_across_branches<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    on_one_path: impl Fn(usize, usize) -> bool,
) {
    for i in 0..N {
        for j in 0..N {
            if !on_one_path(i, j) {
                assert_eq!(mass[(i, j)], 0.0, "M[{i}, {j}]");
            }
        }
    }
}

/// Asserts M(q) is symmetric (to 1e-15 of its largest entry) and positive definite, with its
/// smallest eigenvalue above `floor`.
#[track_caller]
pub fn assert_symmetric_positive_definite<const N: usize>(mass: &SMatrix<f64, N, N>, floor: f64) {
    let scale = mass.amax();
    assert!(
        (mass - mass.transpose()).amax() <= 1e-15 * scale,
        "M is not symmetric: {mass}"
    );
    let eigenvalues = DMatrix::from_column_slice(N, N, mass.as_slice()).symmetric_eigenvalues();
    assert!(eigenvalues.min() > floor, "eigenvalues {eigenvalues}");
}
