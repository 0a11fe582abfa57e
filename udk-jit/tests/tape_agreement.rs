//! The JIT against the tape on every example model and every robot of `robots/`: every
//! program the model tapes, the CLI and the generated code evaluate (terms, the articulated
//! path, the residual Jacobians, the monitors, the outputs), bit for bit at random states, in
//! both tiers of Cranelift's register allocation.

mod support;

use std::path::{Path, PathBuf};
use support::derive;
use udk_jit::{JitFunction, Tier};
use udk_symbolic::emit::{compile_tape, Program, TapeInputs};
use udk_symbolic::expr::ExprId;
use udk_symbolic::{Derivation, Equations};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every set of outputs compiled together somewhere, with a name.
fn programs(d: &Derivation) -> Vec<(&'static str, Vec<ExprId>)> {
    let mut all = vec![("terms", d.equations.outputs())];
    let outputs = (d.outputs.iter())
        .flat_map(|o| o.value.components().iter().copied())
        .collect();
    all.push(("outputs", outputs));
    match &d.equations {
        Equations::Lagrangian(e) => {
            all.push((
                "monitor",
                [&[e.energy][..], &e.holonomic, &e.velocity_constraints].concat(),
            ));
            if let Some(ids) = e.articulated_outputs() {
                all.push(("articulated", ids));
            }
            if let Some(j) = &e.jacobians {
                let mut ids: Vec<ExprId> = (j.residual_blocks().iter())
                    .flat_map(|(_, m)| m.entries.iter().copied())
                    .collect();
                ids.extend(&j.velocity_constraints_q.entries);
                all.push(("jacobians", ids));
            }
        }
        Equations::Hamiltonian(e) => {
            all.push((
                "monitor",
                [&[e.hamiltonian][..], &e.holonomic, &e.constraints].concat(),
            ));
            if let Some(j) = &e.jacobians {
                let ids = (j.blocks().iter())
                    .flat_map(|(_, m)| m.entries.iter().copied())
                    .collect();
                all.push(("jacobians", ids));
            }
        }
    }
    all
}

/// A deterministic stream of numbers in [−1, 1) (xorshift).
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    fn vec(&mut self, len: usize) -> Vec<f64> {
        (0..len).map(|_| self.next()).collect()
    }
}

/// Asserts that the JIT of both tiers and the tape of `ids` agree bit for bit at a few random
/// states, and returns how many native functions the JIT split the program into.
fn agree(d: &Derivation, what: &str, ids: &[ExprId]) -> usize {
    let program = Program::new(&d.pool, ids);
    let name = format!("{what} of `{}`", d.name);
    let functions = [Tier::Quick, Tier::Optimized].map(|tier| {
        let jit =
            JitFunction::from_program_in(&program, &name, tier).unwrap_or_else(|e| panic!("{e}"));
        agree_in(d, &format!("{what} ({tier:?})"), ids, &jit);
        jit.functions()
    });
    assert_eq!(functions[0], functions[1]);
    functions[0]
}

/// Asserts that `jit` and the tape of `ids` agree bit for bit at a few random states.
fn agree_in(d: &Derivation, what: &str, ids: &[ExprId], jit: &JitFunction) {
    let tape = compile_tape(&d.pool, ids);
    assert_eq!(jit.outputs(), tape.outputs());
    assert_eq!(jit.required(), tape.required());
    let s = tape.required();
    let mut numbers = Numbers(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3 {
        // Positive parameters: masses, lengths and inertias as a model has them.
        let params: Vec<f64> = numbers.vec(s.params).iter().map(|x| 1.5 + x).collect();
        let (q, qd, qdd, p, u, lambda) = (
            numbers.vec(s.q),
            numbers.vec(s.qd),
            numbers.vec(s.qdd),
            numbers.vec(s.p),
            numbers.vec(s.u),
            numbers.vec(s.lambda),
        );
        let inputs = TapeInputs {
            q: &q,
            qd: &qd,
            qdd: &qdd,
            p: &p,
            t: 0.5 + numbers.next(),
            params: &params,
            u: &u,
            lambda: &lambda,
        };
        let mut expected = vec![0.0; tape.outputs()];
        tape.eval(&inputs, &mut vec![0.0; tape.registers()], &mut expected)
            .unwrap();
        let mut got = vec![f64::NAN; jit.outputs()];
        jit.eval(&inputs, &mut vec![0.0; jit.registers()], &mut got)
            .unwrap();
        for (k, (a, b)) in expected.iter().zip(&got).enumerate() {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{what} of `{}`, output {k}: tape {a:e}, JIT {b:e}",
                d.name
            );
        }
    }
}

/// Asserts that the JIT equals the tape on every program of the model at `path`, and returns
/// the largest number of native functions one program was split into.
fn agree_on(path: &Path) -> usize {
    let d = derive(path);
    let programs = programs(&d);
    assert!(programs.iter().any(|(_, ids)| !ids.is_empty()));
    (programs.iter())
        .map(|(what, ids)| agree(&d, what, ids))
        .max()
        .unwrap_or(0)
}

#[test]
fn jit_equals_the_tape_on_every_example_model() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples/models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() > 20);
    for path in files {
        agree_on(&path);
    }
}

#[test]
fn jit_equals_the_tape_on_the_robots() {
    for robot in [
        "double_pendulum_simple",
        "ur5_robot",
        "a1",
        "panda",
        "romeo_small",
    ] {
        let functions = agree_on(&root().join(format!("robots/{robot}.urdf")));
        // Romeo's programs are split into several native functions, compiled in parallel.
        assert!(
            robot != "romeo_small" || functions > 1,
            "{robot}: {functions}"
        );
    }
}
