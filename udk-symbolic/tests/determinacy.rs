//! Coordinates whose acceleration no equation determines: a zero column of M (structurally)
//! with a zero column of A. Parameter values that make M singular are not structural.

mod core_support;

use core_support::model;
use udk_symbolic::derive;

/// The undetermined coordinates of the wheel of Udwadia & Phohomsiri 2006 (eq 5.23) with the
/// given extra coordinate lines.
fn undetermined(coordinates: &str, lagrangian: &str, constraints: &str) -> Vec<String> {
    let text = format!(
        r#"
        name = "Wheel"
        coordinates = [{coordinates}]
        parameters = [{{ name = "m" }}, {{ name = "r" }}, {{ name = "ic" }}, {{ name = "g" }}, {{ name = "alpha" }}]
        lagrangian = "{lagrangian}"
        {constraints}
        "#
    );
    let derivation = derive(&model(&text)).expect("the model derives");
    let names = derivation.undetermined_coordinates();
    let messages = derivation.undetermined_messages();
    assert_eq!(messages.len(), names.len());
    (names.into_iter())
        .map(|i| derivation.coordinates[i].clone())
        .collect()
}

const WHEEL: &str =
    "0.5 * m * (r * dot(theta)).powi(2) + 0.5 * ic * dot(theta).powi(2) + m * g * y";
const ROLLING: &str = r#"holonomic = ["y - r * theta * alpha.sin()"]"#;

#[test]
fn the_massless_particle_is_undetermined() {
    let found = undetermined(r#""theta", "y", "x""#, WHEEL, ROLLING);
    assert_eq!(found, ["x"]);
}

#[test]
fn a_constraint_on_the_particle_determines_it() {
    let holonomic = r#"holonomic = ["y - r * theta * alpha.sin()", "x - 2 * theta"]"#;
    assert!(undetermined(r#""theta", "y", "x""#, WHEEL, holonomic).is_empty());
    let nonholonomic = r#"holonomic = ["y - r * theta * alpha.sin()"]
        nonholonomic = ["dot(x) - dot(y)"]"#;
    assert!(undetermined(r#""theta", "y", "x""#, WHEEL, nonholonomic).is_empty());
}

#[test]
fn a_mass_that_is_a_parameter_is_not_structurally_zero() {
    // y has no velocity term in L but the rolling constraint involves ÿ; the wheel alone
    // with a mass m that may be 0 at run time is not flagged either.
    assert!(undetermined(r#""theta", "y""#, WHEEL, ROLLING).is_empty());
    let l = "0.5 * m * dot(theta).powi(2) + 0.5 * ic * dot(y).powi(2)";
    assert!(undetermined(r#""theta", "y""#, l, "").is_empty());
}

#[test]
fn a_model_with_speeds_names_the_undetermined_speed() {
    // u2 drives θ alone and L has no θ̇: the rate of u2 is undetermined, and the message
    // names the speed u2, not the coordinate of the same index.
    let text = r#"
        name = "Slider"
        coordinates = ["x", "th"]
        speeds = ["u1", "u2"]
        kinematics = ["u1", "u2"]
        parameters = [{ name = "m" }]
        lagrangian = "0.5 * m * dot(x).powi(2)"
        "#;
    let derivation = derive(&model(text)).expect("the model derives");
    assert_eq!(derivation.undetermined_coordinates(), [1]);
    let messages = derivation.undetermined_messages();
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].starts_with("the rate of speed `u2` is never determined"),
        "{}",
        messages[0]
    );
}
