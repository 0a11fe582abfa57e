//! A hexapod's six legs on a body held still, written once with a `for` block: leg i hangs
//! from the hip at 60°·i on a circle of radius `r` and has three joints, the coxa (yaw about
//! the body's z axis), the femur and the tibia (pitch), each link a slender rod. The block
//! makes the 18 coordinates `coxa_i`, `femur_i`, `tibia_i`, the leg's frames and points, and
//! one output per foot; the Lagrangian sums the legs' kinetic and potential energies.
//!
//! `HexapodLeg` is one leg written by hand, mounted at 0°: by the symmetry of the body about
//! its z axis, every leg of the hexapod moves as it does.
//!
//! Run with `cargo run --example hexapod_legs`.

use udk::lagrangian;
use udk::nalgebra::{SVector, Vector3};

/// Six legs: links of lengths `lc`, `lf`, `lt` (m) and masses `mc`, `mf`, `mt` (kg) on hips at
/// radius `r` (m), gravity `g` (m/s², along −z).
#[lagrangian(
    for i in 0..6 {
        coordinates(coxa[i], femur[i], tibia[i]),
        let yaw[i] = rot_z(PI / 3.0 * i + coxa[i]),
        let thigh[i] = yaw[i] * rot_y(femur[i]),
        let shank[i] = thigh[i] * rot_y(tibia[i]),
        let hip[i] = r * vec3((PI / 3.0 * i).cos(), (PI / 3.0 * i).sin(), 0.0),
        let knee[i] = hip[i] + lc * (yaw[i] * vec3(1.0, 0.0, 0.0)),
        let ankle[i] = knee[i] + lf * (thigh[i] * vec3(1.0, 0.0, 0.0)),
        let energy[i] = kinetic_energy(mc, mc * lc.powi(2) / 12.0 * diag(0.01, 1.0, 1.0), 0.5 * (hip[i] + knee[i]), yaw[i])
            + kinetic_energy(mf, mf * lf.powi(2) / 12.0 * diag(0.01, 1.0, 1.0), 0.5 * (knee[i] + ankle[i]), thigh[i])
            + kinetic_energy(mt, mt * lt.powi(2) / 12.0 * diag(0.01, 1.0, 1.0), ankle[i] + 0.5 * lt * (shank[i] * vec3(1.0, 0.0, 0.0)), shank[i])
            - g * (mc * 0.5 * (hip[i] + knee[i]).z() + mf * 0.5 * (knee[i] + ankle[i]).z()
                + mt * (ankle[i] + 0.5 * lt * (shank[i] * vec3(1.0, 0.0, 0.0))).z()),
        outputs(foot[i] = ankle[i] + lt * (shank[i] * vec3(1.0, 0.0, 0.0))),
    },
    lagrangian = (0..6).map(|i| energy[i]).sum(),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hexapod {
    pub r: f64,
    pub lc: f64,
    pub lf: f64,
    pub lt: f64,
    pub mc: f64,
    pub mf: f64,
    pub mt: f64,
    pub g: f64,
}

/// One leg of [`Hexapod`], written out, its hip at (r, 0, 0).
#[lagrangian(
    coordinates(coxa, femur, tibia),
    let yaw = rot_z(coxa),
    let thigh = yaw * rot_y(femur),
    let shank = thigh * rot_y(tibia),
    let hip = vec3(r, 0.0, 0.0),
    let knee = hip + lc * (yaw * vec3(1.0, 0.0, 0.0)),
    let ankle = knee + lf * (thigh * vec3(1.0, 0.0, 0.0)),
    let toe = ankle + lt * (shank * vec3(1.0, 0.0, 0.0)),
    lagrangian = kinetic_energy(mc, mc * lc.powi(2) / 12.0 * diag(0.01, 1.0, 1.0), 0.5 * (hip + knee), yaw)
        + kinetic_energy(mf, mf * lf.powi(2) / 12.0 * diag(0.01, 1.0, 1.0), 0.5 * (knee + ankle), thigh)
        + kinetic_energy(mt, mt * lt.powi(2) / 12.0 * diag(0.01, 1.0, 1.0), 0.5 * (ankle + toe), shank)
        - g * (mc * 0.5 * (hip + knee).z() + mf * 0.5 * (knee + ankle).z() + mt * 0.5 * (ankle + toe).z()),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HexapodLeg {
    pub r: f64,
    pub lc: f64,
    pub lf: f64,
    pub lt: f64,
    pub mc: f64,
    pub mf: f64,
    pub mt: f64,
    pub g: f64,
}

impl Hexapod {
    /// A small walking robot: 0.12 m hips, legs of 5, 8 and 12 cm.
    pub const EXAMPLE: Self = Self {
        r: 0.12,
        lc: 0.05,
        lf: 0.08,
        lt: 0.12,
        mc: 0.05,
        mf: 0.08,
        mt: 0.06,
        g: 9.81,
    };

    /// One of its legs, written by hand.
    pub fn leg(&self) -> HexapodLeg {
        HexapodLeg {
            r: self.r,
            lc: self.lc,
            lf: self.lf,
            lt: self.lt,
            mc: self.mc,
            mf: self.mf,
            mt: self.mt,
            g: self.g,
        }
    }
}

fn main() -> Result<(), udk::Error> {
    let hexapod = Hexapod::EXAMPLE;
    // Every leg at coxa 0.1, femur −0.4, tibia 1.2 rad, at rest.
    let q = SVector::<f64, 18>::from_fn(|k, _| [0.1, -0.4, 1.2][k % 3]);
    let qdd = hexapod.acceleration(&q, &SVector::zeros(), 0.0)?;
    let leg = hexapod
        .leg()
        .acceleration(&Vector3::new(0.1, -0.4, 1.2), &Vector3::zeros(), 0.0)?;
    println!(
        "leg 3 of the hexapod: {}",
        qdd.fixed_rows::<3>(9).transpose()
    );
    println!("the leg alone:        {}", leg.transpose());
    Ok(())
}
