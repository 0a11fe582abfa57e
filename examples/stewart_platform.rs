//! A Stewart platform: a rigid top plate on six massless prismatic legs, each pushing along its
//! own axis with a force `u[i]` (an input), written with one `for` block instead of six copies.
//!
//! The plate's pose is its centre (x, y, z) and its Euler parameters (e0, e1, e2, e3) with the
//! unit-norm holonomic constraint. The legs come in three pairs, 120° apart: leg i leaves the
//! base circle (radius `rb`) at the pair's angle ± `db` and reaches the plate circle (radius
//! `rp`) at the pair's angle ± (60° − `dt`), the sign alternating with i, so that neighbouring
//! legs cross as in the classic six-by-six platform. The block declares the inputs `u_0`…`u_5`,
//! the definitions `pair_i`, `side_i`, `base_i`, `top_i`, `leg_i`, the loads and the outputs
//! `length_i`, `foot_i` and `anchor_i`; the derivation sees them as if written out by hand.
//!
//! Run with `cargo run --example stewart_platform`: it finds the leg forces that hold the plate
//! still against gravity and checks that its acceleration is then zero.

use udk::lagrangian;
use udk::nalgebra::{SMatrix, SVector, Vector3};

/// The plate: mass `m` (kg), moments of inertia `ixx` (about its in-plane axes) and `izz`
/// (about its normal) in kg m², anchor radii `rb` (base) and `rp` (plate) in m, the anchors'
/// angular offsets `db` and `dt` (rad), gravity `g` (m/s², along −z).
#[lagrangian(
    coordinates(x, y, z, e0, e1, e2, e3),
    let attitude = quat_to_rot(e0, e1, e2, e3),
    let centre = vec3(x, y, z),
    for i in 0..6 {
        inputs(u[i]),
        // 0°, 0°, 120°, 120°, 240°, 240°, and +1, −1, +1, ... (cos πi = (−1)^i).
        let pair[i] = PI / 3.0 * i - PI / 6.0 * (1.0 - (PI * i).cos()),
        let side[i] = (PI * i).cos(),
        let base[i] = rb * vec3((pair[i] + side[i] * db).cos(), (pair[i] + side[i] * db).sin(), 0.0),
        let top[i] = centre
            + attitude * (rp * vec3(
                (pair[i] + side[i] * (PI / 3.0 - dt)).cos(),
                (pair[i] + side[i] * (PI / 3.0 - dt)).sin(),
                0.0,
            )),
        let leg[i] = top[i] - base[i],
        loads(force(u[i] * leg[i].normalize(), top[i])),
        outputs(length[i] = leg[i].norm(), foot[i] = base[i], anchor[i] = top[i]),
    },
    lagrangian = kinetic_energy(m, diag(ixx, ixx, izz), centre, attitude) - m * g * z,
    holonomic(e0.powi(2) + e1.powi(2) + e2.powi(2) + e3.powi(2) - 1.0),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StewartPlatform {
    pub m: f64,
    pub ixx: f64,
    pub izz: f64,
    pub rb: f64,
    pub rp: f64,
    pub db: f64,
    pub dt: f64,
    pub g: f64,
}

impl StewartPlatform {
    /// A 10 kg plate of 0.3 m anchor radius over a base of 0.5 m.
    pub const EXAMPLE: Self = Self {
        m: 10.0,
        ixx: 0.25,
        izz: 0.45,
        rb: 0.5,
        rp: 0.3,
        db: 0.2,
        dt: 0.3,
        g: 9.81,
    };

    /// The leg forces (N) that hold the plate at rest at the pose `q`: with nᵢ the unit vector
    /// of leg i and rᵢ its plate anchor relative to the centre, Σ uᵢ nᵢ = m g e_z and
    /// Σ uᵢ (rᵢ × nᵢ) = 0. `None` where the legs cannot balance the weight (a singular pose).
    pub fn holding_forces(&self, q: &SVector<f64, 7>) -> Option<SVector<f64, 6>> {
        let (qd, u) = (SVector::zeros(), SVector::zeros());
        type Point = fn(
            &StewartPlatform,
            &SVector<f64, 7>,
            &SVector<f64, 7>,
            &SVector<f64, 6>,
            f64,
        ) -> Vector3<f64>;
        let feet: [Point; 6] = [
            Self::foot_0,
            Self::foot_1,
            Self::foot_2,
            Self::foot_3,
            Self::foot_4,
            Self::foot_5,
        ];
        let anchors: [Point; 6] = [
            Self::anchor_0,
            Self::anchor_1,
            Self::anchor_2,
            Self::anchor_3,
            Self::anchor_4,
            Self::anchor_5,
        ];
        let centre = Vector3::new(q[0], q[1], q[2]);
        let mut wrench = SMatrix::<f64, 6, 6>::zeros();
        for (i, (foot, anchor)) in feet.iter().zip(&anchors).enumerate() {
            let top = anchor(self, q, &qd, &u, 0.0);
            let axis = (top - foot(self, q, &qd, &u, 0.0)).normalize();
            wrench.fixed_view_mut::<3, 1>(0, i).copy_from(&axis);
            let moment = (top - centre).cross(&axis);
            wrench.fixed_view_mut::<3, 1>(3, i).copy_from(&moment);
        }
        let weight = SVector::<f64, 6>::from([0.0, 0.0, self.m * self.g, 0.0, 0.0, 0.0]);
        wrench.lu().solve(&weight)
    }
}

fn main() {
    let plate = StewartPlatform::EXAMPLE;
    let half = 0.1f64;
    let q = SVector::<f64, 7>::from([0.02, -0.01, 0.4, half.cos(), 0.0, 0.0, half.sin()]);
    let forces = plate
        .holding_forces(&q)
        .expect("the legs can hold this pose");
    let qdd = plate
        .acceleration(&q, &SVector::zeros(), &forces, 0.0)
        .expect("a unique motion");
    println!("leg forces holding the plate (N): {}", forces.transpose());
    println!("q̈ under them: {:.2e}", qdd.norm());
}
