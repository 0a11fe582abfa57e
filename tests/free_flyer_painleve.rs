//! Painlevé's paradox on a real robot. Solo12 dropped with τ = 0
//! (tests/fixtures/solo12_landing.toml, no `[joint_pd]`) reached this state when the contact
//! set took sliding friction from three fixed-point passes, before the exact solve (the run
//! then ended in `SimulationError::Zeno` at t = 0.2587 s; guide/floating_base.md). Just after
//! its front right foot touches down again, the right hind foot, sliding sideways at 1.76 m/s
//! with μ = 1.5, is in Painlevé's paradox. Solved exactly (Newton–Euler with the contacts'
//! forces as unknowns, the sliding friction −μλₙŝ a column of the linear system), sliding
//! makes it pull and opening makes it sink, whatever the two other feet on the ground do; only
//! sticking, which a sliding foot cannot enter without an impulse, is consistent. A run that
//! starts there is refused with `Error::IndeterminateFriction` at that foot: a start cannot
//! take the tangential impulse by which a run resolves the paradox.

use nalgebra::{DMatrix, DVector};
use std::path::Path;
use udk::model::{FreeFlyerModel, ModelError};
use udk::runtime::simulate::SimulationOptions;

/// q and v just after the front right foot's touchdown at t = 0.258678846177564 s, as the run
/// of `FreeFlyerModel::simulate` (every 0.01 s, default tolerances) logs it.
const Q: [f64; 19] = [
    -0.002779864263632944,
    -0.0006253713381051757,
    -0.040546011489441355,
    0.01747465753291294,
    0.01854450090208972,
    -0.00520109503723229,
    0.9996617860260609,
    1.3745233308748108,
    1.3697372939979362,
    -2.5954913344285857,
    -1.4364659200437067,
    1.3848278876376878,
    -2.856018460359181,
    1.1813747975239572,
    -1.2289857565912403,
    2.670814800652847,
    -0.912903326114053,
    -1.2871860142504825,
    3.0457138843070397,
];
const V: [f64; 18] = [
    0.06787145674295268,
    -0.2289616389334316,
    -2.5575298367280315,
    -1.2352730458325154,
    0.354786435607922,
    -0.134495234718492,
    34.04958341777176,
    -4.687249725719916,
    10.855925832303818,
    -52.44893853090583,
    -12.318177677589713,
    15.218344480123363,
    34.34597194954688,
    6.381124290565389,
    -7.517433702177901,
    -41.467954163482666,
    12.190401277308007,
    2.4300947615212523,
];

const MU: f64 = 1.5;
const NV: usize = 18;

/// A contact mode.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Open,
    Stick,
    Slide,
}

/// The feet's kinematics at (Q, V): per foot, its world position, the rows of J (x, y, z) and
/// J̇ v.
struct Feet {
    position: Vec<[f64; 3]>,
    rows: Vec<[DVector<f64>; 3]>,
    bias: Vec<[f64; 3]>,
}

impl Feet {
    fn speed(&self, foot: usize, axis: usize) -> f64 {
        self.rows[foot][axis].dot(&DVector::from_column_slice(&V))
    }
}

/// For the feet on the ground (`feet`) in `modes`: each open foot's z̈ and each closed foot's
/// (λₙ, |λₜ|), from M v̇ = −h + Σ Wᵢ λᵢ with the closed feet's rows (z̈ = 0, and ẍ = ÿ = 0 when
/// sticking) held; a sliding foot's force is λₙ (e_z − μ ŝ) with ŝ its slip direction.
fn solve(
    model: &FreeFlyerModel,
    feet: &Feet,
    touching: &[usize],
    modes: &[Mode],
) -> Vec<(Mode, f64, f64)> {
    let mass = DMatrix::from_row_slice(NV, NV, &model.mass_matrix(&Q).unwrap());
    let h = DVector::from_vec(model.inverse_dynamics(&Q, &V, &[0.0; NV]).unwrap());
    let mut columns = Vec::new();
    let mut rows = Vec::new();
    for (&k, mode) in touching.iter().zip(modes) {
        let row = |axis: usize| (feet.rows[k][axis].clone(), -feet.bias[k][axis]);
        match mode {
            Mode::Open => {}
            Mode::Stick => {
                for axis in [2, 0, 1] {
                    columns.push(feet.rows[k][axis].clone());
                    rows.push(row(axis));
                }
            }
            Mode::Slide => {
                let slip = [feet.speed(k, 0), feet.speed(k, 1)];
                let norm = slip[0].hypot(slip[1]);
                let friction =
                    &feet.rows[k][0] * (slip[0] / norm) + &feet.rows[k][1] * (slip[1] / norm);
                columns.push(&feet.rows[k][2] - friction * MU);
                rows.push(row(2));
            }
        }
    }
    let p = columns.len();
    let mut kkt = DMatrix::zeros(NV + p, NV + p);
    kkt.view_mut((0, 0), (NV, NV)).copy_from(&mass);
    let mut rhs = DVector::zeros(NV + p);
    rhs.rows_mut(0, NV).copy_from(&(-&h));
    for (i, (column, (row, b))) in columns.iter().zip(&rows).enumerate() {
        kkt.view_mut((0, NV + i), (NV, 1)).copy_from(&(-column));
        kkt.view_mut((NV + i, 0), (1, NV))
            .copy_from(&row.transpose());
        rhs[NV + i] = *b;
    }
    let solution = kkt.lu().solve(&rhs).expect("a regular system");
    let (a, lambda) = (solution.rows(0, NV), solution.rows(NV, p));
    let mut next = 0;
    (touching.iter().zip(modes))
        .map(|(&k, &mode)| match mode {
            Mode::Open => (mode, feet.rows[k][2].dot(&a) + feet.bias[k][2], 0.0),
            Mode::Stick => {
                next += 3;
                let l = &lambda.as_slice()[next - 3..next];
                (mode, l[0], l[1].hypot(l[2]))
            }
            Mode::Slide => {
                next += 1;
                (mode, lambda[next - 1], MU * lambda[next - 1].abs())
            }
        })
        .collect()
}

