//! `floating_base = true` in model files: `udk::model::FreeFlyerModel::from_file` on Solo12
//! (tests/fixtures/solo12_floating.toml) against Pinocchio 4.1 with `JointModelFreeFlyer`
//! (tests/fixtures/free_flyer.json, from tests/fixtures/make_free_flyer.py), its link points and
//! its simulation against the macro's, the non-unit start refused, and a URDF that already has a
//! floating joint refused by every run-time front end.

use std::path::Path;
use udk::model::{FreeFlyerModel, ModelError};
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_free_flyer, SimulationOptions};

mod fixture_support;
use fixture_support::{assert_close, numbers, JointOrder};

mod solo12_support;
use solo12_support::{Solo12, POSTURE};

const FILE: &str = "tests/fixtures/solo12_floating.toml";

fn solo12() -> FreeFlyerModel {
    FreeFlyerModel::from_file(Path::new(FILE)).expect("the model file")
}

#[test]
fn the_model_file_matches_pinocchio() {
    let model = solo12();
    assert_eq!((model.nq(), model.nv()), (19, 18));
    assert_eq!(model.name(), "Solo12");
    assert_eq!(model.coordinate_names()[..], Solo12::COORDINATE_NAMES[..]);
    assert_eq!(model.velocity_names()[..], Solo12::VELOCITY_NAMES[..]);
    assert_eq!(model.point_names(), ["FL", "FR", "HL", "HR"]);
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/free_flyer.json")).expect("JSON");
    let entry = &fixture["robots"]["solo12"];
    let order = JointOrder::new(&model.coordinate_names()[7..], &entry["joints"]);
    let states = entry["states"].as_array().expect("states");
    assert!(states.len() >= 2);
    for state in states {
        let q = order.reorder(&numbers(&state["q"]), 7);
        let v = order.reorder(&numbers(&state["v"]), 6);
        let a = order.reorder(&numbers(&state["a"]), 6);
        let tau = order.reorder(&numbers(&state["tau"]), 0);
        let aba = model.acceleration(&q, &v, &tau).expect("aba");
        assert_close(
            &aba,
            &order.reorder(&numbers(&state["aba"]), 6),
            1e-10,
            "aba",
        );
        let rnea = model.inverse_dynamics(&q, &v, &a).expect("rnea");
        assert_close(
            &rnea,
            &order.reorder(&numbers(&state["rnea"]), 6),
            1e-10,
            "rnea",
        );
        let expected = order.matrix(&state["crba"]);
        assert_close(
            &model.mass_matrix(&q).expect("crba"),
            &expected,
            1e-10,
            "crba",
        );
        // The link points, against the macro's (which tests/free_flyer_contacts.rs checks
        // against Pinocchio's frame Jacobians).
        let (qs, vs) = (
            SVector::<f64, 19>::from_column_slice(&q),
            SVector::<f64, 18>::from_column_slice(&v),
        );
        let expected: Vec<f64> = (Solo12.points(&qs, &vs).expect("points").iter())
            .flat_map(|p| {
                let mut out = vec![0.0; 6 + 3 * 18];
                p.write_into(&mut out).expect("a point");
                out
            })
            .collect();
        assert_close(
            &model.points(&q, &v).expect("points"),
            &expected,
            1e-12,
            "points",
        );
    }
}

