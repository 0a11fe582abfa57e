//! The emitted Rust computes what the tape computes: the tokens are parsed with syn and run by
//! a small interpreter of the f64 subset the emitter writes (literals, `core::f64::consts::PI`,
//! `q[i]`-style symbols,
//! `+ - * /`, unary `-`, parentheses, `let` temporaries, `sin_cos` pairs and the f64 methods).
//! Because the interpreter follows the tokens' precedence and parentheses, this checks that
//! the emitted expressions keep the operation order of the shared program, bit for bit.

mod emit_support;

use emit_support::{build, lagrangian_outputs, symbol, tree, State};
use proptest::prelude::*;
use std::collections::HashMap;
use syn::{BinOp, Expr, Lit, Pat, Stmt, UnOp};
use udk_symbolic::emit::{compile_tape, emit_rust, RustBlock, Tape};
use udk_symbolic::expr::{ExprId, Pool};
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};
use udk_symbolic::{derive, Derivation};

/// Runs the block's statements and returns the values of its outputs.
fn run(block: &RustBlock, x: &State) -> Vec<f64> {
    let statements = &block.statements;
    let statements: syn::Block =
        syn::parse2(quote::quote!({ #statements })).expect("the statements parse");
    let mut env = Env {
        vars: HashMap::new(),
        x,
    };
    for stmt in &statements.stmts {
        let Stmt::Local(local) = stmt else {
            panic!(
                "only `let` statements are emitted: {}",
                quote::quote!(#stmt)
            );
        };
        let value = &local.init.as_ref().expect("initialized").expr;
        let names = match &local.pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        match names {
            Pat::Ident(name) => {
                let v = env.eval(value);
                env.vars.insert(name.ident.to_string(), v);
            }
            Pat::Tuple(pair) => {
                let Expr::MethodCall(call) = &**value else {
                    panic!("a tuple is bound only from sin_cos")
                };
                assert_eq!(call.method, "sin_cos");
                let (s, c) = env.eval(&call.receiver).sin_cos();
                for (p, v) in pair.elems.iter().zip([s, c]) {
                    let Pat::Ident(name) = p else {
                        panic!("sin_cos binds names")
                    };
                    env.vars.insert(name.ident.to_string(), v);
                }
            }
            other => panic!("unexpected pattern {}", quote::quote!(#other)),
        }
    }
    block
        .outputs
        .iter()
        .map(|o| env.eval(&syn::parse2(o.clone()).expect("an output parses")))
        .collect()
}

struct Env<'a> {
    vars: HashMap<String, f64>,
    x: &'a State,
}

impl Env<'_> {
    fn eval(&self, e: &Expr) -> f64 {
        match e {
            Expr::Lit(l) => literal(&l.lit),
            Expr::Paren(p) => self.eval(&p.expr),
            Expr::Path(p) => {
                let path = quote::quote!(#p).to_string().replace(' ', "");
                match path.strip_prefix("::core::f64::consts::") {
                    Some(name) => named_constant(name),
                    None if path == "t" => self.x.t,
                    None => self.vars[&path],
                }
            }
            Expr::Index(i) => {
                let Expr::Path(array) = &*i.expr else {
                    panic!("indexing a named array")
                };
                let k = literal_index(&i.index);
                let array = array.path.get_ident().expect("a plain name").to_string();
                match array.as_str() {
                    "q" => self.x.q[k],
                    "qd" => self.x.qd[k],
                    "qdd" => self.x.qdd[k],
                    "p" => self.x.p[k],
                    "c" => self.x.c[k],
                    other => panic!("unknown array {other}"),
                }
            }
            Expr::Unary(u) => {
                assert!(matches!(u.op, UnOp::Neg(_)), "only negation is emitted");
                -self.eval(&u.expr)
            }
            Expr::Binary(b) => {
                let (l, r) = (self.eval(&b.left), self.eval(&b.right));
                match b.op {
                    BinOp::Add(_) => l + r,
                    BinOp::Sub(_) => l - r,
                    BinOp::Mul(_) => l * r,
                    BinOp::Div(_) => l / r,
                    _ => panic!("unexpected operator"),
                }
            }
            Expr::MethodCall(m) => {
                let x = self.eval(&m.receiver);
                let arg = || self.eval(&m.args[0]);
                match m.method.to_string().as_str() {
                    "powi" => x.powi(literal_index(&m.args[0]) as i32),
                    "powf" => x.powf(arg()),
                    "atan2" => x.atan2(arg()),
                    "sqrt" => x.sqrt(),
                    "sin" => x.sin(),
                    "cos" => x.cos(),
                    "tan" => x.tan(),
                    "asin" => x.asin(),
                    "acos" => x.acos(),
                    "atan" => x.atan(),
                    "sinh" => x.sinh(),
                    "cosh" => x.cosh(),
                    "tanh" => x.tanh(),
                    "exp" => x.exp(),
                    "ln" => x.ln(),
                    "abs" => x.abs(),
                    other => panic!("unexpected method {other}"),
                }
            }
            other => panic!("unexpected expression {}", quote::quote!(#other)),
        }
    }
}

fn named_constant(name: &str) -> f64 {
    use std::f64::consts as c;
    match name {
        "PI" => c::PI,
        "TAU" => c::TAU,
        "FRAC_PI_2" => c::FRAC_PI_2,
        "FRAC_PI_3" => c::FRAC_PI_3,
        "FRAC_PI_4" => c::FRAC_PI_4,
        "FRAC_PI_6" => c::FRAC_PI_6,
        "FRAC_PI_8" => c::FRAC_PI_8,
        "FRAC_1_PI" => c::FRAC_1_PI,
        "FRAC_2_PI" => c::FRAC_2_PI,
        "FRAC_2_SQRT_PI" => c::FRAC_2_SQRT_PI,
        "SQRT_2" => c::SQRT_2,
        "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
        "E" => c::E,
        "LOG2_E" => c::LOG2_E,
        "LOG2_10" => c::LOG2_10,
        "LOG10_E" => c::LOG10_E,
        "LOG10_2" => c::LOG10_2,
        "LN_2" => c::LN_2,
        "LN_10" => c::LN_10,
        other => panic!("unknown constant {other}"),
    }
}

fn literal(l: &Lit) -> f64 {
    match l {
        Lit::Float(f) => f.base10_parse().expect("an f64 literal"),
        other => panic!("unexpected literal {}", quote::quote!(#other)),
    }
}

fn literal_index(e: &Expr) -> usize {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse().expect("an integer"),
        Expr::Unary(u) => {
            // powi's exponent is positive; negative powers are emitted as divisions.
            panic!("negative integer literal {}", quote::quote!(#u))
        }
        other => panic!("expected an integer literal, got {}", quote::quote!(#other)),
    }
}

fn tape_values(tape: &Tape, x: &State) -> Vec<f64> {
    let mut regs = vec![0.0; tape.registers()];
    let mut out = vec![0.0; tape.outputs()];
    tape.eval(&x.inputs(), &mut regs, &mut out)
        .expect("inputs fit");
    out
}

fn assert_same_bits(pool: &Pool, outputs: &[ExprId], x: &State) -> Result<(), TestCaseError> {
    let rust = run(&emit_rust(pool, outputs, &symbol), x);
    let tape = tape_values(&compile_tape(pool, outputs), x);
    for (k, (a, b)) in rust.iter().zip(&tape).enumerate() {
        prop_assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "output {k}: Rust {a} vs tape {b}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn emitted_rust_computes_the_tape_values_bit_for_bit(
        trees in prop::collection::vec(tree(), 1..4),
        seed in 0u64..1000,
    ) {
        let mut pool = Pool::new();
        let outputs: Vec<ExprId> = trees.iter().map(|t| build(&mut pool, t)).collect();
        assert_same_bits(&pool, &outputs, &State::random(seed, 3, 1))?;
    }
}

#[test]
fn emitted_rust_of_the_chains_computes_the_tape_values_bit_for_bit() {
    let models: [Derivation; 2] = [
        derive(&pendulum_chain_cartesian(3)).expect("the chain derives"),
        derive(&pendulum_chain_minimal(3)).expect("the chain derives"),
    ];
    for d in &models {
        for seed in 0..4 {
            let x = State::random(seed, d.coordinates.len(), d.parameters.len());
            assert_same_bits(&d.pool, &lagrangian_outputs(d), &x).expect("same bits");
        }
    }
}
