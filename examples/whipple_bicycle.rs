//! The Whipple bicycle: the benchmark bicycle of Meijaard, Papadopoulos, Ruina & Schwab (2007),
//! written as four rigid bodies with rotations and `kinetic_energy`, in Moore's coordinates
//! (`../shared/references/whipple_bicycle.md`).
//!
//! Frames (z down): A = rot_z(yaw) from the ground, B = A·rot_x(roll), the rear frame
//! C = B·rot_y(pitch), the rear wheel D = C·rot_y(rear_wheel), the front frame
//! E = C·rot_z(steer), the front wheel F = E·rot_y(front_wheel). One holonomic constraint keeps
//! the front contact on the ground (it fixes the pitch); four nonholonomic constraints make
//! both wheels roll without slip.
//!
//! `tests/bicycle.rs` checks the accelerations against Basu-Mandal, Chatterjee & Papadopoulos
//! (2007, Table 1) to 1e-11.
//!
//! Run with `cargo run --release --example whipple_bicycle`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// The benchmark bicycle's parameters, named as in Meijaard et al. (2007), Table 1: lengths in
/// m, masses in kg, inertias in kg m² about each body's centre of mass in the benchmark axes
/// (x forward, z down), angles in rad, g in m/s².
#[lagrangian(
    coordinates(x, y, yaw, roll, pitch, rear_wheel, steer, front_wheel),
    // Moore's geometry from the benchmark parameters.
    let d1 = lambda.cos() * (c + w - r_r * lambda.tan()),
    let d3 = -lambda.cos() * (c - r_f * lambda.tan()),
    let d2 = (r_r + d1 * lambda.sin() - r_f + d3 * lambda.sin()) / lambda.cos(),
    let l1 = x_b * lambda.cos() - z_b * lambda.sin() - r_r * lambda.sin(),
    let l2 = x_b * lambda.sin() + z_b * lambda.cos() + r_r * lambda.cos(),
    let l4 = (z_h + r_f) * lambda.cos() + (x_h - w) * lambda.sin(),
    let l3 = (x_h - w - l4 * lambda.sin()) / lambda.cos(),
    // The frames.
    let heading = rot_z(yaw),
    let leaned = heading * rot_x(roll),
    let rear_frame = leaned * rot_y(pitch),
    let rear_disk = rear_frame * rot_y(rear_wheel),
    let front_frame = rear_frame * rot_z(steer),
    let front_disk = front_frame * rot_y(front_wheel),
    let ex = vec3(1.0, 0.0, 0.0),
    let ey = vec3(0.0, 1.0, 0.0),
    let ez = vec3(0.0, 0.0, 1.0),
    // The points.
    let rear_contact = vec3(x, y, 0.0),
    let rear_centre = rear_contact - r_r * (leaned * ez),
    let rear_mass_centre = rear_centre + l1 * (rear_frame * ex) + l2 * (rear_frame * ez),
    let steer_point = rear_centre + d1 * (rear_frame * ex),
    let front_centre = steer_point + d2 * (front_frame * ez) + d3 * (front_frame * ex),
    let front_mass_centre = front_centre + l3 * (front_frame * ex) + l4 * (front_frame * ez),
    let axle = front_frame * ey,
    let front_contact = front_centre + r_f * axle.cross(heading * ez).cross(axle).normalize(),
    // Inertias in each body's axes: the frames' inertias turned into the steer-aligned axes.
    let tilt = rot_y(lambda),
    let rear_frame_inertia = tilt.transpose() * mat3(i_bxx, 0.0, i_bxz, 0.0, i_byy, 0.0, i_bxz, 0.0, i_bzz) * tilt,
    let front_frame_inertia = tilt.transpose() * mat3(i_hxx, 0.0, i_hxz, 0.0, i_hyy, 0.0, i_hxz, 0.0, i_hzz) * tilt,
    // Rolling without slip: the material point of each wheel at its contact.
    let rear_slip = dot(rear_centre) + angular_velocity(rear_disk).cross(rear_contact - rear_centre),
    let front_slip = dot(front_centre) + angular_velocity(front_disk).cross(front_contact - front_centre),
    lagrangian = kinetic_energy(m_r, diag(i_rxx, i_ryy, i_rxx), rear_centre, rear_disk)
        + kinetic_energy(m_b, rear_frame_inertia, rear_mass_centre, rear_frame)
        + kinetic_energy(m_h, front_frame_inertia, front_mass_centre, front_frame)
        + kinetic_energy(m_f, diag(i_fxx, i_fyy, i_fxx), front_centre, front_disk)
        + g * (m_r * rear_centre.z() + m_b * rear_mass_centre.z()
            + m_h * front_mass_centre.z() + m_f * front_centre.z()),
    holonomic((front_contact - rear_contact).dot(heading * ez)),
    nonholonomic(rear_slip.x(), rear_slip.y(), front_slip.x(), front_slip.y()),
    outputs(rear_wheel_centre = rear_centre, front_wheel_contact = front_contact),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WhippleBicycle {
    pub w: f64,
    pub c: f64,
    pub lambda: f64,
    pub g: f64,
    pub r_r: f64,
    pub m_r: f64,
    pub i_rxx: f64,
    pub i_ryy: f64,
    pub x_b: f64,
    pub z_b: f64,
    pub m_b: f64,
    pub i_bxx: f64,
    pub i_byy: f64,
    pub i_bzz: f64,
    pub i_bxz: f64,
    pub x_h: f64,
    pub z_h: f64,
    pub m_h: f64,
    pub i_hxx: f64,
    pub i_hyy: f64,
    pub i_hzz: f64,
    pub i_hxz: f64,
    pub r_f: f64,
    pub m_f: f64,
    pub i_fxx: f64,
    pub i_fyy: f64,
}

