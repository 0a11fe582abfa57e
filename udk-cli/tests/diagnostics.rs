//! `udk derive` on an undefined constant (exit 2, one line with its position) and on a
//! coordinate whose acceleration nothing determines (a warning line, exit 0).

mod common;

use common::udk;

/// A one-coordinate-or-more model file with `coordinates` and L, in a temporary directory.
fn model(coordinates: &str, lagrangian: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.toml");
    let text = format!(
        "name = \"M\"\ncoordinates = [{coordinates}]\n\
         parameters = [{{ name = \"m\", value = 2.0 }}]\nlagrangian = \"{lagrangian}\"\n"
    );
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn zero_over_zero_is_an_error_at_the_divisor() {
    // `lagrangian = "` is 14 characters: column 35 of L is column 49 of the file.
    let (_dir, path) = model(r#""x""#, "0.5 * m * dot(x).powi(2) - (0.0 / 0.0) * x");
    let output = udk()
        .arg("derive")
        .arg(&path)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        err.trim_end(),
        format!(
            "udk: error: {}:4:49: division by zero: this divisor is the constant 0 \
             (in `lagrangian`, column 35)",
            path.display()
        )
    );
}

#[test]
fn an_undetermined_coordinate_is_a_warning() {
    let l = "0.5 * m * dot(theta).powi(2) - m * theta.cos()";
    let (_dir, path) = model(r#""theta", "x""#, l);
    let output = udk()
        .arg("derive")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8(output.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "udk: warning: {}: the acceleration of coordinate `x`",
            path.display()
        )),
        "{err}"
    );
    assert!(!output.stdout.is_empty(), "the equations are printed");
}