#[test]
fn the_model_file_simulates_as_the_macro_does_and_keeps_a_unit_quaternion() {
    let model = solo12();
    let mut q0 = vec![0.02, -0.01, 0.3, 0.1, -0.2, 0.05, 0.0];
    let norm = (q0[3..7].iter().map(|x| x * x).sum::<f64>() + 0.9).sqrt();
    q0[6] = 0.9f64.sqrt();
    q0[3..7].iter_mut().for_each(|x| *x /= norm);
    q0.extend(POSTURE);
    let v0: Vec<f64> = (0..18).map(|i| 0.3 * ((i as f64) * 0.7).sin()).collect();
    let tau: Vec<f64> = (0..12).map(|i| 0.05 * ((i as f64) * 1.3).cos()).collect();
    let options = SimulationOptions {
        rtol: 1e-11,
        atol: 1e-12,
        ..SimulationOptions::every(0.05)
    };
    let motion = (model.simulate(&q0, &v0, &tau, (0.0, 0.3), &options)).expect("a run");
    let efforts = |_: f64, _: &SVector<f64, 19>, _: &[f64], out: &mut [f64]| {
        out.copy_from_slice(&tau);
    };
    let q0s = SVector::<f64, 19>::from_column_slice(&q0);
    let run = simulate_free_flyer(&Solo12, &efforts, &q0s, &v0, 0.0, 0.3, &options).expect("a run");
    assert_eq!(motion.t.len(), run.samples.len());
    assert_eq!(motion.outputs.columns[..3], ["FL.x", "FL.y", "FL.z"]);
    for (j, sample) in run.samples.iter().enumerate() {
        let q: Vec<f64> = motion.q.column(j).iter().copied().collect();
        let v: Vec<f64> = motion.v.column(j).iter().copied().collect();
        assert_close(&q, sample.q.as_slice(), 1e-12, "q");
        assert_close(&v, &sample.v.as_slice()[..18], 1e-12, "v");
        assert!((q[3..7].iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs() < 1e-15);
        // The output is the front-left foot's position at the sample.
        let vs = SVector::<f64, 18>::from_column_slice(&v);
        let foot = Solo12.points(&sample.q, &vs).expect("points")[0].position;
        let row = &motion.outputs.values[j * 12..j * 12 + 3];
        assert_close(row, foot.as_slice(), 1e-12, "FL");
    }
    // The energy changes only by the work of the joint torques: with none it is conserved.
    let free = (model.simulate(&q0, &v0, &[0.0; 12], (0.0, 0.3), &options)).expect("a run");
    assert!(free.energy_drift() < 1e-9, "{}", free.energy_drift());
}

#[test]
fn a_non_unit_start_and_wrong_lengths_are_refused() {
    let model = solo12();
    let mut q0 = vec![0.0; 19];
    q0[2] = 0.3;
    q0[6] = 1.01;
    let options = SimulationOptions::every(0.1);
    let refused = model.simulate(&q0, &[0.0; 18], &[0.0; 12], (0.0, 0.2), &options);
    assert!(
        matches!(&refused, Err(ModelError::Simulation { message, .. }) if message.contains("non-unit start is refused")),
        "{refused:?}"
    );
    q0[6] = 1.0;
    let short = model.simulate(&q0, &[0.0; 17], &[0.0; 12], (0.0, 0.2), &options);
    assert!(matches!(
        short,
        Err(ModelError::Length {
            what: "v",
            expected: 18,
            given: 17,
            ..
        })
    ));
}

#[test]
fn a_floating_joint_with_a_floating_base_is_refused_at_run_time() {
    let from_file = FreeFlyerModel::from_file(Path::new(
        "tests/fixtures/floating_joint_with_floating_base.toml",
    ));
    let from_urdf =
        FreeFlyerModel::from_urdf("udk-macros/tests/ui/urdf_floating_joint.urdf", [0.0; 3]);
    for result in [from_file, from_urdf] {
        match result {
            Err(ModelError::Derivation { messages, .. }) => assert!(
                messages.contains("already has a floating joint")
                    && messages.contains("free_flight"),
                "{messages}"
            ),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a second free base was accepted"),
        }
    }
    // `udk::Model` derives Lagrangian models: it points at `FreeFlyerModel`.
    let lagrangian = udk::Model::from_file(Path::new(FILE));
    assert!(
        matches!(&lagrangian, Err(ModelError::Derivation { messages, .. }) if messages.contains("FreeFlyerModel::from_file")),
        "{lagrangian:?}"
    );
}
