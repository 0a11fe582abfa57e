//! The equation sheets are printouts of a DAG: over a family of URDF chains with generic joint
//! frames, their length per DAG operation they show stays bounded, in text and in LaTeX.

use udk_symbolic::expr::ExprId;
use udk_symbolic::urdf::{expand_robot, read};
use udk_symbolic::{derive, Derivation, Equations, ModelSpec};

/// A URDF chain of `n` revolute joints with generic frames: every joint origin turned by rpy
/// (0.2, −0.1, 0.3) and moved by (0.3, 0, 0.1) (the first not moved), the axes z, y, x in
/// turn, each link 1 kg with its centre of mass off the axis and a full inertia tensor. No
/// rotation entry is 0 or ±1, so no term of the dynamics vanishes.
fn generic_chain(n: usize) -> String {
    let mut urdf = String::from("<robot name=\"generic_chain\">\n  <link name=\"base\"/>\n");
    for k in 0..n {
        let axis = ["0 0 1", "0 1 0", "1 0 0"][k % 3];
        let xyz = if k == 0 { "0 0 0" } else { "0.3 0 0.1" };
        let parent = match k {
            0 => "base".to_owned(),
            _ => format!("link{}", k - 1),
        };
        urdf += &format!(
            "  <link name=\"link{k}\">\n    <inertial><origin xyz=\"0.15 0 0\"/><mass value=\"1\"/>\n      \
             <inertia ixx=\"0.02\" ixy=\"0.001\" ixz=\"-0.002\" iyy=\"0.03\" iyz=\"0.0015\" izz=\"0.025\"/>\
             </inertial>\n  </link>\n  \
             <joint name=\"j{k}\" type=\"revolute\"><parent link=\"{parent}\"/><child link=\"link{k}\"/>\n    \
             <origin xyz=\"{xyz}\" rpy=\"0.2 -0.1 0.3\"/><axis xyz=\"{axis}\"/>\n    \
             <limit lower=\"-3\" upper=\"3\" effort=\"10\" velocity=\"5\"/></joint>\n"
        );
    }
    urdf + "</robot>\n"
}

/// The model of [`generic_chain`]`(n)`, derived.
fn derived_chain(n: usize) -> Derivation {
    let mut spec: ModelSpec =
        toml::from_str("name = \"GenericChain\"\nurdf = \"generic_chain.urdf\"").unwrap();
    let source = spec.urdf.clone().unwrap();
    let robot = read(&generic_chain(n), &source).unwrap();
    expand_robot(&mut spec, robot, &source).unwrap_or_else(|e| panic!("{e}"));
    derive(&spec).unwrap_or_else(|e| panic!("{e}"))
}

/// The DAG operations a sheet of `d` shows: its definitions, outputs, and every block.
fn shown_operations(d: &Derivation) -> usize {
    let mut roots: Vec<ExprId> = (d.definitions.iter().chain(&d.outputs))
        .flat_map(|v| v.value.components().to_vec())
        .collect();
    let Equations::Lagrangian(e) = &d.equations else {
        panic!("a URDF model is Lagrangian");
    };
    for block in [
        &e.mass_matrix.entries,
        &e.generalized_force,
        &e.constraint_matrix.entries,
        &e.constraint_rhs,
        &e.nonideal_force,
    ] {
        roots.extend_from_slice(block);
    }
    d.pool.operation_count(&roots)
}

/// Bytes of sheet per DAG operation shown, for chains of 4 to 10 joints, stay under a bound
/// (measured 16–18 for text, 29–31 for LaTeX) and grow less than 1.2× from the shortest chain to
/// the longest. Before the sheets named their repeated subexpressions, a value was printed in full
/// wherever it occurred: the text sheet took 47 bytes per operation at 4 joints (112 KB),
/// 7 200 at 8 (58.5 MB), and ran out of 4 GB at 12; at 40 joints one value took more than
/// 476 MB.
#[test]
fn equation_sheets_grow_as_the_dag() {
    let mut per_operation = Vec::new();
    for n in [4, 6, 8, 10] {
        let d = derived_chain(n);
        let operations = shown_operations(&d) as f64;
        let text = udk_symbolic::emit::equations_text(&d).len() as f64 / operations;
        let latex = udk_symbolic::emit::equations_latex(&d).len() as f64 / operations;
        eprintln!("n = {n}: {operations} operations, text {text:.1}, LaTeX {latex:.1} bytes each");
        assert!(text < 30.0 && latex < 50.0, "n = {n}: {text}, {latex}");
        per_operation.push((text, latex));
    }
    let (first, last) = (per_operation[0], per_operation[per_operation.len() - 1]);
    assert!(
        last.0 < 1.2 * first.0 && last.1 < 1.2 * first.1,
        "{per_operation:?}"
    );
}
