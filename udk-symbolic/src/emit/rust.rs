//! The Rust emitter: straight-line `f64` code for a set of outputs, as a token stream.

use super::program::{is_zero, Op, Program, Step, Val};
use crate::expr::{ExprId, Pool, Symbol};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// Straight-line Rust code that computes a set of outputs, from [`emit_rust`].
///
/// Paste `statements` first; each entry of `outputs` is then a cheap `f64` expression (a
/// temporary, a literal or a symbol) for the output of the same index.
#[derive(Clone, Debug)]
pub struct RustBlock {
    /// `let` statements computing every value shared by two or more uses across all outputs,
    /// and every output that is not a literal or a symbol, each once, in dependency order.
    /// From [`emit_rust_in_phases`], those of the first phase only.
    pub statements: TokenStream,
    /// From [`emit_rust_in_phases`], the statements of the second phase, which read the first
    /// phase's temporaries; empty from [`emit_rust`].
    pub later: TokenStream,
    /// One `f64` expression per output, in the order given.
    pub outputs: Vec<TokenStream>,
    structural_zero: Vec<bool>,
}

impl RustBlock {
    /// Whether output `i` is the constant 0 (its entry is `0.0`), so a caller filling a
    /// zero-initialized matrix writes nothing for it. Panics if `i` is not an output index.
    pub fn is_structural_zero(&self, i: usize) -> bool {
        self.structural_zero[i]
    }
}

/// Emits straight-line code computing `outputs` of `pool`.
///
/// `symbol` gives the tokens of each model quantity: a primary expression of type `f64` such
/// as `q[0]`, `self.m` or `t`, cheap to repeat. The code:
/// - computes each value used more than once (across all outputs) once, into a temporary
///   `__t0`, `__t1`, …; values used once are written inline;
/// - writes integer powers with `powi`, `x^(1/2)` with `sqrt`, negative powers as divisions,
///   `−1·x` as `-x` and negative terms as subtractions;
/// - computes sin and cos of the same argument once, with `sin_cos`;
/// - writes constants as full-precision `f64` literals (rationals p/q rounded once);
/// - beyond [`MAX_LET_STATEMENTS`](crate::limits::MAX_LET_STATEMENTS) statements, declares
///   the temporaries [`LET_GROUP`](crate::limits::LET_GROUP) at a time (`let (__t0, …,
///   __t99);`) and assigns them in order (`__t0 = …;`). Each `let` statement opens a
///   debug-info scope inside the previous one, and rustc's LLVM back end overflows its stack
///   on a few thousand nested scopes in any build with debug info.
///
/// The same `pool` and `outputs` give byte-identical tokens. The run-time
/// [`Tape`](super::Tape) of the same outputs performs the same operations in the same order.
pub fn emit_rust(
    pool: &Pool,
    outputs: &[ExprId],
    symbol: &dyn Fn(Symbol) -> TokenStream,
) -> RustBlock {
    emit_rust_in_phases(pool, outputs, outputs.len(), symbol)
}

