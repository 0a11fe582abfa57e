//! The emitters: Rust tokens (lowering, CSE, sin_cos, structural zeros, op counts), the
//! run-time tape against the recursive evaluation of the DAG, and the LaTeX/text printers.

mod emit_support;

use emit_support::{build, lagrangian_outputs, symbol, tree, State};
use proptest::prelude::*;
use udk_symbolic::emit::{
    compile_tape, count_ops, emit_rust, emit_rust_in_phases, equations_latex, equations_text,
    latex, text, HamiltonianTape, LagrangianTape, Names, TapeError, TapeInputs,
};
use udk_symbolic::expr::{ExprId, Func, Pool, Symbol};
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};
use udk_symbolic::{derive, Derivation, Equations};

/// The emitted code of `outputs` as one string: statements, then `=> output` per output.
fn rust(pool: &Pool, outputs: &[ExprId]) -> String {
    let block = emit_rust(pool, outputs, &symbol);
    let mut s = block.statements.to_string();
    for o in &block.outputs {
        s.push_str(" => ");
        s.push_str(&o.to_string());
    }
    s
}

fn x(pool: &mut Pool, i: usize) -> ExprId {
    pool.symbol(Symbol::Coordinate(i))
}

#[test]
fn lowering_writes_subtraction_division_negation_powi_and_sqrt() {
    let mut pool = Pool::new();
    let (a, b) = (x(&mut pool, 0), x(&mut pool, 1));
    let cases: Vec<(ExprId, &str)> = vec![
        (pool.sub(a, b), "q [0] - q [1]"),
        (pool.neg(a), "- q [0]"),
        (pool.div(a, b), "q [0] / q [1]"),
        (pool.recip(a), "1.0 / q [0]"),
        (pool.powi(a, 3), "q [0] . powi (3)"),
        (pool.powi(a, -2), "1.0 / q [0] . powi (2)"),
        (pool.sqrt(a), "q [0] . sqrt ()"),
        (
            {
                let three_halves = pool.rational(3, 2);
                pool.pow(a, three_halves)
            },
            "q [0] . sqrt () . powi (3)",
        ),
        (
            {
                let third = pool.rational(1, 3);
                pool.mul(&[third, a])
            },
            "0.3333333333333333 * q [0]",
        ),
        (
            {
                let minus_two = pool.integer(-2);
                let twice = pool.mul(&[minus_two, b]);
                pool.add(&[a, twice])
            },
            "q [0] - 2.0 * q [1]",
        ),
        (
            {
                let minus_two = pool.integer(-2);
                let ab = pool.mul(&[minus_two, a, b]);
                let one = pool.one();
                pool.add(&[one, ab])
            },
            "- (2.0 * q [0] * q [1] - 1.0)",
        ),
        (
            {
                let s = pool.add(&[a, b]);
                let d = pool.sub(a, b);
                pool.div(s, d)
            },
            "(q [0] + q [1]) / (q [0] - q [1])",
        ),
        (
            {
                let s = pool.add(&[a, b]);
                let c = pool.call(Func::Cos, &[s]);
                pool.powi(c, 2)
            },
            "(q [0] + q [1]) . cos () . powi (2)",
        ),
    ];
    for (id, expected) in cases {
        let block = emit_rust(&pool, &[id], &symbol);
        let tokens = rust(&pool, &[id]);
        let statement = format!("let __t0 : f64 = {expected} ; => __t0");
        let leaf = format!(" => {expected}");
        assert!(
            tokens == statement || tokens == leaf,
            "{tokens} is not {expected}"
        );
        assert!(!block.is_structural_zero(0));
    }
}

#[test]
fn shared_values_become_one_temporary_and_single_uses_are_inlined() {
    let mut pool = Pool::new();
    let (a, b, c) = (x(&mut pool, 0), x(&mut pool, 1), x(&mut pool, 2));
    let s = pool.add(&[a, b]);
    let e = pool.call(Func::Exp, &[s]);
    let first = pool.mul(&[e, c]);
    let second = pool.add(&[e, c]);
    let code = rust(&pool, &[first, second]);
    assert_eq!(
        code,
        "let __t0 : f64 = (q [0] + q [1]) . exp () ; let __t1 : f64 = q [2] * __t0 ; \
         let __t2 : f64 = q [2] + __t0 ; => __t1 => __t2"
    );
}

