//! What the tests and the timing example share: a model derived from its file.

use std::path::Path;
use udk_symbolic::urdf::UrdfSource;
use udk_symbolic::{Derivation, Jacobians, ModelSpec};

/// The derivation of a model file (TOML, its URDF relative to it) or of a URDF robot with the
/// default options.
#[allow(dead_code)] // not used by the timing example
pub fn derive(path: &Path) -> Derivation {
    derive_with(path, Jacobians::Now)
}

/// [`derive`] with the residual Jacobians formed as `jacobians` says.
pub fn derive_with(path: &Path, jacobians: Jacobians) -> Derivation {
    let mut spec: ModelSpec = if path.extension().is_some_and(|e| e == "urdf") {
        ModelSpec {
            name: "Robot".into(),
            urdf: Some(UrdfSource::new(path.file_name().unwrap().to_string_lossy())),
            ..ModelSpec::default()
        }
    } else {
        toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    udk_symbolic::limits::on_large_stack(|| {
        udk_symbolic::urdf::expand(&mut spec, path.parent().unwrap()).unwrap();
        udk_symbolic::derive_with(&spec, jacobians)
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
    })
}
