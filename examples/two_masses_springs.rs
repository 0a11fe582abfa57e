//! Two masses and two springs, modelled as two sub-systems joined by a connection constraint
//! (Udwadia & Phohomsiri 2006, example 3, eqs 5.24–5.56), in its three cases:
//! - 5.1, m₁, m₂ > 0: M is singular, [M; A] has full rank (eq 5.39);
//! - 5.2, m₁ = 0: the extra constraint k₁x₁ = k₂q₂ restores uniqueness (eq 5.47);
//! - 5.3, m₂ = 0: the extra constraint k₂q₂ = 0 restores uniqueness (eq 5.56).
//!
//! x₁ is the extension of spring k₁, q₁ the position of sub-system 2 and q₂ the extension of
//! spring k₂; the connection constraint is q₁ = x₁ + d.
//!
//! Run with `cargo run --example two_masses_springs`.

use udk::lagrangian;
use udk::nalgebra::Vector3;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// Case 5.1: masses `m1`, `m2` (kg), stiffnesses `k1`, `k2` (N/m), connection offset `d` (m).
#[lagrangian(
    coordinates(x1, q1, q2),
    lagrangian = 0.5 * m1 * dot(x1).powi(2) + 0.5 * m2 * (dot(q1) + dot(q2)).powi(2)
        - 0.5 * k1 * x1.powi(2) - 0.5 * k2 * q2.powi(2),
    holonomic(q1 - x1 - d),
)]
pub struct TwoMasses {
    pub m1: f64,
    pub m2: f64,
    pub k1: f64,
    pub k2: f64,
    pub d: f64,
}

/// Case 5.2: as [`TwoMasses`] with `m1` = 0 and the spring-force balance k₁x₁ = k₂q₂ (eq 5.40).
#[lagrangian(
    coordinates(x1, q1, q2),
    lagrangian = 0.5 * m1 * dot(x1).powi(2) + 0.5 * m2 * (dot(q1) + dot(q2)).powi(2)
        - 0.5 * k1 * x1.powi(2) - 0.5 * k2 * q2.powi(2),
    holonomic(q1 - x1 - d, k1 * x1 - k2 * q2),
)]
pub struct TwoMassesFirstMassless {
    pub m1: f64,
    pub m2: f64,
    pub k1: f64,
    pub k2: f64,
    pub d: f64,
}

/// Case 5.3: as [`TwoMasses`] with `m2` = 0 and no force in spring k₂, k₂q₂ = 0 (eq 5.49).
#[lagrangian(
    coordinates(x1, q1, q2),
    lagrangian = 0.5 * m1 * dot(x1).powi(2) + 0.5 * m2 * (dot(q1) + dot(q2)).powi(2)
        - 0.5 * k1 * x1.powi(2) - 0.5 * k2 * q2.powi(2),
    holonomic(q1 - x1 - d, k2 * q2),
)]
pub struct TwoMassesSecondMassless {
    pub m1: f64,
    pub m2: f64,
    pub k1: f64,
    pub k2: f64,
    pub d: f64,
}

fn main() {
    let (k1, k2, d) = (3.0, 5.0, 0.5);
    let x1 = 0.2;

    let case1 = TwoMasses {
        m1: 1.5,
        m2: 2.5,
        k1,
        k2,
        d,
    };
    let (q_case1, qd_case1) = (Vector3::new(x1, x1 + d, -0.1), Vector3::new(0.3, 0.3, 0.2));
    let qdd = case1
        .acceleration(&q_case1, &qd_case1, 0.0)
        .expect("case 5.1 is unique");
    let s = (-k1 * q_case1[0] + k2 * q_case1[2]) / case1.m1;
    println!("5.1: q̈ = {:?}", qdd.as_slice());
    println!("  eq 5.39: {:?}", [s, s, -s - k2 * q_case1[2] / case1.m2]);

    let case2 = TwoMassesFirstMassless {
        m1: 0.0,
        m2: 2.5,
        k1,
        k2,
        d,
    };
    let q_case2 = Vector3::new(x1, x1 + d, k1 * x1 / k2);
    let qdd = case2
        .acceleration(&q_case2, &Vector3::zeros(), 0.0)
        .expect("case 5.2 is unique");
    let c = k1 * k2 * (q_case2[0] + q_case2[2]) / (case2.m2 * (k1 + k2).powi(2));
    println!("5.2: q̈ = {:?}", qdd.as_slice());
    println!("  eq 5.47: {:?}", [-k2 * c, -k2 * c, -k1 * c]);

    let case3 = TwoMassesSecondMassless {
        m1: 1.5,
        m2: 0.0,
        k1,
        k2,
        d,
    };
    let q_case3 = Vector3::new(x1, x1 + d, 0.0);
    let qdd = case3
        .acceleration(&q_case3, &Vector3::zeros(), 0.0)
        .expect("case 5.3 is unique");
    println!("5.3: q̈ = {:?}", qdd.as_slice());
    println!(
        "  eq 5.56: {:?}",
        [-k1 * x1 / case3.m1, -k1 * x1 / case3.m1, 0.0]
    );

    // 5 s of each case from the states above (the massless cases from rest).
    let root = env!("CARGO_MANIFEST_DIR");
    let labels = ["x1", "q1", "q2"];
    let options = SimulationOptions::every(0.01);
    let rest = Vector3::zeros();
    let title = "Two masses with springs, case 5.1 (Udwadia & Phohomsiri 2006, eq 5.39)";
    let run = Showcase::new(root, "two_masses_springs", title, &labels);
    let report1 = run.run(&options, |o| {
        simulate_lagrangian(&case1, &q_case1, &qd_case1, 0.0, 5.0, o)
    });
    let title = "Two masses, the first massless, case 5.2 (eq 5.47)";
    let run = Showcase::new(root, "two_masses_first_massless", title, &labels);
    let report2 = run.run(&options, |o| {
        simulate_lagrangian(&case2, &q_case2, &rest, 0.0, 5.0, o)
    });
    let title = "Two masses, the second massless, case 5.3 (eq 5.56)";
    let run = Showcase::new(root, "two_masses_second_massless", title, &labels);
    let report3 = run.run(&options, |o| {
        simulate_lagrangian(&case3, &q_case3, &rest, 0.0, 5.0, o)
    });
    println!("\n{}\n{report1}\n{report2}\n{report3}", Summary::header());
}
