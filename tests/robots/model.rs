//! `udk::Model` on the robots: the JIT-compiled run-time model against the code
//! `#[lagrangian]` generates for the same URDF (terms and q̈ to 1e-14 relative) and against
//! Pinocchio's `aba` (1e-10), at every state of the fixtures.

use crate::panda::Panda;
use crate::ur5::Ur5;
use crate::{assert_close, states};
use std::path::Path;
use udk::model::UrdfOptions;
use udk::nalgebra::{DVector, SVector};
use udk::runtime::ControlledLagrangianSystem;
use udk::Model;

fn assert_model_matches_generated<S, const N: usize>(
    robot: &S,
    names: &[&str; N],
    urdf: &str,
    fixture: &str,
) where
    S: ControlledLagrangianSystem<N, 0, N>,
{
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(urdf);
    let mut model = Model::from_urdf(&path, &UrdfOptions::default()).unwrap();
    assert_eq!((model.n(), model.m(), model.inputs().len()), (N, 0, N));
    let dynamic = |v: &SVector<f64, N>| DVector::from_column_slice(v.as_slice());
    for (k, s) in states(fixture, names).iter().enumerate() {
        model.set_inputs(s.tau.as_slice()).unwrap();
        let (q, qd) = (dynamic(&s.q), dynamic(&s.qd));
        let what = |x: &str| format!("{fixture} state {k}: {x}");
        let generated = robot.terms(&s.q, &s.qd, &s.tau, 0.0);
        let terms = model.terms(&q, &qd, 0.0).unwrap();
        assert_close(
            terms.mass_matrix.as_slice(),
            generated.mass_matrix.as_slice(),
            1e-14,
            &what("M"),
        );
        assert_close(
            terms.generalized_force.as_slice(),
            generated.generalized_force.as_slice(),
            1e-14,
            &what("Q"),
        );
        let qdd = model.acceleration(&q, &qd, 0.0).unwrap();
        let expected = robot.acceleration(&s.q, &s.qd, &s.tau, 0.0).unwrap();
        assert_close(qdd.as_slice(), expected.as_slice(), 1e-14, &what("q̈"));
        assert_close(qdd.as_slice(), s.qdd.as_slice(), 1e-10, &what("q̈ (aba)"));
        let jacobian = model.acceleration_jacobian(&q, &qd, 0.0).unwrap();
        let expected = robot
            .acceleration_jacobian(&s.q, &s.qd, &s.tau, 0.0)
            .unwrap();
        for (x, y, block) in [
            (&jacobian.wrt_q, expected.wrt_q.as_slice(), "∂q̈/∂q"),
            (&jacobian.wrt_qd, expected.wrt_qd.as_slice(), "∂q̈/∂q̇"),
            (&jacobian.wrt_u, expected.wrt_u.as_slice(), "∂q̈/∂u"),
        ] {
            assert_close(x.as_slice(), y, 1e-14, &what(block));
        }
    }
}

#[test]
fn the_run_time_ur5_equals_the_generated_one() {
    assert_model_matches_generated(
        &Ur5,
        &Ur5::COORDINATE_NAMES,
        "robots/ur5_robot.urdf",
        "ur5_robot",
    );
}

#[test]
fn the_run_time_panda_equals_the_generated_one() {
    assert_model_matches_generated(
        &Panda,
        &Panda::COORDINATE_NAMES,
        "robots/panda.urdf",
        "panda",
    );
}