/// [`emit_rust`] in two phases: `statements` compute what `outputs[..first]` need, and
/// `later` the rest of the outputs, reading the first phase's temporaries. Code can run
/// between the two, and the second phase may read symbols that exist only then (an inverse
/// dynamics at an acceleration solved from the first phase's outputs): a value the second
/// phase shares with the first (a sin and cos of a joint angle, a link's rotation) is
/// computed once. Each phase's outputs are cheap expressions once its statements have run.
pub fn emit_rust_in_phases(
    pool: &Pool,
    outputs: &[ExprId],
    first: usize,
    symbol: &dyn Fn(Symbol) -> TokenStream,
) -> RustBlock {
    let program = Program::new(pool, outputs);
    // The program lowers its outputs in order, each value after its operands: every value
    // the first phase needs comes before the last of its outputs, and each later value
    // needs no symbol the second phase alone reads.
    let boundary = (program.outputs[..first].iter())
        .map(|&v| v as usize + 1)
        .max()
        .unwrap_or(0);
    let mut writer = Writer {
        program: &program,
        symbol,
        temp: vec![None; program.ops.len()],
        statements: TokenStream::new(),
        count: 0,
    };
    let mut bound = vec![false; program.ops.len()];
    for &v in &program.outputs {
        bound[v as usize] = true;
    }
    for (v, op) in program.ops.iter().enumerate() {
        if op.is_leaf() {
            bound[v] = false;
        } else if program.uses[v] > 1 || program.paired[v] {
            bound[v] = true;
        }
    }
    // (the names bound, the value) per statement, in order, and how many the first phase has.
    let mut statements: Vec<(Vec<Ident>, TokenStream)> = Vec::new();
    let mut split = 0;
    for step in &program.steps {
        let value = match *step {
            Step::Op(v) if bound[v as usize] => {
                let value = writer.expr(v).tokens;
                statements.push((vec![writer.name(v)], value));
                v
            }
            Step::Op(_) => continue,
            Step::SinCos { arg, sin, cos } => {
                let receiver = writer.receiver(arg);
                let names = vec![writer.name(sin), writer.name(cos)];
                statements.push((names, quote! { #receiver.sin_cos() }));
                sin.min(cos)
            }
        };
        if (value as usize) < boundary {
            split = statements.len();
        }
    }
    // `__t3` with type `f64`, or `(__t4, __t5)` with type `(f64, f64)` for a `sin_cos`.
    let target = |names: &[Ident]| match names {
        [name] => (quote! { #name }, quote! { f64 }),
        _ => (quote! { (#(#names),*) }, quote! { (f64, f64) }),
    };
    // Each phase declares its own temporaries, so that the second can run in a closure.
    let write = |statements: &[(Vec<Ident>, TokenStream)]| -> TokenStream {
        if statements.len() <= crate::limits::MAX_LET_STATEMENTS {
            (statements.iter())
                .map(|(names, value)| {
                    let (pattern, ty) = target(names);
                    quote! { let #pattern: #ty = #value; }
                })
                .collect()
        } else {
            (statements.chunks(crate::limits::LET_GROUP))
                .map(|group| {
                    let names = group.iter().flat_map(|(names, _)| names);
                    let assignments = (group.iter()).map(|(names, value)| {
                        let (pattern, _) = target(names);
                        quote! { #pattern = #value; }
                    });
                    quote! { let (#(#names),*); #(#assignments)* }
                })
                .collect()
        }
    };
    let (early, late) = statements.split_at(split);
    writer.statements = write(early);
    let later = write(late);
    let outputs_tokens = program
        .outputs
        .iter()
        .map(|&v| writer.expr(v).tokens)
        .collect();
    RustBlock {
        statements: writer.statements,
        later,
        outputs: outputs_tokens,
        structural_zero: outputs.iter().map(|&id| is_zero(pool, id)).collect(),
    }
}

/// Binding strength of an emitted expression, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Sum,
    Product,
    Unary,
    Primary,
}

struct Expr {
    tokens: TokenStream,
    prec: Prec,
}

struct Writer<'a> {
    program: &'a Program,
    symbol: &'a dyn Fn(Symbol) -> TokenStream,
    temp: Vec<Option<Ident>>,
    statements: TokenStream,
    count: usize,
}

impl Writer<'_> {
    /// Names value `v` as the next temporary.
    fn name(&mut self, v: Val) -> Ident {
        let name = format_ident!("__t{}", self.count);
        self.count += 1;
        self.temp[v as usize] = Some(name.clone());
        name
    }

    fn expr(&self, v: Val) -> Expr {
        if let Some(name) = &self.temp[v as usize] {
            return primary(quote! { #name });
        }
        match self.program.ops[v as usize] {
            Op::Const(bits) => {
                let x = f64::from_bits(bits);
                let lit = literal(x.abs(), "");
                if x.is_sign_negative() {
                    Expr {
                        tokens: quote! { -#lit },
                        prec: Prec::Unary,
                    }
                } else {
                    primary(quote! { #lit })
                }
            }
            Op::Load(s) => primary((self.symbol)(s)),
            Op::Add(a, b) => self.binary(a, quote! { + }, b, Prec::Sum),
            Op::Sub(a, b) => self.binary(a, quote! { - }, b, Prec::Sum),
            Op::Mul(a, b) => self.binary(a, quote! { * }, b, Prec::Product),
            Op::Div(a, b) => self.binary(a, quote! { / }, b, Prec::Product),
            Op::Neg(a) => {
                let a = self.operand(a, Prec::Unary);
                Expr {
                    tokens: quote! { -#a },
                    prec: Prec::Unary,
                }
            }
            Op::Powi(a, k) => {
                let (a, k) = (self.receiver(a), Literal::i32_unsuffixed(k));
                primary(quote! { #a.powi(#k) })
            }
            Op::Powf(a, b) => {
                let (a, b) = (self.receiver(a), self.expr(b).tokens);
                primary(quote! { #a.powf(#b) })
            }
            Op::Atan2(y, x) => {
                let (y, x) = (self.receiver(y), self.expr(x).tokens);
                primary(quote! { #y.atan2(#x) })
            }
            Op::Call(f, a) => {
                let a = self.receiver(a);
                let name = Ident::new(f.name(), Span::call_site());
                primary(quote! { #a.#name() })
            }
        }
    }

    /// `a op b`, left-associative: the right operand is parenthesized at equal binding
    /// strength so the emitted evaluation order is the program's.
    fn binary(&self, a: Val, op: TokenStream, b: Val, prec: Prec) -> Expr {
        let a = self.operand(a, prec);
        let b = self.operand(b, next(prec));
        Expr {
            tokens: quote! { #a #op #b },
            prec,
        }
    }

    /// The tokens of `v`, parenthesized if it binds weaker than `min`.
    fn operand(&self, v: Val, min: Prec) -> TokenStream {
        let e = self.expr(v);
        if e.prec < min {
            let t = e.tokens;
            quote! { (#t) }
        } else {
            e.tokens
        }
    }

    /// The tokens of `v` as the receiver of a method call; constants get an `f64` suffix.
    fn receiver(&self, v: Val) -> TokenStream {
        match self.program.constant(v) {
            Some(x) if x.is_sign_negative() => {
                let lit = literal(-x, "_f64");
                quote! { (-#lit) }
            }
            Some(x) => literal(x, "_f64"),
            None => self.operand(v, Prec::Primary),
        }
    }
}

/// `x` (finite, non-negative) as the `core::f64::consts` constant of exactly that value, if
/// there is one (clippy's `approx_constant` rejects such literals), else as the shortest
/// literal that reads back as `x`, with `suffix`.
fn literal(x: f64, suffix: &str) -> TokenStream {
    use std::f64::consts as c;
    let named = [
        (c::PI, "PI"),
        (c::TAU, "TAU"),
        (c::FRAC_PI_2, "FRAC_PI_2"),
        (c::FRAC_PI_3, "FRAC_PI_3"),
        (c::FRAC_PI_4, "FRAC_PI_4"),
        (c::FRAC_PI_6, "FRAC_PI_6"),
        (c::FRAC_PI_8, "FRAC_PI_8"),
        (c::FRAC_1_PI, "FRAC_1_PI"),
        (c::FRAC_2_PI, "FRAC_2_PI"),
        (c::FRAC_2_SQRT_PI, "FRAC_2_SQRT_PI"),
        (c::SQRT_2, "SQRT_2"),
        (c::FRAC_1_SQRT_2, "FRAC_1_SQRT_2"),
        (c::E, "E"),
        (c::LOG2_E, "LOG2_E"),
        (c::LOG2_10, "LOG2_10"),
        (c::LOG10_E, "LOG10_E"),
        (c::LOG10_2, "LOG10_2"),
        (c::LN_2, "LN_2"),
        (c::LN_10, "LN_10"),
    ];
    if let Some((_, name)) = named.iter().find(|(v, _)| v.to_bits() == x.to_bits()) {
        let name = Ident::new(name, Span::call_site());
        return quote! { ::core::f64::consts::#name };
    }
    let lit: Literal = format!("{x:?}{suffix}")
        .parse()
        .expect("the Debug form of a finite f64 is a float literal");
    lit.into_token_stream()
}

fn primary(tokens: TokenStream) -> Expr {
    Expr {
        tokens,
        prec: Prec::Primary,
    }
}

fn next(prec: Prec) -> Prec {
    match prec {
        Prec::Sum => Prec::Product,
        Prec::Product => Prec::Unary,
        Prec::Unary | Prec::Primary => Prec::Primary,
    }
}