#[test]
fn two_phases_share_the_first_phase_values_and_read_the_late_symbols_only_later() {
    // y = sin(q0 − q1)·q1 first; then z = cos(q0 − q1)·q̈0 + sin(q0 − q1)·q̈1, whose sin and
    // cos come from the first phase's one sin_cos.
    let mut pool = Pool::new();
    let (a, b) = (x(&mut pool, 0), x(&mut pool, 1));
    let d = pool.sub(a, b);
    let s = pool.call(Func::Sin, &[d]);
    let c = pool.call(Func::Cos, &[d]);
    let y = pool.mul(&[s, b]);
    let (v0, v1) = (
        pool.symbol(Symbol::Acceleration(0)),
        pool.symbol(Symbol::Acceleration(1)),
    );
    let terms = [pool.mul(&[c, v0]), pool.mul(&[s, v1])];
    let z = pool.add(&terms);
    let block = emit_rust_in_phases(&pool, &[y, z], 1, &symbol);
    let (early, later) = (block.statements.to_string(), block.later.to_string());
    assert_eq!(early.matches("sin_cos").count(), 1, "{early}");
    assert!(!early.contains("qdd"), "{early}");
    assert!(!later.contains("sin") && !later.contains("cos"), "{later}");
    assert!(
        later.contains("qdd [0]") && later.contains("qdd [1]"),
        "{later}"
    );
    // One phase: the same statements, in one stream.
    let whole = emit_rust(&pool, &[y, z], &symbol);
    assert!(whole.later.is_empty());
    assert_eq!(
        whole.statements.to_string(),
        format!("{early} {later}").trim()
    );
}

#[test]
fn sin_and_cos_of_one_argument_are_one_sin_cos() {
    let mut pool = Pool::new();
    let (a, b) = (x(&mut pool, 0), x(&mut pool, 1));
    let d = pool.sub(a, b);
    let s = pool.call(Func::Sin, &[d]);
    let c = pool.call(Func::Cos, &[d]);
    let sa = pool.call(Func::Sin, &[a]);
    let y = pool.mul(&[s, b]);
    let z = pool.mul(&[c, sa]);
    let code = rust(&pool, &[y, z]);
    assert_eq!(code.matches("sin_cos").count(), 1, "{code}");
    assert_eq!(code.matches(". sin ()").count(), 1, "{code}");
    assert!(!code.contains(". cos ()"), "{code}");
    let report = count_ops(&pool, &[y, z]);
    assert_eq!(report.tree.calls, 3);
    assert_eq!(report.dag.calls, 2);
}

#[test]
fn structural_zeros_are_flagged_and_not_computed() {
    let mut pool = Pool::new();
    let a = x(&mut pool, 0);
    let zero = pool.zero();
    let sine = pool.call(Func::Sin, &[a]);
    let block = emit_rust(&pool, &[zero, sine, zero], &symbol);
    assert!(block.is_structural_zero(0));
    assert!(!block.is_structural_zero(1));
    assert!(block.is_structural_zero(2));
    assert_eq!(block.outputs[0].to_string(), "0.0");
    assert!(!block.statements.to_string().contains("0.0"));
}

#[test]
fn constants_are_full_precision_f64_literals() {
    let mut pool = Pool::new();
    let a = x(&mut pool, 0);
    let pi = pool.number(std::f64::consts::PI);
    let tiny = pool.number(1e-300);
    let g = pool.rational(981, 100);
    let third = pool.rational(1, 3);
    let e1 = pool.mul(&[pi, a]);
    let e2 = pool.pow(pi, a);
    let e3 = pool.add(&[tiny, a]);
    let e4 = pool.mul(&[g, a]);
    let e5 = pool.pow(third, a);
    let code = rust(&pool, &[e1, e2, e3, e4, e5]);
    // Constants of core::f64::consts by name (clippy's approx_constant), others as literals.
    for expected in [
        ":: core :: f64 :: consts :: PI * q [0]",
        ":: core :: f64 :: consts :: PI . powf (q [0])",
        "1e-300 + q [0]",
        "9.81 * q [0]",
        "0.3333333333333333_f64 . powf (q [0])",
    ] {
        assert!(code.contains(expected), "no `{expected}` in {code}");
    }
}

#[test]
fn emission_is_deterministic() {
    let build = || {
        let d = derive(&pendulum_chain_minimal(3)).expect("the chain derives");
        let outputs = lagrangian_outputs(&d);
        rust(&d.pool, &outputs)
    };
    assert_eq!(build(), build());
}

