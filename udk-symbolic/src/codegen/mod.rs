//! The generator behind `#[lagrangian]`, `#[hamiltonian]` and `udk expand`: a model spec in,
//! the impl blocks of its struct out.
//!
//! For a struct named `spec.name` whose `f64` fields are `spec.parameters` (read from `&self`),
//! [`generate`] derives the equations ([`crate::derive()`]) and emits:
//! - an inherent impl with the constants `DOF`, `NUM_CONSTRAINTS`, `NUM_HOLONOMIC`, `EQUATIONS`
//!   and one straight-line, allocation-free function per derived quantity;
//! - an impl of `udk_runtime::LagrangianSystem<N, M>` or `udk_runtime::HamiltonianSystem<N, M>`,
//!   whose provided methods run the fundamental equation on those quantities.
//!
//! The code names the runtime and nalgebra through `::udk::__private`, so a user crate needs
//! `udk` as its only dependency.

mod contacts;
mod expansion;
pub mod free_flyer;
mod hamiltonian;
mod held_points;
mod lagrangian;
mod servo;
#[cfg(test)]
mod tests;

pub use expansion::{expand, format_expansion, model_struct};

use crate::derivation::{Derivation, Equations, ExprMatrix};
use crate::emit::emit_rust_in_phases;
use crate::error::{Error, Errors};
use crate::expr::{ExprId, Node, Pool, Symbol};
use crate::parse::Value;
use crate::spec::ModelSpec;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// The impl blocks for the model `spec`: its inherent API and its system trait impl.
///
/// # Errors
/// Every error of [`crate::derive()`] (unknown names, wrong counts, an L not quadratic in the
/// velocities, ...), each at its culprit's span, and an error when `spec.name` is not a Rust
/// identifier.
pub fn generate(spec: &ModelSpec) -> Result<TokenStream, Errors> {
    let name = model_name(spec)?;
    let derivation = crate::derive(spec)?;
    Ok(emit(&name, &derivation))
}

/// [`generate`] from the `derivation` of `spec` already made (by [`crate::derive()`]), for a
/// caller that also inspects it.
///
/// # Errors
/// When `spec.name` is not a Rust identifier.
pub fn generate_derived(spec: &ModelSpec, derivation: &Derivation) -> Result<TokenStream, Errors> {
    Ok(emit(&model_name(spec)?, derivation))
}

/// The model's name as an identifier, or an error.
fn model_name(spec: &ModelSpec) -> Result<Ident, Errors> {
    syn::parse_str::<Ident>(&spec.name).map_err(|_| {
        Errors(vec![Error::new(
            Span::call_site(),
            format!("the model name `{}` is not a Rust identifier", spec.name),
        )])
    })
}

/// The impl blocks of the model `name` from its derivation.
fn emit(name: &Ident, derivation: &Derivation) -> TokenStream {
    let code = Code::new(derivation);
    match &derivation.equations {
        Equations::Lagrangian(equations) => {
            let mut items = lagrangian::generate(name, &code, equations);
            items.extend(servo::generate(name, &code, equations));
            items.extend(contacts::generate(name, &code, equations));
            items
        }
        Equations::Hamiltonian(equations) => hamiltonian::generate(name, &code, equations),
    }
}

/// What the generated functions of one model share: the derivation and how each symbol reads.
struct Code<'a> {
    derivation: &'a Derivation,
    parameters: Vec<Ident>,
    /// The local each symbol is bound to at the top of a function that uses it, so that the
    /// code reads like the model (`theta`, `theta_dot`, `m` rather than `q[0]`, `qd[0]`,
    /// `self.m`). A symbol whose name would clash (twice the same name, or an argument's name)
    /// has none and is read in place.
    names: BTreeMap<Symbol, Ident>,
    /// n, the number of generalized coordinates, as an unsuffixed literal.
    n: Literal,
    /// k, the number of inputs.
    k: usize,
}

