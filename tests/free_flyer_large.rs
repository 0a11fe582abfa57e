//! `udk::model::FreeFlyerModel::simulate` on a robot of more than 24 joints: Talos reduced
//! (32 joints, NQ = 39; from `UDK_EXAMPLE_ROBOT_DATA`, skipped with a printed note when
//! unset). Falling from rest with no joint torque, it falls as one rigid body, so its base
//! follows z₀ − g t²/2 and keeps its orientation; in zero gravity, under constant joint
//! torques (internal forces), its spatial momentum stays constant.

use udk::model::FreeFlyerModel;
use udk::runtime::free_flyer::momentum;
use udk::runtime::simulate::SimulationOptions;

/// Talos reduced with gravity `gravity`, or `None` (with a printed note) without
/// `UDK_EXAMPLE_ROBOT_DATA`.
fn talos(gravity: [f64; 3]) -> Option<FreeFlyerModel> {
    let Some(root) = std::env::var_os("UDK_EXAMPLE_ROBOT_DATA") else {
        println!("skipped: UDK_EXAMPLE_ROBOT_DATA is not set (Talos's URDF is not vendored)");
        return None;
    };
    let path = std::path::PathBuf::from(root).join("talos_data/robots/talos_reduced.urdf");
    Some(FreeFlyerModel::from_urdf(path, gravity).expect("Talos reduced"))
}

/// A start: the base at 1 m, turned, the joints bent.
fn start(model: &FreeFlyerModel) -> Vec<f64> {
    let (s, c) = (0.3f64.sin(), 0.3f64.cos());
    let mut q = vec![0.1, -0.2, 1.0, 0.0, s, 0.0, c];
    q.extend((0..model.nv() - 6).map(|j| 0.2 * ((j as f64) * 0.9).sin()));
    q
}

fn options() -> SimulationOptions {
    SimulationOptions {
        rtol: 1e-11,
        atol: 1e-12,
        ..SimulationOptions::every(0.1)
    }
}

#[test]
fn talos_falls_at_g() {
    let Some(model) = talos([0.0, 0.0, -9.81]) else {
        return;
    };
    assert_eq!((model.nq(), model.nv()), (39, 38));
    let q0 = start(&model);
    let n = model.nv() - 6;
    let motion = (model.simulate(&q0, &vec![0.0; 38], &vec![0.0; n], (0.0, 0.3), &options()))
        .expect("a run");
    assert_eq!(motion.t.len(), 4);
    for (j, t) in motion.t.iter().enumerate() {
        let q = motion.q.column(j);
        let expected_z = 1.0 - 0.5 * 9.81 * t * t;
        assert!(
            (q[2] - expected_z).abs() < 1e-9,
            "z({t}) = {} against {expected_z}",
            q[2]
        );
        for k in [0, 1, 3, 4, 5, 6] {
            assert!((q[k] - q0[k]).abs() < 1e-9, "q[{k}]({t}) = {}", q[k]);
        }
        for k in 7..39 {
            assert!(
                (q[k] - q0[k]).abs() < 1e-9,
                "joint {k} moved: {}",
                q[k] - q0[k]
            );
        }
    }
}

#[test]
fn talos_keeps_its_momentum_in_zero_gravity() {
    let Some(model) = talos([0.0; 3]) else {
        return;
    };
    let q0 = start(&model);
    let v0: Vec<f64> = (0..38).map(|i| 0.5 * ((i as f64) * 0.7).cos()).collect();
    let tau: Vec<f64> = (0..32).map(|j| 2.0 * ((j as f64) * 1.3).sin()).collect();
    let motion = (model.simulate(&q0, &v0, &tau, (0.0, 0.3), &options())).expect("a run");
    let at = |j: usize| {
        let (q, v) = (motion.q.column(j), motion.v.column(j));
        let mass = model.mass_matrix(q.as_slice()).expect("M");
        momentum(q.as_slice(), v.as_slice(), &mass).expect("momentum")
    };
    let [linear0, angular0] = at(0);
    let scale = linear0.norm().max(angular0.norm());
    assert!(scale > 1.0, "a motion with momentum: {scale}");
    for j in 1..motion.t.len() {
        let [linear, angular] = at(j);
        let drift = (linear - linear0).norm().max((angular - angular0).norm());
        assert!(
            drift < 1e-10 * scale,
            "momentum drift {drift} at t = {}",
            motion.t[j]
        );
        // The joints did move under the torques.
        assert!((motion.q[(10, j)] - q0[10]).abs() > 1e-6);
    }
}
