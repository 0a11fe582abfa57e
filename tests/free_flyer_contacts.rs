//! Contacts on links of a robot on a floating base: Solo12's feet as link points
//! (`outputs(FL = link_position("FL_FOOT"), ..)` with `floating_base = true`). Their world
//! positions, Jacobians with respect to v and J̇ v against Pinocchio 4.1
//! (tests/fixtures/impacts_solo12.json, from tests/fixtures/make_impacts.py), the four-feet
//! plastic impact against Pinocchio's `impulseDynamics`, and the landing of Solo12 dropped onto
//! the ground under a PD controller: it settles, the normal forces carry its weight, no foot
//! goes through the ground and the quaternion stays of unit norm.

use std::cell::RefCell;
use std::ops::AddAssign;
use std::ops::ControlFlow;
use udk::nalgebra::{DMatrix, DVector, SVector};
use udk::runtime::simulate::{
    ground_contacts, simulate_free_flyer_with_contacts, ContactMode, ContactSet, FreeFlyer,
    SimulationOptions,
};
use udk::runtime::{impact, Options};

mod fixture_support;
use fixture_support::{assert_close, numbers, JointOrder};

mod solo12_support;
use solo12_support::{landing_start, pd, Solo12};

type Q = SVector<f64, 19>;
type V = SVector<f64, 18>;

fn fixture() -> serde_json::Value {
    serde_json::from_str(include_str!("fixtures/impacts_solo12.json")).expect("JSON")
}

/// Pinocchio's joint order (its names from the fixture) against Solo12's.
fn joint_order(fixture: &serde_json::Value) -> JointOrder {
    JointOrder::new(
        &Solo12::COORDINATE_NAMES[7..],
        &fixture["coordinates"]["joints"],
    )
}

/// The stacked Jacobian (12 × 18) and J̇ v (12) of the four feet.
fn feet(q: &Q, v: &V) -> (DMatrix<f64>, DVector<f64>) {
    let points = Solo12.points(q, v).expect("points");
    let jacobian = DMatrix::from_fn(12, 18, |r, c| points[r / 3].jacobian[(r % 3, c)]);
    let bias = DVector::from_fn(12, |r, _| points[r / 3].bias[r % 3]);
    (jacobian, bias)
}

#[test]
fn feet_positions_jacobians_and_bias_match_pinocchio() {
    assert_eq!(Solo12::POINT_NAMES, ["FL", "FR", "HL", "HR"]);
    let fixture = fixture();
    let order = joint_order(&fixture);
    let states = fixture["states"]["free_flyer"].as_array().expect("states");
    assert_eq!(states.len(), 3);
    for state in states {
        let (q_p, v_p) = (numbers(&state["q"]), numbers(&state["v_before"]));
        let q = Q::from_column_slice(&order.reorder(&q_p, 7));
        let v = V::from_column_slice(&order.reorder(&v_p, 6));
        let points = Solo12.points(&q, &v).expect("points");
        let positions: Vec<f64> = points
            .iter()
            .flat_map(|p| p.position.iter().copied())
            .collect();
        let expected: Vec<f64> = (state["position"].as_array().expect("positions").iter())
            .flat_map(numbers)
            .collect();
        assert_close(&positions, &expected, 1e-12, "position");
        let (jacobian, bias) = feet(&q, &v);
        assert_close(bias.as_slice(), &numbers(&state["bias"]), 1e-11, "J̇ v");
        for (r, row) in state["jacobian"]
            .as_array()
            .expect("rows")
            .iter()
            .enumerate()
        {
            let expected = order.reorder(&numbers(row), 6);
            let got: Vec<f64> = (0..18).map(|c| jacobian[(r, c)]).collect();
            assert_close(&got, &expected, 1e-12, "J");
        }
    }
}

