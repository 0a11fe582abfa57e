//! Each bad input gives its error, at the span of its culprit (line and column within the
//! expression's text, as `proc-macro2`'s span locations report them), and all are collected.

mod core_support;

use core_support::model;
use udk_symbolic::derive;

/// The errors of a model as (message, line, column) of each span's start.
fn errors(toml_text: &str) -> Vec<(String, usize, usize)> {
    let errors = derive(&model(toml_text)).expect_err("the model has errors");
    errors
        .0
        .iter()
        .map(|e| {
            let start = e.span.start();
            (e.message.clone(), start.line, start.column)
        })
        .collect()
}

/// A one-coordinate model with parameters m and k and the given extra TOML lines.
fn spring(lagrangian: &str, extra: &str) -> String {
    format!(
        r#"
        name = "Spring"
        coordinates = ["x"]
        parameters = [{{ name = "m" }}, {{ name = "k" }}]
        lagrangian = "{lagrangian}"
        {extra}
        "#
    )
}

/// Asserts exactly one error, containing `needle`, starting at column `column` of line 1.
fn assert_one(found: &[(String, usize, usize)], needle: &str, column: usize) {
    assert_eq!(found.len(), 1, "expected one error, got {found:?}");
    let (message, line, col) = &found[0];
    assert!(message.contains(needle), "`{message}` lacks `{needle}`");
    assert_eq!((*line, *col), (1, column), "span of `{message}`");
}

#[test]
fn unknown_identifier() {
    //         0123456789012345678901234567
    let l = "0.5 * m * dot(x).powi(2) - c * x";
    assert_one(&errors(&spring(l, "")), "unknown identifier `c`", 27);
}

#[test]
fn unknown_function() {
    let l = "0.5 * m * dot(x).powi(2) - k * cosh2(x)";
    assert_one(&errors(&spring(l, "")), "unknown function `cosh2`", 31);
    let l = "0.5 * m * dot(x).powi(2) - k * x.square()";
    assert_one(&errors(&spring(l, "")), "unknown function `square`", 33);
}

#[test]
fn wrong_argument_count() {
    let l = "0.5 * m * dot(x).powi(2) - k * atan2(x)";
    assert_one(&errors(&spring(l, "")), "`atan2` takes 2 arguments", 31);
    let l = "0.5 * m * dot(x).powi(2) - k * x.sin(x)";
    assert_one(&errors(&spring(l, "")), "`sin` takes 1 argument", 31);
    // With two arguments `dot` is the dot product of two 3-vectors.
    let l = "0.5 * m * dot(x, x).powi(2)";
    assert_eq!(
        errors(&spring(l, "")),
        [
            (
                "`dot` takes a 3-vector here, found a scalar".to_owned(),
                1,
                14
            ),
            (
                "`dot` takes a 3-vector here, found a scalar".to_owned(),
                1,
                17
            )
        ]
    );
}

#[test]
fn dot_of_a_parameter() {
    let l = "0.5 * m * dot(m).powi(2)";
    assert_one(&errors(&spring(l, "")), "`m` is a parameter", 14);
    // `dot` of an expression of q and t is its time derivative; of one with q̇ it is an error.
    let l = "0.5 * m * dot(2 * dot(x)).powi(2)";
    assert_one(
        &errors(&spring(l, "")),
        "this one depends on the generalized velocities",
        14,
    );
}

#[test]
fn unsupported_syntax() {
    let l = "0.5 * m * dot(x).powi(2) - k * (x % 2)";
    assert_one(&errors(&spring(l, "")), "unsupported operator", 34);
    let l = "0.5 * m * dot(x).powi(2) - k * [x][0]";
    assert_one(&errors(&spring(l, "")), "unsupported syntax", 31);
    let l = "0.5 * m * dot(x).powi(2) - k * x.powi(0.5)";
    assert_one(&errors(&spring(l, "")), "integer exponent", 38);
}

#[test]
fn undefined_constants_are_errors_at_their_culprit() {
    // (message, L, column): division by a constant 0 points at the divisor; a function of
    // constants that is undefined or infinite points at the call; columns count from 0.
    let cases = [
        (
            "division by zero",
            "0.5 * m * dot(x).powi(2) + (0.0 / 0.0) * x",
            34,
        ),
        (
            "division by zero",
            "0.5 * m * dot(x).powi(2) - x.powi(2) / 0",
            39,
        ),
        (
            "division by zero",
            "0.5 * m * dot(x).powi(2) - x / (1.5 - 3 / 2)",
            31,
        ),
        ("infinite", "0.5 * m * dot(x).powi(2) - (0.0).ln() * x", 27),
        (
            "undefined (NaN)",
            "0.5 * m * dot(x).powi(2) - (-1.0).sqrt() * x",
            27,
        ),
        (
            "infinite",
            "0.5 * m * dot(x).powi(2) - k * (0.0).powi(-1) * x",
            31,
        ),
        (
            "undefined (NaN)",
            "0.5 * m * dot(x).powi(2) - asin(2) * x",
            27,
        ),
        ("infinite", "0.5 * m * dot(x).powi(2) - exp(1000.5) * x", 27),
        (
            "not finite",
            "0.5 * m * dot(x).powi(2) - 1e300 * 1e300 * x",
            27,
        ),
    ];
    for (needle, l, column) in cases {
        assert_one(&errors(&spring(l, "")), needle, column);
    }
}