#[test]
fn cse_reduces_the_operations_of_the_chains() {
    // The Cartesian chain has little to share; the minimal one shares a lot.
    for (spec, factor) in [
        (pendulum_chain_cartesian(3), 1),
        (pendulum_chain_minimal(3), 2),
    ] {
        let d = derive(&spec).expect("the chain derives");
        let report = count_ops(&d.pool, &lagrangian_outputs(&d));
        assert!(
            report.dag.total() * factor < report.tree.total(),
            "{}: {report:?}",
            d.name
        );
    }
    let d = derive(&pendulum_chain_minimal(3)).expect("the chain derives");
    let code = rust(&d.pool, &lagrangian_outputs(&d));
    // sin and cos of θ1 − θ2, θ1 − θ3, θ2 − θ3 (M, Q) and θ1…θ3 (Q), each once.
    assert!(
        !code.contains(". sin ()") && !code.contains(". cos ()"),
        "{code}"
    );
    assert!(code.matches("sin_cos").count() >= 3, "{code}");
}

fn assert_close(tape: &[f64], eval: &[f64], tol: f64, what: &str) {
    for (k, (a, b)) in tape.iter().zip(eval).enumerate() {
        assert!(
            (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs())),
            "{what}, output {k}: tape {a} vs eval {b}"
        );
    }
}

#[test]
fn model_tape_agrees_with_the_dag_on_the_chains() {
    for spec in [
        pendulum_chain_cartesian(1),
        pendulum_chain_cartesian(4),
        pendulum_chain_minimal(2),
        pendulum_chain_minimal(4),
    ] {
        let d = derive(&spec).expect("the chain derives");
        let tape = LagrangianTape::new(&d).expect("a Lagrangian model");
        let mut ws = tape.workspace();
        let n = d.coordinates.len();
        for seed in 0..8 {
            let x = State::random(seed, n, d.parameters.len());
            let values = tape
                .eval(&x.q, &x.qd, x.t, &x.c, &mut ws)
                .expect("inputs fit");
            let all: Vec<f64> = [
                values.mass_matrix,
                values.generalized_force,
                values.constraint_matrix,
                values.constraint_rhs,
                values.nonideal_force,
            ]
            .concat();
            let expected = d.pool.eval_all(&lagrangian_outputs(&d), &|s| x.value(s));
            assert_eq!(all.len(), expected.len());
            assert_close(&all, &expected, 1e-12, &d.name);
            assert_eq!(values.mass_matrix.len(), n * n);
            assert_eq!(values.constraint_rhs.len(), tape.m());
        }
    }
}

