//! Compile-time errors of `#[lagrangian]` and `#[hamiltonian]`: each case in `tests/ui/` must fail
//! to compile with the message of its `.stderr`, pointing at the culprit.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p udk-macros --test ui`,
//! then review them.

use std::path::Path;

#[test]
fn compile_errors_point_at_the_culprit() {
    copy_urdf_files();
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

/// trybuild compiles the cases as a crate of its own, in `<target>/tests/trybuild/udk-macros/`,
/// which is then their `CARGO_MANIFEST_DIR`: the URDF files they name (relative to it, as
/// `#[lagrangian(urdf = "..")]` reads them) are copied there.
fn copy_urdf_files() {
    let project = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../tests/trybuild/udk-macros");
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let target = project.join("tests/ui");
    std::fs::create_dir_all(&target).expect("the trybuild project directory");
    for entry in std::fs::read_dir(&cases).expect("tests/ui") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "urdf") {
            let name = path.file_name().expect("a file name");
            std::fs::copy(&path, target.join(name)).expect("the URDF file is copied");
        }
    }
}