#[test]
fn contact_terms_are_the_dynamics_and_the_feet_in_one_program() {
    let fixture = fixture();
    let order = joint_order(&fixture);
    for state in fixture["states"]["free_flyer"].as_array().expect("states") {
        let q = Q::from_column_slice(&order.reorder(&numbers(&state["q"]), 7));
        let v = V::from_column_slice(&order.reorder(&numbers(&state["v_before"]), 6));
        let tau = SVector::<f64, 12>::from_fn(|j, _| 0.5 - 0.1 * j as f64);
        let (mass, force, jacobian, rhs) = Solo12.contact_terms(&q, &v, &tau, 0.0).expect("terms");
        let expected = Solo12.mass_matrix(&q).expect("crba");
        assert_close(mass.as_slice(), expected.as_slice(), 1e-13, "M");
        let mut expected = -Solo12
            .inverse_dynamics(&q, &v, &V::zeros(), 0.0)
            .expect("h");
        expected.fixed_rows_mut::<12>(6).add_assign(&tau);
        assert_close(force.as_slice(), expected.as_slice(), 1e-13, "τ − h");
        let (feet, bias) = feet(&q, &v);
        assert_close(jacobian.as_slice(), feet.as_slice(), 1e-13, "J");
        assert_close(rhs.as_slice(), (-bias).as_slice(), 1e-13, "−J̇ v");
        // The feet held: J v̇ = −J̇ v, and M v̇ − (τ − h) = Jᵀλ is a force of the feet alone.
        let terms = udk::runtime::LagrangianView::new(&mass, &force, &jacobian, &rhs);
        let (a, qc) =
            udk::runtime::acceleration_and_constraint_force(terms, &Options::default()).expect("v̇");
        assert_close((jacobian * a).as_slice(), rhs.as_slice(), 1e-10, "J v̇");
        let lambda = (jacobian * jacobian.transpose())
            .lu()
            .solve(&(jacobian * qc))
            .expect("J Jᵀ is regular");
        assert_close(
            (jacobian.transpose() * lambda).as_slice(),
            qc.as_slice(),
            1e-10,
            "Qᶜ in range(Jᵀ)",
        );
    }
}

/// Solo12 with its four feet held in place (J v̇ = −J̇ v): `contact_terms` and the fundamental
/// equation give Pinocchio's `constraintDynamics` v̇ and, as Qᶜ = Jᵀλ, its contact forces λ
/// (tests/fixtures/contact_solo12.json, from tests/fixtures/make_contact_solo12.py). The
/// four feet's 12 rows are independent, so the kernel takes its Delassus-matrix path.
#[test]
fn feet_held_match_pinocchio_constraint_dynamics() {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/contact_solo12.json")).expect("JSON");
    let order = joint_order(&fixture);
    let states = fixture["states"]["feet_held"].as_array().expect("states");
    assert_eq!(states.len(), 3);
    for state in states {
        let q = Q::from_column_slice(&order.reorder(&numbers(&state["q"]), 7));
        let v = V::from_column_slice(&order.reorder(&numbers(&state["v"]), 6));
        let tau = SVector::<f64, 12>::from_column_slice(&order.reorder(&numbers(&state["tau"]), 0));
        let (mass, force, jacobian, rhs) = Solo12.contact_terms(&q, &v, &tau, 0.0).expect("terms");
        let terms = udk::runtime::LagrangianView::new(&mass, &force, &jacobian, &rhs);
        let (a, qc) =
            udk::runtime::acceleration_and_constraint_force(terms, &Options::default()).expect("v̇");
        let expected = order.reorder(&numbers(&state["acceleration"]), 6);
        assert_close(a.as_slice(), &expected, 1e-10, "v̇");
        let forces = SVector::<f64, 12>::from_column_slice(&numbers(&state["contact_forces"]));
        assert_close(
            qc.as_slice(),
            (jacobian.transpose() * forces).as_slice(),
            1e-10,
            "Qᶜ = Jᵀλ",
        );
        // The same v̇ and Pinocchio's λ itself in one call, by the fast path generated over the
        // terms' zeros.
        let (generated, lambda) = Solo12.contact_dynamics(&q, &v, &tau, 0.0).expect("v̇, λ");
        assert_close(generated.as_slice(), &expected, 1e-10, "contact_dynamics v̇");
        assert_close(
            lambda.as_slice(),
            forces.as_slice(),
            1e-10,
            "contact_dynamics λ",
        );
    }
}

