//! The impact kernel (`udk::runtime::impact`): against Pinocchio's `impulseDynamics` on the A1
//! quadruped's four feet (tests/fixtures/impacts_a1.json), and its properties: Ĵ q̇⁺ = b̂,
//! P = M Δq̇ = Ĵᵀλ, no gain of kinetic energy for e ≤ 1, singular M, redundant and
//! contradictory contacts.

use proptest::prelude::*;
use std::path::Path;
use udk::nalgebra::{dmatrix, dvector, DMatrix, DVector};
use udk::runtime::{impact, Error, Options};

/// The JSON fixture `tests/fixtures/<name>.json`.
fn fixture(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}.json"));
    let text = std::fs::read_to_string(&path).expect("the fixture is committed");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

fn vector(value: &serde_json::Value) -> DVector<f64> {
    let numbers = value.as_array().expect("an array").iter();
    DVector::from_iterator(
        value.as_array().unwrap().len(),
        numbers.map(|x| x.as_f64().expect("a number")),
    )
}

fn matrix(value: &serde_json::Value) -> DMatrix<f64> {
    let rows: Vec<DVector<f64>> = value.as_array().unwrap().iter().map(vector).collect();
    DMatrix::from_fn(rows.len(), rows[0].len(), |i, j| rows[i][j])
}

/// The largest |aᵢ − bᵢ| relative to max(1, max |bᵢ|).
fn relative_error(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    (a - b).amax() / b.amax().max(1.0)
}

#[test]
fn a1_feet_impacts_match_pinocchio_impulse_dynamics() {
    let data = fixture("impacts_a1");
    let cases = data["states"].as_object().unwrap();
    assert_eq!(cases.len(), 2);
    for (case, states) in cases {
        for (k, state) in states.as_array().unwrap().iter().enumerate() {
            let mass_matrix = matrix(&state["mass_matrix"]);
            let jacobian = matrix(&state["jacobian"]);
            let e = state["restitution"].as_f64().unwrap();
            let before = vector(&state["v_before"]);
            let restitution = DVector::from_element(jacobian.nrows(), e);
            let jump = impact(
                &mass_matrix,
                &jacobian,
                &restitution,
                &before,
                &Options::default(),
            )
            .unwrap();
            let (velocity, impulse) = (
                relative_error(&jump.velocity, &vector(&state["v_after"])),
                relative_error(&jump.impulse, &vector(&state["impulse"])),
            );
            eprintln!("{case} {k} (e = {e}): v⁺ error {velocity:.1e}, λ error {impulse:.1e}");
            assert!(velocity < 1e-10, "{case} {k}: v⁺ off by {velocity:e}");
            assert!(impulse < 1e-10, "{case} {k}: λ off by {impulse:e}");
        }
    }
}

/// The kinetic energy ½ vᵀ M v.
fn kinetic(mass_matrix: &DMatrix<f64>, v: &DVector<f64>) -> f64 {
    0.5 * v.dot(&(mass_matrix * v))
}

/// Checks Ĵ q̇⁺ = −diag(e) Ĵ q̇⁻ and P = M Δq̇ = Ĵᵀλ; returns the kinetic energy before and
/// after.
fn impact_laws(
    m: &DMatrix<f64>,
    j: &DMatrix<f64>,
    e: &DVector<f64>,
    v: &DVector<f64>,
) -> (f64, f64) {
    let jump = impact(m, j, e, v, &Options::default()).unwrap();
    let scale = (j * v).amax().max(v.amax()).max(1.0);
    let target = -(j * v).component_mul(e);
    assert!(
        (j * &jump.velocity - target).amax() < 1e-9 * scale,
        "Ĵ q̇⁺ ≠ b̂"
    );
    let momentum = m * (&jump.velocity - v);
    let impulse_scale = jump.generalized_impulse.amax().max(1.0);
    assert!(
        (&momentum - &jump.generalized_impulse).amax() < 1e-9 * impulse_scale,
        "M Δq̇ ≠ P"
    );
    let from_rows = j.transpose() * &jump.impulse;
    assert!(
        (from_rows - &jump.generalized_impulse).amax() < 1e-9 * impulse_scale,
        "Ĵᵀλ ≠ P"
    );
    (kinetic(m, v), kinetic(m, &jump.velocity))
}

/// As [`impact_laws`], with impacting rows J sharing one restitution e ≤ 1 and persistent rows
/// A (e = 0) that q̇⁻ satisfies (q̇⁻ is projected onto A q̇ = 0 first): then the kinetic energy
/// does not grow.
fn assert_dissipative(
    m: &DMatrix<f64>,
    j: &DMatrix<f64>,
    a: &DMatrix<f64>,
    e: f64,
    v: &DVector<f64>,
) {
    let v = v - a.clone().pseudo_inverse(1e-12).unwrap() * (a * v);
    let stacked = DMatrix::from_fn(j.nrows() + a.nrows(), v.len(), |i, k| match i < j.nrows() {
        true => j[(i, k)],
        false => a[(i - j.nrows(), k)],
    });
    let restitution = DVector::from_fn(stacked.nrows(), |i, _| if i < j.nrows() { e } else { 0.0 });
    let (before, after) = impact_laws(m, &stacked, &restitution, &v);
    assert!(
        after <= before * (1.0 + 1e-12) + 1e-12,
        "energy grew: {before} → {after}"
    );
}