impl WhippleBicycle {
    /// Meijaard et al. (2007), Table 1.
    pub const BENCHMARK: WhippleBicycle = WhippleBicycle {
        w: 1.02,
        c: 0.08,
        lambda: std::f64::consts::PI / 10.0,
        g: 9.81,
        r_r: 0.3,
        m_r: 2.0,
        i_rxx: 0.0603,
        i_ryy: 0.12,
        x_b: 0.3,
        z_b: -0.9,
        m_b: 85.0,
        i_bxx: 9.2,
        i_byy: 11.0,
        i_bzz: 2.8,
        i_bxz: 2.4,
        x_h: 0.9,
        z_h: -0.7,
        m_h: 4.0,
        i_hxx: 0.05892,
        i_hyy: 0.06,
        i_hzz: 0.00708,
        i_hxz: -0.00756,
        r_f: 0.35,
        m_f: 3.0,
        i_fxx: 0.1405,
        i_fyy: 0.28,
    };

    /// Upright straight running at `speed` (m/s) with a small roll rate `roll_rate` (rad/s):
    /// (q, q̇) with the pitch at its upright value λ and the wheels turning at −speed/r.
    pub fn upright(&self, speed: f64, roll_rate: f64) -> (SVector<f64, 8>, SVector<f64, 8>) {
        let q = SVector::<f64, 8>::from([0.0, 0.0, 0.0, 0.0, self.lambda, 0.0, 0.0, 0.0]);
        let qd = SVector::<f64, 8>::from([
            speed,
            0.0,
            0.0,
            roll_rate,
            0.0,
            -speed / self.r_r,
            0.0,
            -speed / self.r_f,
        ]);
        (q, qd)
    }
}

/// Upright running kicked in roll: 5 s at 5 m/s with a roll rate of 0.5 rad/s (inside the
/// self-stable speed range of 4.29–6.02 m/s: roll and steer decay), and 3 s at 3 m/s with
/// 0.05 rad/s (below it: the weave grows, at e^1.71t); prints each run's summary row and writes
/// `<root>/target/udk/whipple_bicycle_<speed>ms.csv` and `.svg`.
pub fn self_stability_runs(root: &str) {
    let bicycle = WhippleBicycle::BENCHMARK;
    for (speed, kick, duration, name, title) in [
        (
            5.0,
            0.5,
            5.0,
            "whipple_bicycle_5ms",
            "Whipple bicycle at 5 m/s: self-stable, roll and steer decay",
        ),
        (
            3.0,
            0.05,
            3.0,
            "whipple_bicycle_3ms",
            "Whipple bicycle at 3 m/s: the weave grows",
        ),
    ] {
        let (q, qd) = bicycle.upright(speed, kick);
        // The plot shows the roll and steer angles; the CSV has every coordinate.
        let run = Showcase {
            columns: &["roll", "steer"],
            ..Showcase::new(root, name, title, &WhippleBicycle::COORDINATE_NAMES)
        };
        let report = run.run(&SimulationOptions::every(0.01), |options| {
            simulate_lagrangian(&bicycle, &q, &qd, 0.0, duration, options)
        });
        println!("{report}");
    }
}

fn main() {
    println!("{}", Summary::header());
    self_stability_runs(env!("CARGO_MANIFEST_DIR"));
}