/// Solo12 with a foot named twice among its link points: the rows of the two names are
/// equal, so A M⁻¹ Aᵀ is singular, the generated fast path's rank test fails, and
/// `contact_dynamics` answers through the kernel's path for redundant constraints: the same
/// v̇ as the kernel on `contact_terms`, with J v̇ = −J̇ v, and the minimum-norm λ, which shares
/// the twice-held foot's force equally between its two names.
#[test]
fn a_foot_held_twice_takes_the_kernel_path() {
    #[udk::lagrangian(
        urdf = "robots/example-robot-data/solo_description/robots/solo12.urdf",
        floating_base = true,
        outputs(
            FL = link_position("FL_FOOT"),
            FL_AGAIN = link_position("FL_FOOT"),
            HR = link_position("HR_FOOT"),
        )
    )]
    struct Solo12Twice;

    let q = landing_start();
    let v = V::from_fn(|k, _| 0.3 * (k as f64 * 0.7).sin());
    let tau = SVector::<f64, 12>::from_fn(|j, _| 0.5 - 0.1 * j as f64);
    let (mass, force, jacobian, rhs) = Solo12Twice.contact_terms(&q, &v, &tau, 0.0).expect("terms");
    assert_eq!(jacobian.fixed_rows::<3>(0), jacobian.fixed_rows::<3>(3));
    let terms = udk::runtime::LagrangianView::new(&mass, &force, &jacobian, &rhs);
    let (expected, qc) =
        udk::runtime::acceleration_and_constraint_force(terms, &Options::default())
            .expect("kernel");
    let (generated, lambda) = Solo12Twice
        .contact_dynamics(&q, &v, &tau, 0.0)
        .expect("v̇, λ");
    assert_close(generated.as_slice(), expected.as_slice(), 1e-12, "v̇");
    assert_close(
        (jacobian * generated).as_slice(),
        rhs.as_slice(),
        1e-10,
        "J v̇",
    );
    assert_close(
        (jacobian.transpose() * lambda).as_slice(),
        qc.as_slice(),
        1e-10,
        "Jᵀλ = Qᶜ",
    );
    assert_close(
        lambda.fixed_rows::<3>(0).as_slice(),
        lambda.fixed_rows::<3>(3).as_slice(),
        1e-10,
        "the foot's force shared",
    );
    // A zero quaternion is the state's error, as for every generated function.
    let mut zero = q;
    zero.fixed_rows_mut::<4>(3).fill(0.0);
    assert!(matches!(
        Solo12Twice.contact_dynamics(&zero, &v, &tau, 0.0),
        Err(udk::runtime::free_flyer::ContactDynamicsError::State(_))
    ));
}

#[test]
fn four_feet_plastic_impact_matches_pinocchio_impulse_dynamics() {
    let fixture = fixture();
    let order = joint_order(&fixture);
    for state in fixture["states"]["free_flyer"].as_array().expect("states") {
        assert_eq!(state["restitution"].as_f64(), Some(0.0));
        let (q_p, v_p) = (numbers(&state["q"]), numbers(&state["v_before"]));
        let velocities = |x: &[f64]| DVector::from_vec(order.reorder(x, 6));
        let q = Q::from_column_slice(&order.reorder(&q_p, 7));
        let before = velocities(&v_p);
        let v = V::from_column_slice(before.as_slice());
        let mass = Solo12.mass_matrix(&q).expect("crba");
        let mass = DMatrix::from_fn(18, 18, |r, c| mass[(r, c)]);
        let (jacobian, _) = feet(&q, &v);
        let jump = impact(
            &mass,
            &jacobian,
            &DVector::zeros(12),
            &before,
            &Options::default(),
        )
        .expect("impact");
        let after = velocities(&numbers(&state["v_after"]));
        assert_close(jump.velocity.as_slice(), after.as_slice(), 1e-10, "v⁺");
        assert_close(
            jump.impulse.as_slice(),
            &numbers(&state["impulse"]),
            1e-9,
            "λ",
        );
        assert!((&jacobian * &jump.velocity).amax() < 1e-12, "the feet stop");
    }
}