/// A matrix n × cols of entries in (−1, 1).
fn entries(n: usize, cols: usize) -> impl Strategy<Value = DMatrix<f64>> {
    prop::collection::vec(-1.0..1.0f64, n * cols).prop_map(move |x| DMatrix::from_vec(n, cols, x))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn impacts_keep_the_laws_with_positive_definite_mass(
        (l, j, a, e, v) in (3usize..7).prop_flat_map(|n| (
            entries(n, n),
            entries(2, n),
            entries(1, n),
            0.0..=1.0f64,
            prop::collection::vec(-3.0..3.0f64, n),
        )),
    ) {
        let n = l.nrows();
        let mass = &l * l.transpose() + DMatrix::identity(n, n) * 0.1;
        assert_dissipative(&mass, &j, &a, e, &DVector::from_vec(v));
    }

    #[test]
    fn impacts_keep_the_laws_with_a_singular_mass_matrix(
        (l, j, a, e, v) in (3usize..7).prop_flat_map(|n| (
            entries(n, n - 1),
            entries(1, n),
            entries(1, n),
            0.0..=1.0f64,
            prop::collection::vec(-3.0..3.0f64, n),
        )),
    ) {
        // M = L Lᵀ has rank n − 1; [M; Ĵ] has full column rank for almost every Ĵ.
        let mass = &l * l.transpose();
        assert_dissipative(&mass, &j, &a, e, &DVector::from_vec(v));
    }

    #[test]
    fn impacts_with_a_restitution_per_row_reach_their_targets(
        (l, j, e, v) in (2usize..7, 1usize..5).prop_flat_map(|(n, m)| (
            entries(n, n),
            entries(m.min(n), n),
            prop::collection::vec(0.0..=1.0f64, m.min(n)),
            prop::collection::vec(-3.0..3.0f64, n),
        )),
    ) {
        // Different restitutions on coupled rows may add kinetic energy (the known energetic
        // inconsistency of Newton's law for simultaneous impacts), so only the laws are checked.
        let n = l.nrows();
        let mass = &l * l.transpose() + DMatrix::identity(n, n) * 0.1;
        impact_laws(&mass, &j, &DVector::from_vec(e), &DVector::from_vec(v));
    }
}

#[test]
fn a_contact_given_twice_shares_its_impulse() {
    // Two equal masses, the first moving at 1 m/s into the second; the contact row twice.
    let mass = dmatrix![2.0, 0.0; 0.0, 2.0];
    let (once, twice) = (dmatrix![-1.0, 1.0], dmatrix![-1.0, 1.0; -1.0, 1.0]);
    let v = dvector![1.0, 0.0];
    let options = Options::default();
    let single = impact(&mass, &once, &dvector![0.5], &v, &options).unwrap();
    let double = impact(&mass, &twice, &dvector![0.5, 0.5], &v, &options).unwrap();
    // e = 0.5: closing speed −1 → 0.5, each mass gets m·0.75 = 1.5 N·s.
    assert!((&single.velocity - dvector![0.25, 0.75]).amax() < 1e-14);
    assert!((single.impulse[0] - 1.5).abs() < 1e-14);
    assert!((&double.velocity - &single.velocity).amax() < 1e-14);
    assert!((&double.impulse - dvector![0.75, 0.75]).amax() < 1e-14);
}

#[test]
fn contradictory_contacts_are_an_error() {
    // The same contact with two restitutions: Ĵ q̇⁺ = b̂ has no solution.
    let mass = dmatrix![2.0, 0.0; 0.0, 2.0];
    let twice = dmatrix![-1.0, 1.0; -1.0, 1.0];
    let result = impact(
        &mass,
        &twice,
        &dvector![0.0, 1.0],
        &dvector![1.0, 0.0],
        &Options::default(),
    );
    assert!(
        matches!(result, Err(Error::InconsistentConstraints { .. })),
        "{result:?}"
    );
}

#[test]
fn bad_impact_input_is_refused() {
    let mass = dmatrix![2.0, 0.0; 0.0, 2.0];
    let contact = dmatrix![-1.0, 1.0];
    let v = dvector![1.0, 0.0];
    let options = Options::default();
    let negative = impact(&mass, &contact, &dvector![-0.1], &v, &options);
    assert!(
        matches!(negative, Err(Error::InvalidOption { .. })),
        "{negative:?}"
    );
    let nan = impact(
        &mass,
        &contact,
        &dvector![0.5],
        &dvector![f64::NAN, 0.0],
        &options,
    );
    assert!(matches!(nan, Err(Error::NonFinite { .. })), "{nan:?}");
    let short = impact(&mass, &contact, &dvector![0.5, 0.5], &v, &options);
    assert!(
        matches!(short, Err(Error::DimensionMismatch { .. })),
        "{short:?}"
    );
    // A massless coordinate that no contact holds: rank [M; Ĵ] < n.
    let massless = dmatrix![2.0, 0.0; 0.0, 0.0];
    let free = impact(&massless, &dmatrix![1.0, 0.0], &dvector![0.5], &v, &options);
    assert!(
        matches!(free, Err(Error::NonUniqueAcceleration { .. })),
        "{free:?}"
    );
}
