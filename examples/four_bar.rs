//! A four-bar linkage in a plane tilted 30° from the horizontal, closed by one vector
//! constraint: the coupler's end and the rocker's end are one point, `holonomic(c1 - c2)`.
//! The three rows of that constraint have rank 2 (the loop is planar), so the constraints are
//! redundant, which the fundamental equation handles as it is. An output gives the path of a
//! point on the coupler.
//!
//! `tests/multibody.rs` checks the motion against the closed-form position analysis of the
//! loop, the constraint and the energy over 10 s.
//!
//! Run with `cargo run --release --example four_bar`.

use udk::lagrangian;
use udk::nalgebra::{Matrix2, SVector, Vector2};
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// Ground link `d`, crank `a`, coupler `b` and rocker `c` (m), uniform rods of masses `ma`,
/// `mb`, `mc` (kg); the plane of the linkage tilted by `tilt` (rad) about x; gravity `g`
/// (m/s²) along −z. Coordinates: the absolute angles of crank, coupler and rocker in the
/// plane. The coupler point sits at (`px`, `py`) in the coupler's frame.
#[lagrangian(
    coordinates(th1, th2, th3),
    let plane = rot_x(tilt),
    let crank = plane * rot_z(th1),
    let coupler = plane * rot_z(th2),
    let rocker = plane * rot_z(th3),
    let ex = vec3(1.0, 0.0, 0.0),
    let crank_end = a * (crank * ex),
    let coupler_end = crank_end + b * (coupler * ex),
    let rocker_end = plane * vec3(d, 0.0, 0.0) + c * (rocker * ex),
    lagrangian = kinetic_energy(ma, ma * a.powi(2) / 12.0 * diag(0.0, 1.0, 1.0), 0.5 * crank_end, crank)
        + kinetic_energy(mb, mb * b.powi(2) / 12.0 * diag(0.0, 1.0, 1.0), crank_end + 0.5 * b * (coupler * ex), coupler)
        + kinetic_energy(mc, mc * c.powi(2) / 12.0 * diag(0.0, 1.0, 1.0), rocker_end - 0.5 * c * (rocker * ex), rocker)
        - g * (ma * 0.5 * crank_end.z() + mb * (crank_end.z() + 0.5 * b * (coupler * ex).z())
            + mc * (rocker_end.z() - 0.5 * c * (rocker * ex).z())),
    holonomic(coupler_end - rocker_end),
    outputs(coupler_point = crank_end + coupler * vec3(px, py, 0.0)),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FourBar {
    pub d: f64,
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub ma: f64,
    pub mb: f64,
    pub mc: f64,
    pub tilt: f64,
    pub g: f64,
    pub px: f64,
    pub py: f64,
}

impl FourBar {
    /// A Grashof crank-rocker (shortest + longest = 1.3 m < 1.7 m) tilted 30°.
    pub const EXAMPLE: Self = Self {
        d: 1.0,
        a: 0.3,
        b: 0.9,
        c: 0.8,
        ma: 0.5,
        mb: 1.0,
        mc: 0.8,
        tilt: std::f64::consts::FRAC_PI_6,
        g: 9.81,
        px: 0.45,
        py: 0.2,
    };

    /// The closed-form position analysis: coupler and rocker angles (th2, th3) for the crank
    /// angle `th1`, on the branch with the coupler's end above the ground line.
    pub fn closed_form(&self, th1: f64) -> (f64, f64) {
        let crank_end = Vector2::new(self.a * th1.cos(), self.a * th1.sin());
        let from_ground = crank_end - Vector2::new(self.d, 0.0);
        let length = from_ground.norm();
        let cos_alpha =
            (self.c.powi(2) + length.powi(2) - self.b.powi(2)) / (2.0 * self.c * length);
        let th3 = from_ground.y.atan2(from_ground.x) - cos_alpha.acos();
        let joint = Vector2::new(self.d + self.c * th3.cos(), self.c * th3.sin());
        let th2 = (joint.y - crank_end.y).atan2(joint.x - crank_end.x);
        (th2, th3)
    }

    /// A consistent state with the crank at `th1` turning at `rate` (rad/s).
    pub fn start(&self, th1: f64, rate: f64) -> (SVector<f64, 3>, SVector<f64, 3>) {
        let (th2, th3) = self.closed_form(th1);
        // a ω₁ t₁ + b ω₂ t₂ = c ω₃ t₃ with tᵢ = (−sin θᵢ, cos θᵢ).
        let t = |th: f64| Vector2::new(-th.sin(), th.cos());
        let loop_matrix = Matrix2::from_columns(&[self.b * t(th2), -self.c * t(th3)]);
        let rates = loop_matrix
            .lu()
            .solve(&(-self.a * rate * t(th1)))
            .expect("not at a dead point");
        (
            SVector::from([th1, th2, th3]),
            SVector::from([rate, rates[0], rates[1]]),
        )
    }
}

fn main() {
    let linkage = FourBar::EXAMPLE;
    let (q, qd) = linkage.start(1.0, 6.0);
    println!(
        "constraint rows: {}, rank 2 (a planar loop)",
        FourBar::NUM_CONSTRAINTS
    );
    // The plot shows the coupler point's path (the output, in the CSV
    // as coupler_point.x, .y, .z).
    let run = Showcase {
        columns: &["coupler_point.x", "coupler_point.y", "coupler_point.z"],
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "four_bar",
            "Four-bar linkage in a tilted plane, closed by a vector constraint",
            &FourBar::COORDINATE_NAMES,
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&linkage, &q, &qd, 0.0, 10.0, options)
    });
    println!("{}\n{report}", Summary::header());
}
