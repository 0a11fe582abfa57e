//! The equation sheets of a model with definitions: the definitions first, each in terms of
//! the ones before it, then the entries with a definition's name where it is shorter.

mod core_support;

use core_support::model;
use udk_symbolic::derive;
use udk_symbolic::emit::{equations_latex, equations_text};

const MODEL: &str = r#"
    name = "Bead"
    coordinates = ["x"]
    parameters = [{ name = "m" }, { name = "k" }]
    definitions = [
        { name = "base", value = "x.cos() + 2.0" },
        { name = "shape", value = "x.sin() * x.cos() + x.powi(3)" },
        { name = "lift", value = "vec3(x, shape, x.cos() + 2.0)" },
    ]
    lagrangian = "0.5 * m * dot(x).powi(2) - k * shape.exp()"
    outputs = [{ name = "height", value = "lift.y()" }]
"#;

#[test]
fn definitions_come_first_and_name_their_values_in_the_entries() {
    let d = derive(&model(MODEL)).unwrap();
    let text = equations_text(&d);
    let lines: Vec<&str> = text.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line `{prefix}` in\n{text}"))
    };
    // Definitions, then outputs, then the blocks.
    assert!(at("definitions:") < at("outputs:") && at("outputs:") < at("M, mass matrix"));
    // Each definition in terms of the earlier ones: `lift` names `shape` and `base`,
    // `shape` does not name the later `lift`.
    assert_eq!(lines[at("  lift = ")], "  lift = vec3(x, shape, base)");
    assert!(!lines[at("  shape = ")].contains("lift"));
    // The generalized force −k exp(shape) shape′ names `shape` inside exp.
    let force = lines[at("  Q[1] = ")];
    assert!(force.contains("exp(shape)"), "{force}");
    // An output in terms of every definition.
    assert_eq!(lines[at("  height = ")], "  height = shape");
    // LaTeX names them too.
    let latex = equations_latex(&d);
    assert!(
        latex.contains("\\exp\\left(\\mathrm{shape}\\right)") || latex.contains("\\mathrm{shape}"),
        "{latex}"
    );
}