#[test]
fn tape_rejects_short_inputs_and_buffers() {
    let mut pool = Pool::new();
    let a = x(&mut pool, 2);
    let m = pool.symbol(Symbol::Parameter(0));
    let e = pool.mul(&[a, m]);
    let tape = compile_tape(&pool, &[e]);
    assert_eq!(tape.required().q, 3);
    assert_eq!(tape.required().params, 1);
    let mut regs = vec![0.0; tape.registers()];
    let mut out = [0.0];
    let short = TapeInputs {
        q: &[1.0, 2.0],
        params: &[2.0],
        ..TapeInputs::default()
    };
    assert_eq!(
        tape.eval(&short, &mut regs, &mut out),
        Err(TapeError::Input {
            input: "q",
            needed: 3,
            given: 2
        })
    );
    let inputs = TapeInputs {
        q: &[1.0, 2.0, 3.0],
        params: &[2.0],
        ..TapeInputs::default()
    };
    assert!(matches!(
        tape.eval(&inputs, &mut [], &mut out),
        Err(TapeError::Registers { .. })
    ));
    assert!(matches!(
        tape.eval(&inputs, &mut regs, &mut [0.0, 0.0]),
        Err(TapeError::Outputs {
            expected: 1,
            given: 2
        })
    ));
    tape.eval(&inputs, &mut regs, &mut out).expect("inputs fit");
    assert_eq!(out, [6.0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn tape_agrees_with_recursive_eval(trees in prop::collection::vec(tree(), 1..4), seed in 0u64..1000) {
        let mut pool = Pool::new();
        let outputs: Vec<ExprId> = trees.iter().map(|t| build(&mut pool, t)).collect();
        let tape = compile_tape(&pool, &outputs);
        let x = State::random(seed, 3, 1);
        let mut regs = vec![f64::NAN; tape.registers()];
        let mut out = vec![f64::NAN; tape.outputs()];
        tape.eval(&x.inputs(), &mut regs, &mut out).expect("inputs fit");
        let expected = pool.eval_all(&outputs, &|s| x.value(s));
        for (k, (a, b)) in out.iter().zip(&expected).enumerate() {
            prop_assert!(a.is_finite() && b.is_finite(), "output {k}: {a} vs {b}");
            prop_assert!((a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())), "output {k}: tape {a} vs eval {b}");
        }
        // Emission and op counts are consistent: one instruction per distinct value.
        let report = count_ops(&pool, &outputs);
        prop_assert!(report.dag.total() <= report.tree.total());
        prop_assert!(report.dag.total() as usize <= tape.len());
    }
}

/// Every shape the tape computes inside one instruction (a product in a sum, a difference
/// or a negation; a sum or difference in a product or a square), a value used twice (not
/// fused), and structurally zero outputs, against the recursive evaluation of the DAG and
/// with the roundings of the unfused operations.
#[test]
fn fused_tape_instructions_keep_the_unfused_roundings() {
    let mut pool = Pool::new();
    let (a, b, c) = (x(&mut pool, 0), x(&mut pool, 1), x(&mut pool, 2));
    let ab = pool.mul(&[a, b]);
    let sum = pool.add(&[a, b]);
    let minus_b = pool.neg(b);
    let difference = pool.add(&[a, minus_b]);
    let zero = pool.zero();
    let outputs = [
        pool.add(&[ab, c]),
        pool.sub(ab, c),
        pool.sub(c, ab),
        pool.neg(ab),
        pool.mul(&[sum, c]),
        pool.mul(&[difference, c]),
        pool.powi(sum, 2),
        pool.powi(difference, 2),
        pool.mul(&[sum, sum]),
        zero,
        pool.powi(a, 2),
    ];
    let tape = compile_tape(&pool, &outputs);
    for seed in 0..16 {
        let state = State::random(seed, 3, 0);
        let (qa, qb, qc) = (state.q[0], state.q[1], state.q[2]);
        let expected = [
            qa * qb + qc,
            qa * qb - qc,
            qc - qa * qb,
            -(qa * qb),
            (qa + qb) * qc,
            (qa - qb) * qc,
            (qa + qb) * (qa + qb),
            (qa - qb) * (qa - qb),
            (qa + qb) * (qa + qb),
            0.0,
            qa * qa,
        ];
        let mut regs = vec![f64::NAN; tape.registers()];
        let mut out = vec![f64::NAN; tape.outputs()];
        tape.eval(&state.inputs(), &mut regs, &mut out)
            .expect("inputs fit");
        for (k, (got, want)) in out.iter().zip(&expected).enumerate() {
            let eval = pool.eval(outputs[k], &|s| state.value(s));
            assert!(
                (eval - want).abs() <= 1e-15 * (1.0 + want.abs()),
                "output {k}: DAG {eval} vs {want}"
            );
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "output {k}: tape {got} vs {want}"
            );
        }
    }
}

#[test]
fn text_and_latex_print_signs_fractions_and_powers() {
    let names = Names {
        coordinates: vec!["theta1".into(), "x".into()],
        momenta: vec![],
        parameters: vec!["m".into(), "g".into()],
        ..Names::default()
    };
    let mut pool = Pool::new();
    let th = pool.symbol(Symbol::Coordinate(0));
    let xx = pool.symbol(Symbol::Coordinate(1));
    let xd = pool.symbol(Symbol::Velocity(1));
    let m = pool.symbol(Symbol::Parameter(0));
    let g = pool.symbol(Symbol::Parameter(1));
    // L = m ẋ²/2 − m g x cos θ1
    let half = pool.rational(1, 2);
    let xd2 = pool.powi(xd, 2);
    let kinetic = pool.mul(&[half, m, xd2]);
    let c = pool.call(Func::Cos, &[th]);
    let potential = pool.mul(&[m, g, xx, c]);
    let l = pool.sub(kinetic, potential);
    let t = text(&pool, l, &names);
    assert_eq!(t, "(m*dot(x)^2 - 2*x*m*g*cos(theta1))/2");
    assert!(!t.contains("+ -") && !t.contains("-1*"), "{t}");
    let tex = latex(&pool, l, &names);
    assert_eq!(
        tex,
        "\\frac{m \\dot{x}^{2} - 2 x m g \\cos\\left(\\theta_{1}\\right)}{2}"
    );

    let s = pool.add(&[xx, m]);
    let inv = pool.powi(s, -2);
    let e = pool.mul(&[g, inv]);
    assert_eq!(text(&pool, e, &names), "g/(x + m)^2");
    assert_eq!(
        latex(&pool, e, &names),
        "\\frac{g}{\\left(x + m\\right)^{2}}"
    );

    let r = pool.sqrt(xx);
    let neg = pool.neg(r);
    assert_eq!(text(&pool, neg, &names), "-sqrt(x)");
    assert_eq!(latex(&pool, neg, &names), "-\\sqrt{x}");
    let s2 = pool.powi(c, 2);
    assert_eq!(
        latex(&pool, s2, &names),
        "\\cos^{2}\\left(\\theta_{1}\\right)"
    );
    assert_eq!(text(&pool, s2, &names), "cos(theta1)^2");
    let acc = pool.symbol(Symbol::Acceleration(0));
    assert_eq!(latex(&pool, acc, &names), "\\ddot{\\theta}_{1}");
    assert_eq!(text(&pool, acc, &names), "ddot(theta1)");
}

