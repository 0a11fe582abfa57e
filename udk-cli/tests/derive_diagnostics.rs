//! What `udk derive` says about hard models: a long sum derives; an expression nested or
//! sized beyond `udk_symbolic::limits`, or an undefined constant, is one line of error with its
//! position and exit code 2, never a crash; a coordinate whose acceleration nothing determines
//! is a warning line.

mod common;

use common::udk;
use std::path::{Path, PathBuf};

/// A model file with `coordinates` (TOML strings) and L, in a temporary directory.
fn model(coordinates: &str, lagrangian: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.toml");
    let text = format!(
        "name = \"M\"\ncoordinates = [{coordinates}]\n\
         parameters = [{{ name = \"m\", value = 2.0 }}]\nlagrangian = \"{lagrangian}\"\n"
    );
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// A model of the one coordinate x whose potential is `potential`.
fn model_with_potential(potential: &str) -> (tempfile::TempDir, PathBuf) {
    model(
        r#""x""#,
        &format!("0.5 * m * dot(x).powi(2) - ({potential})"),
    )
}

/// `udk derive` of `path`, expected to succeed: (standard output, standard error).
fn derives(path: &Path) -> (String, String) {
    let output = udk()
        .arg("derive")
        .arg(path)
        .assert()
        .success()
        .get_output()
        .clone();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (text(output.stdout), text(output.stderr))
}

/// `udk derive` of `path`, expected to fail with code 2: its one line of standard error.
fn derive_fails(path: &Path) -> String {
    let output = udk()
        .arg("derive")
        .arg(path)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(output.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn a_sum_of_100000_terms_derives() {
    let terms: Vec<String> = (1..=100_000).map(|k| format!("(x + {k}).sin()")).collect();
    let (_dir, path) = model_with_potential(&terms.join(" + "));
    let (sheet, _) = derives(&path);
    // Q = −Σ cos(x + k): every one of the 100,000 terms is there.
    assert!(sheet.contains("cos(100000 + x)"), "{}", &sheet[..2000]);
    assert!(sheet.contains("cos(54321 + x)"));
}

#[test]
fn methods_chained_4000_deep_derive_within_the_limit() {
    // sin∘sin∘…∘sin (4000 times): a DAG 4000 deep, differentiated and printed recursively.
    let chained = format!("x{}", ".sin()".repeat(4000));
    let (_dir, path) = model_with_potential(&chained);
    let (sheet, _) = derives(&path);
    assert!(sheet.contains("Q[1] = "), "{}", &sheet[..500]);
    // Q = −V′(x) = −Π cos(sinᵏ x): 4000 cosines.
    assert_eq!(sheet.matches("cos(").count(), 4000);
}

#[test]
fn parentheses_nested_5000_deep_are_one_line_of_error() {
    let nested = format!("{}x{}", "(".repeat(5000), ")".repeat(5000));
    let (_dir, path) = model_with_potential(&nested);
    let err = derive_fails(&path);
    assert!(err.contains("nested too deeply"), "{err}");
    assert!(err.contains(&format!("{}:4:", path.display())), "{err}");
}

#[test]
fn methods_chained_5000_deep_are_one_line_of_error() {
    let chained = format!("x{}", ".sin()".repeat(5000));
    let (_dir, path) = model_with_potential(&chained);
    let err = derive_fails(&path);
    assert!(err.contains("nested too deeply"), "{err}");
    assert!(err.contains("(in `lagrangian`, column"), "{err}");
}

#[test]
fn a_10_mb_expression_is_one_line_of_error() {
    let huge = "x+".repeat(5_000_000);
    let huge = huge.trim_end_matches('+');
    let (_dir, path) = model_with_potential(huge);
    let err = derive_fails(&path);
    assert!(err.contains("expression too large"), "{err}");
    assert!(err.contains("more than 4194304"), "{err}");
    assert!(
        err.len() < 500,
        "the message quotes an excerpt, not the file: {err}"
    );
}

#[test]
fn zero_over_zero_is_an_error_at_the_divisor() {
    // `lagrangian = "` is 14 characters: column 35 of L is column 49 of the file.
    let (_dir, path) = model(r#""x""#, "0.5 * m * dot(x).powi(2) - (0.0 / 0.0) * x");
    let err = derive_fails(&path);
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
    let (sheet, err) = derives(&path);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "udk: warning: {}: the acceleration of coordinate `x`",
            path.display()
        )),
        "{err}"
    );
    assert!(
        sheet.contains("M[1,1] = m"),
        "the equations are printed: {sheet}"
    );
}

/// A model file whose URDF file has a joint with an unknown parent link: one line naming the
/// model file, the URDF file, the joint and its line.
#[test]
fn a_urdf_error_names_the_file_element_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let urdf = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/urdf/double_pendulum.urdf"
    );
    let text = std::fs::read_to_string(urdf).unwrap();
    let broken = text.replacen(r#"<parent link="upper"/>"#, r#"<parent link="uper"/>"#, 1);
    std::fs::write(dir.path().join("robot.urdf"), broken).unwrap();
    let path = dir.path().join("robot.toml");
    std::fs::write(&path, "name = \"Robot\"\nurdf = \"robot.urdf\"\n").unwrap();
    let err = derive_fails(&path);
    assert!(
        err.contains(
            r#"robot.toml: robot.urdf:28: <joint name="elbow">: the parent link `uper` is not defined"#
        ),
        "{err}"
    );
    let missing = dir.path().join("missing.toml");
    std::fs::write(&missing, "name = \"Robot\"\nurdf = \"nowhere.urdf\"\n").unwrap();
    let err = derive_fails(&missing);
    assert!(
        err.contains("nowhere.urdf: cannot read the URDF file"),
        "{err}"
    );
}
