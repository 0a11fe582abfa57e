//! Repeated structure (`udk_symbolic::repeat`): a model written with a `[[repeat]]` block,
//! indexed names and sums derives exactly as the same model written out by hand, and every
//! misuse is an error at its culprit.

use std::borrow::Cow;
use udk_symbolic::emit::equations_text;
use udk_symbolic::repeat::expand;
use udk_symbolic::{derive, ModelSpec};

fn spec(text: &str) -> ModelSpec {
    toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
}

/// A chain of `n` point masses on springs between two walls, in the given form.
fn chain(n: usize, repeated: bool) -> ModelSpec {
    let head = r#"
name = "Chain"
parameters = [{ name = "m" }, { name = "k" }, { name = "c" }]
"#;
    if repeated {
        spec(&format!(
            r#"{head}
definitions = [{{ name = "wall", value = "0.0" }}]
lagrangian = "(0..{n}).map(|i| 0.5 * m * (i + 1.0) * dot(x[i]).powi(2)).sum() - energy"
nonholonomic = ["dot(x[0]) + dot(x[{last}]) * c"]

[[repeat]]
index = "i"
range = "0..{n}"
coordinates = ["x[i]"]
definitions = [{{ name = "stretch[i]", value = "x[i] - x[(i + {n} - 1) % {n}]" }}]
outputs = [{{ name = "gap[i]", value = "stretch[i] + wall" }}]

[[repeat]]
index = "j"
range = "0..=0"
definitions = [{{ name = "energy", value = "(0..{n}).map(|i| 0.5 * k * stretch[i].powi(2)).sum()" }}]
"#,
            last = n - 1
        ))
    } else {
        let coordinates: Vec<String> = (0..n).map(|i| format!("\"x_{i}\"")).collect();
        let kinetic: Vec<String> = (0..n)
            .map(|i| format!("(0.5 * m * ({i}.0 + 1.0) * dot(x_{i}).powi(2))", i = i))
            .collect();
        let mut definitions = vec![r#"{ name = "wall", value = "0.0" }"#.to_string()];
        for i in 0..n {
            // x[i − 1], wrapping round: the last mass pulls the first.
            let previous = (i + n - 1) % n;
            definitions.push(format!(
                r#"{{ name = "stretch_{i}", value = "x_{i} - x_{previous}" }}"#
            ));
        }
        let potential: Vec<String> = (0..n)
            .map(|i| format!("(0.5 * k * stretch_{i}.powi(2))"))
            .collect();
        definitions.push(format!(
            r#"{{ name = "energy", value = "{}" }}"#,
            potential.join(" + ")
        ));
        let outputs: Vec<String> = (0..n)
            .map(|i| format!(r#"{{ name = "gap_{i}", value = "stretch_{i} + wall" }}"#))
            .collect();
        spec(&format!(
            r#"{head}
coordinates = [{}]
definitions = [{}]
lagrangian = "{} - energy"
nonholonomic = ["dot(x_0) + dot(x_{last}) * c"]
outputs = [{}]
"#,
            coordinates.join(", "),
            definitions.join(", "),
            kinetic.join(" + "),
            outputs.join(", "),
            last = n - 1
        ))
    }
}

#[test]
fn a_repeated_model_derives_as_the_model_written_out() {
    for n in [1, 2, 5] {
        let repeated = derive(&chain(n, true)).unwrap_or_else(|e| panic!("{e:?}"));
        let by_hand = derive(&chain(n, false)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(repeated.coordinates, by_hand.coordinates);
        assert_eq!(repeated.output_columns(), by_hand.output_columns());
        assert_eq!(
            equations_text(&repeated),
            equations_text(&by_hand),
            "n = {n}"
        );
    }
    let d = derive(&chain(3, true)).unwrap();
    assert_eq!(d.coordinates, ["x_0", "x_1", "x_2"]);
    assert_eq!(d.output_columns(), ["gap_0", "gap_1", "gap_2"]);
}

#[test]
fn a_spec_with_nothing_to_expand_is_borrowed_and_a_sum_outside_a_block_is_expanded() {
    let plain = spec(
        r#"
name = "Plain"
coordinates = ["x_0", "x_1"]
parameters = [{ name = "m" }]
lagrangian = "0.5 * m * dot(x_0).powi(2) + 0.5 * m * dot(x_1).powi(2) - x_0 * x_1"
"#,
    );
    assert!(matches!(expand(&plain), Ok(Cow::Borrowed(_))));
    // No block, but a sum and an indexed name in the Lagrangian: rewritten.
    let summed = spec(
        r#"
name = "Plain"
coordinates = ["x_0", "x_1"]
parameters = [{ name = "m" }]
lagrangian = "(0..2).map(|i| 0.5 * m * dot(x[i]).powi(2)).sum() - x[0] * x_1"
"#,
    );
    let Ok(Cow::Owned(expanded)) = expand(&summed) else {
        panic!("the sum is expanded into a copy");
    };
    assert_eq!(
        equations_text(&derive(&expanded).unwrap()),
        equations_text(&derive(&plain).unwrap())
    );
    assert_eq!(
        equations_text(&derive(&summed).unwrap()),
        equations_text(&derive(&plain).unwrap())
    );
}

/// The messages of `text`'s derivation errors.
fn errors(text: &str) -> Vec<String> {
    match derive(&spec(text)) {
        Ok(_) => panic!("expected errors"),
        Err(errors) => errors.0.iter().map(|e| e.message.clone()).collect(),
    }
}

#[test]
fn misuse_is_an_error_at_the_culprit() {
    let base = r#"
name = "Bad"
coordinates = ["y"]
lagrangian = "0.5 * dot(y).powi(2) + LOAD"
"#;
    let with = |load: &str, block: &str| format!("{}\n{block}", base.replace("LOAD", load));
    // An instance that names what no instance defines: the message names it, x_3.
    let found = errors(&with(
        "(0..3).map(|i| x[i + 1]).sum()",
        "[[repeat]]\nindex = \"i\"\nrange = \"0..3\"\ndefinitions = [{ name = \"x[i]\", value = \"y * i\" }]",
    ));
    assert!(found.iter().any(|m| m.contains("x_3")), "{found:?}");
    // An index that is not an integer expression of the loop variables.
    let found = errors(&with("(0..2).map(|i| z[i / 2.0]).sum()", ""));
    assert!(
        found.iter().any(
            |m| m.contains("an index or range bound must be an integer expression")
                && m.contains("loop variables (i)")
        ),
        "{found:?}"
    );
    // A negative index.
    let found = errors(&with("z[1 - 2]", ""));
    assert!(
        found.iter().any(|m| m.contains("indices start at 0")),
        "{found:?}"
    );
    // A sum of another form.
    let found = errors(&with("(0..2).sum()", ""));
    assert!(
        found
            .iter()
            .any(|m| m.contains("(start..end).map(|i| EXPR).sum()")),
        "{found:?}"
    );
    // A name that is not a name.
    let found = errors(&with(
        "0.0",
        "[[repeat]]\nindex = \"i\"\nrange = \"0..2\"\ncoordinates = [\"2.0 * q[i]\"]",
    ));
    assert!(
        found.iter().any(|m| m.contains("expected a name")),
        "{found:?}"
    );
    // Bounded: a nest of sums beyond MAX_INSTANCES stops at the bound, with an error.
    let found = errors(&with(
        "(0..1000).map(|i| (0..1000).map(|j| y).sum()).sum()",
        "",
    ));
    assert!(
        found
            .iter()
            .any(|m| m.contains("more than 100000 instances")),
        "{found:?}"
    );
    // A range that is not a range.
    let found = errors(&with(
        "0.0",
        "[[repeat]]\nindex = \"i\"\nrange = \"6\"\nholonomic = [\"y\"]",
    ));
    assert!(
        found
            .iter()
            .any(|m| m.contains("expected a range of integers")),
        "{found:?}"
    );
}