#[test]
fn equations_print_every_nonzero_entry() {
    let d = derive(&pendulum_chain_cartesian(1)).expect("the pendulum derives");
    let t = equations_text(&d);
    assert!(
        t.starts_with(
            "PendulumChainCartesian1 (Lagrangian): n = 2 coordinates (x1, y1), m = 1 constraints"
        ),
        "{t}"
    );
    for line in [
        "  M[1,1] = m1",
        "  M[2,2] = m1",
        "  Q[2] = -m1*g",
        "  A[1,1] = 2*x1",
        "  b[1] = -2*(dot(x1)^2 + dot(y1)^2)",
        "C, non-ideal constraint force (2): all entries 0",
    ] {
        assert!(t.contains(line), "no `{line}` in\n{t}");
    }
    assert!(!t.contains("M[1,2]"), "{t}");
    let tex = equations_latex(&d);
    assert!(tex.contains("M_{1,1} &= m_{1} \\\\"), "{tex}");
    assert!(tex.trim_end().ends_with("\\end{aligned}"), "{tex}");
}

/// The spherical pendulum as a Hamiltonian model (Udwadia 2016, section 4.1), from TOML.
fn spherical_pendulum() -> Derivation {
    let spec: udk_symbolic::ModelSpec = toml::from_str(
        r#"
        name = "SphericalPendulum"
        coordinates = ["x", "y", "z"]
        momenta = ["px", "py", "pz"]
        parameters = [{ name = "m" }, { name = "g" }, { name = "L" }]
        hamiltonian = "(px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m) - m * g * z"
        holonomic = ["x.powi(2) + y.powi(2) + z.powi(2) - L.powi(2)"]
        "#,
    )
    .expect("the model parses");
    derive(&spec).expect("the model derives")
}

#[test]
fn hamiltonian_tape_agrees_with_the_dag_and_checks_the_model_kind() {
    let d = spherical_pendulum();
    let Equations::Hamiltonian(e) = &d.equations else {
        panic!("a Hamiltonian model")
    };
    assert!(LagrangianTape::new(&d).is_err());
    let lagrangian = derive(&pendulum_chain_minimal(1)).expect("the pendulum derives");
    assert_eq!(
        HamiltonianTape::new(&lagrangian).unwrap_err().to_string(),
        "a Hamiltonian tape needs a Hamiltonian model, but `PendulumChainMinimal1` is not one"
    );
    let tape = HamiltonianTape::new(&d).expect("a Hamiltonian model");
    assert_eq!((tape.n(), tape.m()), (3, 1));
    let mut ws = tape.workspace();
    let outputs: Vec<ExprId> =
        [&e.h_p[..], &e.h_q, &e.h_pp.entries, &e.a_p.entries, &e.b_p].concat();
    for seed in 0..8 {
        let x = State::random(seed, 3, 3);
        let v = tape
            .eval(&x.q, &x.p, x.t, &x.c, &mut ws)
            .expect("inputs fit");
        let all = [v.h_p, v.h_q, v.h_pp, v.a_p, v.b_p].concat();
        let expected = d.pool.eval_all(&outputs, &|s| x.value(s));
        assert_close(&all, &expected, 1e-12, &d.name);
        // H_p = p/m, the closed form.
        assert_close(
            v.h_p,
            &[x.p[0] / x.c[0], x.p[1] / x.c[0], x.p[2] / x.c[0]],
            1e-14,
            "H_p",
        );
    }
    let sheet = equations_text(&d);
    assert!(
        sheet.contains("(Hamiltonian): n = 3 coordinates (x, y, z), m = 1 constraints"),
        "{sheet}"
    );
    assert!(sheet.contains("  H_p[1] = px/m"), "{sheet}");
    assert!(equations_latex(&d).contains("\\left(H_{p}\\right)_{1} &= \\frac{p_{x}}{m} \\\\"));
}
