//! The CLI on the JIT against `--interpret` (the tape): `udk eval`, `jacobian`, `linearize`
//! and `simulate` write the same bytes, bit for bit, on the example models (the JIT performs
//! the tape's IEEE operations in the same order, so no 1-ulp allowance is needed); and
//! `udk eval --states -` answers each line of standard input before the next is sent.

mod common;

use common::{model, models_dir, udk};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// The standard output of `udk <args>` with and without `--interpret`, after checking that
/// both exit with the same code and write the same standard error.
fn both(args: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let run = |interpret: bool| {
        let mut command = udk();
        command.args(args);
        if interpret {
            command.arg("--interpret");
        }
        command.output().unwrap()
    };
    let (jit, tape) = (run(false), run(true));
    assert_eq!(jit.status.code(), tape.status.code(), "udk {args:?}");
    assert_eq!(jit.stderr, tape.stderr, "udk {args:?}");
    (jit.stdout, tape.stdout)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn eval_gives_the_same_bytes_on_every_example_model() {
    let mut count = 0;
    for entry in std::fs::read_dir(models_dir()).unwrap() {
        let file = entry.unwrap().path();
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        // Models with an initial state and no inputs (a URDF robot's are its joint efforts):
        // `udk eval` needs nothing more.
        if file.extension().is_some_and(|e| e == "toml")
            && text.contains("[initial]")
            && !text.contains("inputs")
            && !text.contains("urdf")
        {
            let (jit, tape) = both(&["eval", path(&file)]);
            assert_eq!(jit, tape, "{}", file.display());
            count += usize::from(jit.starts_with(b"{"));
        }
    }
    assert!(count >= 10, "{count} models evaluated");
}

#[test]
fn jacobian_and_linearize_give_the_same_bytes() {
    for name in [
        "four_bar",
        "spherical_pendulum_lagrangian",
        "whipple_bicycle",
    ] {
        let file = model(name);
        let (jit, tape) = both(&["jacobian", path(&file)]);
        assert_eq!(jit, tape, "jacobian {name}");
    }
    let hamiltonian = model("spherical_pendulum_hamiltonian");
    let (jit, tape) = both(&["jacobian", path(&hamiltonian)]);
    assert_eq!(jit, tape, "jacobian of a Hamiltonian model");
    let cart = model("cart_double_pendulum");
    let pi = std::f64::consts::PI.to_string();
    let q = format!("0,{pi},{pi}");
    let (jit, tape) = both(&[
        "linearize",
        path(&cart),
        "--q",
        &q,
        "--qd",
        "0,0,0",
        "--u",
        "0",
    ]);
    assert_eq!(jit, tape, "linearize");
    assert!(String::from_utf8(jit).unwrap().contains("eigenvalues"));
}

#[test]
fn simulate_writes_the_same_csv() {
    let directory = tempfile::tempdir().unwrap();
    for name in ["four_bar", "constrained_double_pendulum"] {
        let csv = |interpret: bool| {
            let out = directory.path().join(format!("{name}-{interpret}.csv"));
            let mut command = udk();
            let file = model(name);
            command.args([
                "simulate",
                path(&file),
                "--t-end",
                "0.5",
                "--dt-out",
                "0.05",
            ]);
            command.args(["--out", path(&out)]);
            if interpret {
                command.arg("--interpret");
            }
            command.assert().success();
            std::fs::read(out).unwrap()
        };
        let jit = csv(false);
        assert_eq!(jit, csv(true), "{name}");
        assert_eq!(jit.iter().filter(|&&b| b == b'\n').count(), 12, "{name}");
    }
}

#[test]
fn eval_of_standard_input_answers_each_line_before_the_next() {
    let file = model("four_bar");
    let binary = assert_cmd::cargo::cargo_bin("udk");
    let mut child = Command::new(binary)
        .args(["eval", path(&file), "--states", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let states = [
        r#"{"q": [1.0, 0.6420293812808668, 1.7177185312694976], "qd": [6.0, -1.4948390447186597, 0.8959268656570865]}"#,
        r#"{"t": 0.5, "q": [1.0, 0.6420293812808668, 1.7177185312694976], "qd": [0.0, 0.0, 0.0]}"#,
    ];
    for state in states {
        // The pipe stays open: the report can only come back if it was flushed.
        writeln!(input, "{state}").unwrap();
        input.flush().unwrap();
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        let report: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(report["acceleration"].as_array().unwrap().len(), 3);
    }
    drop(input);
    let mut rest = String::new();
    assert_eq!(output.read_line(&mut rest).unwrap(), 0, "{rest}");
    assert!(child.wait().unwrap().success());
}