/// Solo12 dropped with its base 0.3 m above the ground, tilted by 0.05 rad in roll and
/// 0.03 rad in pitch (so that the feet touch down one at a time), in the standing posture,
/// under a PD law τ = Kp (q* − q) − Kd q̇ on the joints; friction μ = 1.5, plastic touchdowns.
/// The feet touch down one by one, stick, one slips and sticks again.
#[test]
fn solo12_lands_and_stands_on_four_feet() {
    let efforts = |_: f64, q: &Q, v: &[f64], tau: &mut [f64]| pd(q.as_slice(), v, tau);
    let robot = FreeFlyer::new(&Solo12, &efforts);
    let set = ContactSet::new(robot, ground_contacts(&Solo12, 0.0, 0.0, 1.5)).expect("contacts");
    let q0 = landing_start();
    let options = SimulationOptions {
        rtol: 1e-10,
        atol: 1e-12,
        ..SimulationOptions::every(0.05)
    };
    let lowest = RefCell::new(f64::INFINITY);
    let run =
        simulate_free_flyer_with_contacts(&set, (&q0, &[0.0; 18]), (0.0, 2.0), &options, |s| {
            let v = V::from_column_slice(&s.v.as_slice()[..18]);
            let points = Solo12.points(&s.q, &v).expect("points");
            let low = points
                .iter()
                .map(|p| p.position.z)
                .fold(f64::INFINITY, f64::min);
            let mut lowest = lowest.borrow_mut();
            *lowest = lowest.min(low);
            ControlFlow::Continue(())
        })
        .expect("the landing runs");
    let touchdowns = run
        .events
        .iter()
        .filter(|e| e.name.ends_with("touchdown"))
        .count();
    assert!(touchdowns >= 4, "{touchdowns} touchdowns");
    assert!(
        *lowest.borrow() > -1e-7,
        "a foot went {} m into the ground",
        lowest.borrow()
    );
    for sample in &run.samples {
        assert!(
            sample.position_residual.abs() < 1e-12,
            "|quaternion| − 1 = {}",
            sample.position_residual
        );
    }
    let last = run.samples.last().expect("samples");
    let v = &last.v.as_slice()[..18];
    assert!(v.iter().all(|x| x.abs() < 1e-6), "still moving: {v:?}");
    assert!(
        set.modes().iter().all(|m| *m == ContactMode::Sticking),
        "{:?}",
        set.modes()
    );
    let forces = set.forces(last.q.as_slice(), v, last.t).expect("forces");
    let normal: f64 = (forces.iter())
        .filter(|f| f.name.ends_with(".normal"))
        .map(|f| f.value)
        .sum();
    let total_mass = Solo12.mass_matrix(&last.q).expect("crba")[(0, 0)];
    let weight = total_mass * 9.81;
    assert!(
        (normal - weight).abs() < 1e-6 * weight,
        "Σ λₙ = {normal} N, m g = {weight} N ({forces:?})"
    );
    let names: Vec<&str> = forces.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(&names[..3], ["FL.normal", "FL.tangent", "FL.lateral"]);
    assert!(
        last.q[2] > 0.1 && last.q[2] < 0.3,
        "standing at {} m",
        last.q[2]
    );
}