#[test]
fn the_folded_solo12_meets_painleves_paradox_at_its_right_hind_foot() {
    let model = FreeFlyerModel::from_file(Path::new("tests/fixtures/solo12_landing.toml")).unwrap();
    assert_eq!(model.contact_names(), ["FL", "FR", "HL", "HR"]);
    let size = 6 + 3 * NV;
    let points = model.points(&Q, &V).unwrap();
    let point = |k: usize| &points[k * size..(k + 1) * size];
    let feet = Feet {
        position: (0..4)
            .map(|k| [point(k)[0], point(k)[1], point(k)[2]])
            .collect(),
        rows: (0..4)
            .map(|k| {
                [0, 1, 2]
                    .map(|r| DVector::from_column_slice(&point(k)[3 + r * NV..3 + (r + 1) * NV]))
            })
            .collect(),
        bias: (0..4)
            .map(|k| [0, 1, 2].map(|r| point(k)[3 + 3 * NV + r]))
            .collect(),
    };
    // FL is 0.28 mm up and rising; FR, HL and HR touch the ground and slide.
    assert!(feet.position[0][2] > 2e-4 && feet.speed(0, 2) > 0.09);
    let touching = [1, 2, 3];
    for &k in &touching {
        assert!(feet.position[k][2].abs() < 1e-12 && feet.speed(k, 2).abs() < 1e-12);
        assert!(
            feet.speed(k, 0).hypot(feet.speed(k, 1)) > 0.2,
            "foot {k} slides"
        );
    }
    assert!(
        (feet.speed(3, 1) - 1.755).abs() < 1e-3,
        "HR slides sideways at 1.76 m/s"
    );
    // Every mode of FR and HL (open or sliding, as they slip), with HR open or sliding: HR
    // sinks when open and pulls when sliding.
    for fr in [Mode::Open, Mode::Slide] {
        for hl in [Mode::Open, Mode::Slide] {
            let open = solve(&model, &feet, &touching, &[fr, hl, Mode::Open]);
            assert!(open[2].1 < -100.0, "HR open: z̈ = {}", open[2].1);
            let sliding = solve(&model, &feet, &touching, &[fr, hl, Mode::Slide]);
            assert!(sliding[2].1 < -9.0, "HR sliding: λₙ = {}", sliding[2].1);
        }
    }
    // Sticking at HR (after a tangential impulse) is consistent, with FR and HL sliding.
    let stuck = solve(
        &model,
        &feet,
        &touching,
        &[Mode::Slide, Mode::Slide, Mode::Stick],
    );
    for (mode, normal, tangential) in &stuck {
        assert!(
            *normal > 0.0 && *tangential <= MU * normal,
            "{mode:?}: {normal}, {tangential}"
        );
    }
    assert!(
        (stuck[2].1 - 60.3).abs() < 0.5,
        "HR sticking: λₙ = {}",
        stuck[2].1
    );
    // A run from this state: the contact set finds HR in the paradox as it settles the modes.
    let t = 0.258678846177564;
    let options = SimulationOptions::every(0.01);
    match model.simulate(&Q, &V, &[0.0; 12], (t, t + 0.01), &options) {
        Err(ModelError::Simulation { message, time, .. }) => {
            assert_eq!(time, Some(t));
            assert!(
                message.contains("Coulomb friction at HR is indeterminate (Painlevé's paradox)"),
                "{message}"
            );
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a start in Painlevé's paradox ran"),
    }
}
