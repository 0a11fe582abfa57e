//! Whether a model's energy is conserved (`Derivation::conserves_energy`): explicit time in L
//! or a constraint, forces, inputs and non-ideal forces each make the drift no check.

mod core_support;

use core_support::derived;

/// A mass on a spring along x with the extra TOML `lines`.
fn oscillator(lines: &str) -> udk_symbolic::Derivation {
    derived(&format!(
        r#"
        name = "Oscillator"
        coordinates = ["x", "y"]
        parameters = [{{ name = "m" }}, {{ name = "k" }}, {{ name = "c" }}]
        {lines}
        "#
    ))
}

const L: &str =
    r#"lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - 0.5 * k * x.powi(2)""#;

#[test]
fn a_free_oscillator_conserves_its_energy() {
    assert!(oscillator(L).conserves_energy(&[1.0, 2.0, 0.0], &[]));
    // A fixed constraint does no work.
    let fixed = format!("{L}\nholonomic = [\"y - 0.5 * x\"]");
    assert!(oscillator(&fixed).conserves_energy(&[1.0, 2.0, 0.0], &[]));
}

#[test]
fn time_forces_and_nonideal_forces_do_work() {
    let params = [1.0, 2.0, 0.3];
    let timed = r#"lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - 0.5 * k * (1.0 + t) * x.powi(2)""#;
    assert!(!oscillator(timed).conserves_energy(&params, &[]));
    let moving = format!("{L}\nholonomic = [\"y - t\"]");
    assert!(!oscillator(&moving).conserves_energy(&params, &[]));
    let damped = format!("{L}\nforces = [\"-c * dot(x)\", \"0.0\"]");
    assert!(!oscillator(&damped).conserves_energy(&params, &[]));
    // With c = 0 the damping vanishes.
    assert!(oscillator(&damped).conserves_energy(&[1.0, 2.0, 0.0], &[]));
    let sliding =
        format!("{L}\nholonomic = [\"y - 0.5 * x\"]\nnonideal = [\"-c * dot(x)\", \"0.0\"]");
    assert!(!oscillator(&sliding).conserves_energy(&params, &[]));
}

#[test]
fn a_driven_model_conserves_its_energy_only_with_zero_inputs() {
    let driven = format!("{L}\ninputs = [\"u\"]\nforces = [\"u\", \"0.0\"]");
    let d = oscillator(&driven);
    assert!(d.conserves_energy(&[1.0, 2.0, 0.0], &[0.0]));
    assert!(!d.conserves_energy(&[1.0, 2.0, 0.0], &[0.5]));
}