/// One value a generated function computes.
#[derive(Clone, Copy)]
enum Output<'a> {
    Scalar(ExprId),
    /// A column vector `SVector<f64, len>`.
    Vector(&'a [ExprId]),
    Matrix(&'a ExprMatrix),
}

impl<'a> Code<'a> {
    fn new(derivation: &'a Derivation) -> Self {
        let mut candidates: Vec<(Symbol, String)> = Vec::new();
        for (i, name) in derivation.coordinates.iter().enumerate() {
            candidates.push((Symbol::Coordinate(i), name.clone()));
            let velocity = derivation.speeds.get(i).cloned();
            candidates.push((
                Symbol::Velocity(i),
                velocity.unwrap_or_else(|| format!("{name}_dot")),
            ));
        }
        for (i, name) in derivation.momenta.iter().enumerate() {
            candidates.push((Symbol::Momentum(i), name.clone()));
        }
        for (i, name) in derivation.parameters.iter().enumerate() {
            candidates.push((Symbol::Parameter(i), name.clone()));
        }
        for (i, name) in derivation.inputs.iter().enumerate() {
            candidates.push((Symbol::Input(i), name.clone()));
        }
        let clashes = |name: &str| {
            ["q", "qd", "p", "t", "u", "qdd", "lambda", "p_dot", "mu"].contains(&name)
                || name.starts_with("__")
                || candidates.iter().filter(|(_, other)| other == name).count() > 1
        };
        let names = candidates
            .iter()
            .filter(|(_, name)| !clashes(name))
            .map(|(symbol, name)| (*symbol, Ident::new(name, Span::call_site())))
            .collect();
        Code {
            derivation,
            parameters: derivation
                .parameters
                .iter()
                .map(|p| Ident::new(p, Span::call_site()))
                .collect(),
            names,
            n: Literal::usize_unsuffixed(derivation.coordinates.len()),
            k: derivation.inputs.len(),
        }
    }

    /// `u: &SVector<f64, k>,`, the parameter that follows `qd` in every generated function of
    /// a model with inputs; nothing for a model without.
    fn input_parameter(&self) -> TokenStream {
        if self.k == 0 {
            return TokenStream::new();
        }
        let vec_k = vector_type(self.k);
        quote!(u: &#vec_k,)
    }

    /// `u,`, the argument that passes the inputs on; nothing for a model without inputs.
    fn input_argument(&self) -> TokenStream {
        if self.k == 0 {
            TokenStream::new()
        } else {
            quote!(u,)
        }
    }

    /// The tokens that read `symbol` from the arguments of a generated function (`q`, `qd` or
    /// `p`, `t`, `u`, and `self`; `qdd` and `lambda`, or `p_dot` and `mu`, in
    /// `residual_jacobians`).
    fn access(&self, symbol: Symbol) -> TokenStream {
        match symbol {
            Symbol::Time => quote!(t),
            Symbol::Coordinate(i) => index(quote!(q), i),
            Symbol::Velocity(i) | Symbol::Speed(i) => index(quote!(qd), i),
            Symbol::Momentum(i) => index(quote!(p), i),
            Symbol::Input(i) => index(quote!(u), i),
            Symbol::Parameter(i) => {
                let name = &self.parameters[i];
                quote!(self.#name)
            }
            // The rate and the multipliers of the residual Jacobians (`residual_jacobians`).
            Symbol::Acceleration(i) if self.derivation.momenta.is_empty() => index(quote!(qdd), i),
            Symbol::Acceleration(i) => index(quote!(p_dot), i),
            Symbol::Multiplier(i) if self.derivation.momenta.is_empty() => index(quote!(lambda), i),
            Symbol::Multiplier(i) => index(quote!(mu), i),
        }
    }

    /// Straight-line code computing `outputs` together (shared subexpressions once): the
    /// statements, then one expression per output (a local or a literal).
    fn emit(&self, outputs: &[(Ident, Output)]) -> (TokenStream, Vec<TokenStream>) {
        let (mut statements, later, values) = self.emit_in_phases(outputs, outputs.len());
        statements.extend(later);
        (statements, values)
    }

    /// [`Code::emit`] in two phases ([`crate::emit::emit_rust_in_phases`]): the statements
    /// that compute `outputs[..first]`, those that compute the rest from them (which may read
    /// `qdd`, given only then), and one expression per output.
    fn emit_in_phases(
        &self,
        outputs: &[(Ident, Output)],
        first: usize,
    ) -> (TokenStream, TokenStream, Vec<TokenStream>) {
        let first_ids: usize = (outputs[..first].iter())
            .map(|(_, output)| match output {
                Output::Scalar(_) => 1,
                Output::Vector(ids) => ids.len(),
                Output::Matrix(matrix) => matrix.entries.len(),
            })
            .sum();
        let ids: Vec<ExprId> = outputs
            .iter()
            .flat_map(|(_, output)| match output {
                Output::Scalar(id) => std::slice::from_ref(id),
                Output::Vector(ids) => ids,
                Output::Matrix(matrix) => &matrix.entries[..],
            })
            .copied()
            .collect();
        // Symbols are read through their named locals, bound once at the top (see `names`),
        // except where a name is also one of this function's output locals.
        let used = RefCell::new(BTreeSet::new());
        let symbol = |s: Symbol| match self.names.get(&s) {
            Some(name) if outputs.iter().all(|(output, _)| output != name) => {
                used.borrow_mut().insert(s);
                quote!(#name)
            }
            _ => self.access(s),
        };
        let block = emit_rust_in_phases(&self.derivation.pool, &ids, first_ids, &symbol);
        let used = used.into_inner();
        let locals = used.iter().map(|s| &self.names[s]);
        let reads = used.iter().map(|&s| self.access(s));
        let mut statements = match used.len() {
            0 => TokenStream::new(),
            1 => quote!(let #(#locals)* = #(#reads)*;),
            _ => quote!(let (#(#locals),*) = (#(#reads),*);),
        };
        statements.extend(block.statements.clone());
        let mut later = block.later.clone();
        let mut values = Vec::with_capacity(outputs.len());
        let mut k = 0;
        for (index, (name, output)) in outputs.iter().enumerate() {
            let phase = if index < first {
                &mut statements
            } else {
                &mut later
            };
            let (shape, rows, cols) = match output {
                Output::Scalar(_) => {
                    values.push(block.outputs[k].clone());
                    k += 1;
                    continue;
                }
                Output::Vector(ids) => (vector_type(ids.len()), ids.len(), 1),
                Output::Matrix(m) => (matrix_type(m.rows, m.cols), m.rows, m.cols),
            };
            let mut fill = TokenStream::new();
            for i in 0..rows {
                for j in 0..cols {
                    if !block.is_structural_zero(k) {
                        let value = &block.outputs[k];
                        let (i, j) = (Literal::usize_unsuffixed(i), Literal::usize_unsuffixed(j));
                        fill.extend(if matches!(output, Output::Vector(_)) {
                            quote!(#name[#i] = #value;)
                        } else {
                            quote!(#name[(#i, #j)] = #value;)
                        });
                    }
                    k += 1;
                }
            }
            if fill.is_empty() {
                values.push(quote!(#shape::zeros()));
            } else {
                phase.extend(quote!(let mut #name = #shape::zeros(); #fill));
                values.push(quote!(#name));
            }
        }
        (statements, later, values)
    }

    /// The body of a function returning the single `output`, built in a local named `name`.
    fn body(&self, name: &str, output: Output) -> TokenStream {
        let (statements, values) = self.emit(&[(local(name), output)]);
        let value = &values[0];
        quote!(#statements #value)
    }

    /// Straight-line code building the struct `ty` whose fields are the matrices `blocks`
    /// (field name, value), computed together.
    fn matrices(&self, ty: &TokenStream, blocks: &[(&str, &ExprMatrix)]) -> TokenStream {
        let outputs: Vec<(Ident, Output)> = (blocks.iter())
            .map(|&(name, m)| (local(name), Output::Matrix(m)))
            .collect();
        let (statements, values) = self.emit(&outputs);
        let fields = (blocks.iter())
            .zip(&values)
            .map(|(&(name, _), value)| field(name, value));
        quote!(#statements #ty { #(#fields),* })
    }

    /// `(q₁, q₂, …)` as the user named them, for doc comments.
    fn coordinate_names(&self) -> String {
        format!("({})", self.derivation.coordinates.join(", "))
    }
}

/// The items every model has, whatever its kind.
struct Shared {
    /// The inherent constants `DOF`, `NUM_CONSTRAINTS`, `NUM_HOLONOMIC`, `NUM_INPUTS`,
    /// `COORDINATE_NAMES`, `INPUT_NAMES`, `EQUATIONS_TEXT`, `EQUATIONS_LATEX`, `EQUATIONS`, and
    /// one function per output.
    constants: TokenStream,
    /// The inherent `position_residual(q, t)`: the holonomic constraints f(q, t).
    position_residual: TokenStream,
    /// `NUM_HOLONOMIC`, `holonomic_residual` and `COORDINATE_NAMES` of the system trait impl.
    holonomic_residual: TokenStream,
    /// `OUTPUT_COLUMNS` and `output_values` of the system trait impl (nothing for a model
    /// without outputs, which keeps the trait's defaults).
    output_values: TokenStream,
}

impl Code<'_> {
    /// The [`Shared`] items of a model with `m` constraints whose `holonomic` are f(q, t) = 0;
    /// `docs` are the doc comments of `DOF`, `NUM_CONSTRAINTS` and `EQUATIONS`; `state` are
    /// the parameters of a function of the state (`q`, `qd`, `u` or `q`, `p`) and `state_doc`
    /// their doc line.
    fn shared(
        &self,
        m_count: usize,
        holonomic: &[ExprId],
        docs: [TokenStream; 3],
        state: &TokenStream,
        state_doc: &str,
    ) -> Shared {
        let [doc_dof, doc_m, doc_equations] = docs;
        let n = &self.n;
        let h_count = holonomic.len();
        let m = Literal::usize_unsuffixed(m_count);
        let h = Literal::usize_unsuffixed(h_count);
        let vec_n = vector_type(self.derivation.coordinates.len());
        let vec_m = vector_type(m_count);
        let vec_h = vector_type(h_count);
        let q = self.coordinate_names();
        let doc_h = doc(&format!(
            "Number of holonomic constraints f(q, t) = 0: {h_count}."
        ));
        let doc_position = doc(&format!(
            "The holonomic constraints f(q, t), {h_count} entries; zero on the constraint manifold.\n\n\
             Arguments: `q`, the generalized coordinates {q}; `t`, the time."
        ));
        let text = crate::emit::equations_text(self.derivation);
        let latex = crate::emit::equations_latex(self.derivation);
        let position = self.body("position_residual", Output::Vector(holonomic));
        let k = Literal::usize_unsuffixed(self.k);
        let coordinate_names = &self.derivation.coordinate_names;
        let input_names = &self.derivation.inputs;
        let doc_k = doc(&if self.k == 0 {
            "Number of run-time inputs u: k = 0.".to_owned()
        } else {
            format!(
                "Number of run-time inputs u: k = {} ({}).",
                self.k,
                input_names.join(", ")
            )
        });
        let outputs = self.outputs(state, state_doc);
        let output_values = self.output_values(state);
        Shared {
            constants: quote! {
                #doc_dof
                pub const DOF: usize = #n;
                /// The generalized coordinates' names, in order, as the model writes them.
                pub const COORDINATE_NAMES: [&'static str; #n] = [#(#coordinate_names),*];
                #doc_k
                pub const NUM_INPUTS: usize = #k;
                /// The inputs' names, in order (the entries of `u`).
                pub const INPUT_NAMES: [&'static str; #k] = [#(#input_names),*];
                #doc_m
                pub const NUM_CONSTRAINTS: usize = #m;
                #doc_h
                pub const NUM_HOLONOMIC: usize = #h;
                /// The derived equations as plain text alone: a binary that reads only this
                /// constant carries no LaTeX.
                pub const EQUATIONS_TEXT: &'static str = #text;
                /// The derived equations as LaTeX alone.
                pub const EQUATIONS_LATEX: &'static str = #latex;
                #doc_equations
                pub const EQUATIONS: ::udk::__private::udk_runtime::ModelEquations =
                    ::udk::__private::udk_runtime::ModelEquations {
                        text: Self::EQUATIONS_TEXT,
                        latex: Self::EQUATIONS_LATEX,
                    };

                #outputs
            },
            position_residual: quote! {
                #doc_position
                pub fn position_residual(&self, q: &#vec_n, t: f64) -> #vec_h { #position }
            },
            holonomic_residual: quote! {
                const NUM_HOLONOMIC: usize = #h;
                const COORDINATE_NAMES: &'static [&'static str] = &[#(#coordinate_names),*];

                fn holonomic_residual(&self, q: &#vec_n, t: f64) -> #vec_m {
                    let mut rows = #vec_m::zeros();
                    rows.fixed_rows_mut::<#h>(0).copy_from(&Self::position_residual(self, q, t));
                    rows
                }
            },
            output_values,
        }
    }
}

impl Code<'_> {
    /// The trait items that give the simulator the model's outputs: the column names (`name`,
    /// or `name.x`, `name.y`, `name.z`) and their values at a state, written into `out`.
    fn output_values(&self, state: &TokenStream) -> TokenStream {
        let outputs = &self.derivation.outputs;
        if outputs.is_empty() {
            return TokenStream::new();
        }
        let columns = self.derivation.output_columns();
        let components: Vec<ExprId> = outputs
            .iter()
            .flat_map(|o| o.value.components().iter().copied())
            .collect();
        let body = self.body("output_values", Output::Vector(&components));
        quote! {
            const OUTPUT_COLUMNS: &'static [&'static str] = &[#(#columns),*];

            fn output_values(&self, #state t: f64, out: &mut [f64]) {
                let values = { #body };
                out.copy_from_slice(values.as_slice());
            }
        }
    }

    /// One function per output of the model, taking `state` (documented by `state_doc`) and
    /// returning `f64` or `SVector<f64, 3>`.
    fn outputs(&self, state: &TokenStream, state_doc: &str) -> TokenStream {
        self.derivation
            .outputs
            .iter()
            .map(|output| {
                let name = local(&output.name);
                let (ty, value) = match &output.value {
                    Value::Scalar(x) => (quote!(f64), Output::Scalar(*x)),
                    other => (vector_type(3), Output::Vector(other.components())),
                };
                let body = self.body(&output.name, value);
                let doc = doc(&format!(
                    "The output `{}` = {}.\n\n{state_doc}",
                    output.name,
                    crate::emit::value_text(self.derivation, &output.value)
                ));
                quote! {
                    #doc
                    pub fn #name(&self, #state t: f64) -> #ty { #body }
                }
            })
            .collect()
    }
}

/// Whether `id` is the constant 0.
fn is_zero(pool: &Pool, id: ExprId) -> bool {
    matches!(pool.get(id), Node::Number(x) if x.to_f64() == 0.0)
}

/// `base[i]` with an unsuffixed index.
fn index(base: TokenStream, i: usize) -> TokenStream {
    let i = Literal::usize_unsuffixed(i);
    quote!(#base[#i])
}

fn local(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// `SVector<f64, len>` through the facade.
fn vector_type(len: usize) -> TokenStream {
    let len = Literal::usize_unsuffixed(len);
    quote!(::udk::__private::nalgebra::SVector::<f64, #len>)
}

/// `SMatrix<f64, rows, cols>` through the facade.
fn matrix_type(rows: usize, cols: usize) -> TokenStream {
    let (rows, cols) = (
        Literal::usize_unsuffixed(rows),
        Literal::usize_unsuffixed(cols),
    );
    quote!(::udk::__private::nalgebra::SMatrix::<f64, #rows, #cols>)
}

/// `#[doc = " ..."]` for each line of `text` (the leading space makes `/// ...` when printed).
fn doc(text: &str) -> TokenStream {
    text.lines()
        .map(|line| {
            let line = format!(" {line}");
            quote!(#[doc = #line])
        })
        .collect()
}

/// `name: value` in a struct literal, or the shorthand `name` when `value` is the local `name`.
fn field(name: &str, value: &TokenStream) -> TokenStream {
    let name = local(name);
    if name == value.to_string() {
        quote!(#name)
    } else {
        quote!(#name: #value)
    }
}

/// Lints that fire on straight-line generated code for reasons of form, not substance: a
/// function need not use each of its arguments (M does not depend on t in most models).
fn allowances() -> TokenStream {
    quote!(#[allow(unused_variables, clippy::approx_constant)])
}