#[test]
fn defined_functions_of_constants_are_kept() {
    // sin 1, ln 2 and 2^0.5 do not fold exactly, and are finite: no error.
    let l = "0.5 * m * dot(x).powi(2) - (1.0).sin() * (2.0).ln() * x.powf(0.5) * 2.0.sqrt()";
    derive(&model(&spring(l, ""))).expect("finite constants are fine");
}

#[test]
fn all_errors_are_collected() {
    let l = "0.5 * m * dot(y).powi(2) - k * foo(x) + atan2(x)";
    let found = errors(&spring(l, r#"holonomic = ["x - dot(x)"]"#));
    let columns: Vec<(usize, usize)> = found.iter().map(|e| (e.1, e.2)).collect();
    assert_eq!(columns, [(1, 14), (1, 31), (1, 40), (1, 4)], "{found:?}");
    assert!(found[3]
        .0
        .contains("cannot appear in a holonomic constraint"));
}

#[test]
fn lagrangian_not_quadratic_in_velocities() {
    let l = "0.25 * m * dot(x).powi(4) - k * x";
    assert_one(&errors(&spring(l, "")), "not quadratic", 0);
}

#[test]
fn constraint_without_coordinates() {
    let found = errors(&spring(
        "0.5 * m * dot(x).powi(2)",
        r#"holonomic = ["m - 1"]"#,
    ));
    assert_one(&found, "depends on no generalized coordinate", 0);
    let found = errors(&spring(
        "0.5 * m * dot(x).powi(2)",
        r#"nonholonomic = ["x - t"]"#,
    ));
    assert_one(&found, "no generalized velocity", 0);
}

#[test]
fn spec_errors() {
    let found = errors(&spring(
        "0.5 * m * dot(x).powi(2)",
        r#"hamiltonian = "x"
        momenta = ["p"]"#,
    ));
    assert!(found.iter().any(|e| e.0.contains("not both")), "{found:?}");

    let found = errors(
        r#"
        name = "Bad"
        coordinates = ["x", "y", "x", "t"]
        parameters = [{ name = "y" }]
        lagrangian = "dot(x).powi(2)"
        forces = ["x"]
        constraints = ["x"]
        "#,
    );
    let messages: Vec<&str> = found.iter().map(|e| e.0.as_str()).collect();
    for needle in [
        "`forces` has 1 entries",
        "`constraints` φ(q, p, t) belong to Hamiltonian models",
        "`x` is already a coordinate",
        "`t` is reserved",
        "`y` is already a coordinate",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(needle)),
            "{needle}: {messages:?}"
        );
    }

    let found = errors(
        r#"
        name = "BadH"
        coordinates = ["x", "y"]
        momenta = ["p"]
        hamiltonian = "p.powi(2) + dot(x)"
        nonholonomic = ["dot(x)"]
        "#,
    );
    let messages: Vec<&str> = found.iter().map(|e| e.0.as_str()).collect();
    for needle in [
        "one momentum per coordinate (2), got 1",
        "takes no `nonholonomic`",
        "cannot appear in the Hamiltonian",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(needle)),
            "{needle}: {messages:?}"
        );
    }
}

#[test]
fn momentum_outside_hamiltonian_expressions() {
    let found = errors(
        r#"
        name = "P"
        coordinates = ["x"]
        momenta = ["p"]
        hamiltonian = "p.powi(2)"
        holonomic = ["x + p"]
        "#,
    );
    assert_one(
        &found,
        "momentum `p` cannot appear in a holonomic constraint",
        4,
    );
}

#[test]
fn hamiltonian_constraint_without_momentum() {
    let found = errors(
        r#"
        name = "P"
        coordinates = ["x", "y"]
        momenta = ["px", "py"]
        hamiltonian = "px.powi(2) + py.powi(2)"
        constraints = ["x * py", "x - y", "t"]
        "#,
    );
    let summary: Vec<(&str, usize)> = found.iter().map(|e| (e.0.as_str(), e.2)).collect();
    assert_eq!(found.len(), 2, "{summary:?}");
    assert!(found[0].0.contains("has no momentum") && found[0].2 == 0);
    assert!(found[1]
        .0
        .contains("depends on no generalized coordinate or momentum"));
}

#[test]
fn powers_say_which_was_meant() {
    //         0123456789012345678901234567890123456
    let l = "0.5 * m * dot(x).powi(2.0) - k * x.powf(3)";
    let found = errors(&spring(l, ""));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0]
        .0
        .contains("`powi` takes an integer exponent: write `powi(2)`, or `powf(2.0)`"));
    assert_eq!((found[0].1, found[0].2), (1, 22));
    assert!(found[1]
        .0
        .contains("`powf` takes a real exponent, as in Rust: write `powf(3.0)`, or `powi(3)`"));
    assert_eq!((found[1].1, found[1].2), (1, 40));
    let l = "0.5 * m * dot(x).powi(2) - k * x ^ 2";
    assert_one(
        &errors(&spring(l, "")),
        "`^` is exclusive or in Rust: write a power as `x.powi(2)`",
        33,
    );
}
