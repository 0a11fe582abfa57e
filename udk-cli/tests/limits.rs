//! Very long and very deep expressions: a long sum derives, one nested beyond
//! `udk_symbolic::limits` is one line of error with its position and exit code 2, never a
//! crash.

mod common;

use common::udk;

/// A model of one coordinate whose potential is `potential`, written to a temporary file.
fn model_with_potential(potential: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.toml");
    let text = format!(
        "name = \"Long\"\ncoordinates = [\"x\"]\nparameters = [{{ name = \"m\", value = 2.0 }}]\n\
         lagrangian = \"0.5 * m * dot(x).powi(2) - ({potential})\"\n"
    );
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// `udk derive` of `path`, expected to fail with code 2: its one line of standard error.
fn derive_fails(path: &std::path::Path) -> String {
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
    let output = udk()
        .arg("derive")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    let sheet = String::from_utf8(output.stdout).unwrap();
    // Q = −Σ cos(x + k): every one of the 100,000 terms is there.
    assert!(sheet.contains("cos(100000 + x)"), "{}", &sheet[..2000]);
    assert!(sheet.contains("cos(54321 + x)"));
}

#[test]
fn methods_chained_4000_deep_derive_within_the_limit() {
    // sin∘sin∘…∘sin (4000 times): a DAG 4000 deep, differentiated and printed recursively.
    let chained = format!("x{}", ".sin()".repeat(4000));
    let (_dir, path) = model_with_potential(&chained);
    let output = udk()
        .arg("derive")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    let sheet = String::from_utf8(output.stdout).unwrap();
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
