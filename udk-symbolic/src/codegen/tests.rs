//! Snapshots (insta) of whole expansions, as `UDK_EXPAND_DIR` and `udk expand` write them:
//! review a change of the generated code with `cargo insta review`.

use super::expand;
use crate::models::pendulum_chain_cartesian;
use crate::spec::{ModelSpec, Parameter};

#[test]
fn expansion_of_the_cartesian_pendulum() {
    insta::assert_snapshot!(expand(&pendulum_chain_cartesian(1)).unwrap());
}

#[test]
fn expansion_of_the_hamiltonian_spherical_pendulum() {
    let spec = ModelSpec {
        name: "SphericalPendulum".into(),
        coordinates: ["x", "y", "z"].iter().map(|c| c.parse().unwrap()).collect(),
        momenta: ["px", "py", "pz"]
            .iter()
            .map(|p| p.parse().unwrap())
            .collect(),
        parameters: ["m", "g"]
            .iter()
            .map(|p| Parameter {
                name: p.parse().unwrap(),
                value: None,
            })
            .collect(),
        hamiltonian: Some(
            "(px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m) - m * g * z"
                .parse()
                .unwrap(),
        ),
        constraints: vec!["x * px + y * py + z * pz".parse().unwrap()],
        ..ModelSpec::default()
    };
    insta::assert_snapshot!(expand(&spec).unwrap());
}
