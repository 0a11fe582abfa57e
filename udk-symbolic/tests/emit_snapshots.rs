//! Snapshots (insta) of the Rust code and the equation sheets emitted for two models: the
//! planar pendulum in Cartesian coordinates (one length constraint) and the double pendulum
//! in minimal coordinates. Review changes with `cargo insta review` (or `INSTA_UPDATE=always`
//! and `git diff`).

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use udk_symbolic::emit::{emit_rust, equations_latex, equations_text};
use udk_symbolic::expr::{ExprId, Symbol};
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};
use udk_symbolic::{derive, Derivation, Equations};

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// A function of the coordinates, velocities and parameters (by name, velocities as
/// `dot_x`) that fills M, Q, A, b and C, skipping structural zeros, formatted by prettyplease.
fn generated(d: &Derivation) -> String {
    let Equations::Lagrangian(e) = &d.equations else {
        panic!("a Lagrangian model")
    };
    let symbol = |s: Symbol| -> TokenStream {
        let name = match s {
            Symbol::Coordinate(i) => ident(&d.coordinates[i]),
            Symbol::Velocity(i) => ident(&format!("dot_{}", d.coordinates[i])),
            Symbol::Parameter(i) => ident(&d.parameters[i]),
            Symbol::Time => ident("t"),
            other => panic!("{other:?} in a Lagrangian model's equations"),
        };
        quote!(#name)
    };
    let n = d.coordinates.len();
    let m = e.constraint_rhs.len();
    let blocks: [(&str, &[ExprId], usize); 5] = [
        ("mass_matrix", &e.mass_matrix.entries, n),
        ("generalized_force", &e.generalized_force, 1),
        ("constraint_matrix", &e.constraint_matrix.entries, n),
        ("constraint_rhs", &e.constraint_rhs, 1),
        ("nonideal_force", &e.nonideal_force, 1),
    ];
    let outputs: Vec<ExprId> = blocks.iter().flat_map(|b| b.1.iter().copied()).collect();
    let block = emit_rust(&d.pool, &outputs, &symbol);
    let mut writes = TokenStream::new();
    let mut k = 0;
    for (name, entries, cols) in blocks {
        let name = ident(name);
        for i in 0..entries.len() {
            if !block.is_structural_zero(k) {
                let (r, c) = (
                    Literal::usize_unsuffixed(i / cols),
                    Literal::usize_unsuffixed(i % cols),
                );
                let value = &block.outputs[k];
                writes.extend(quote! { #name[(#r, #c)] = #value; });
            }
            k += 1;
        }
    }
    let args = d
        .coordinates
        .iter()
        .flat_map(|c| [ident(c), ident(&format!("dot_{c}"))])
        .chain(d.parameters.iter().map(|p| ident(p)));
    let statements = block.statements;
    let (n, m) = (Literal::usize_unsuffixed(n), Literal::usize_unsuffixed(m));
    let file = quote! {
        fn equations(#(#args: f64),*) -> Equations<#n, #m> {
            let mut e = Equations::<#n, #m>::zeros();
            let Equations { mass_matrix, generalized_force, constraint_matrix, constraint_rhs, nonideal_force } = &mut e;
            #statements
            #writes
            e
        }
    };
    prettyplease::unparse(&syn::parse2(file).expect("the emitted code parses"))
}

fn pendulum() -> Derivation {
    derive(&pendulum_chain_cartesian(1)).expect("the pendulum derives")
}

fn double_pendulum() -> Derivation {
    derive(&pendulum_chain_minimal(2)).expect("the double pendulum derives")
}

#[test]
fn rust_of_the_cartesian_pendulum() {
    insta::assert_snapshot!(generated(&pendulum()));
}

#[test]
fn rust_of_the_minimal_double_pendulum() {
    insta::assert_snapshot!(generated(&double_pendulum()));
}

#[test]
fn equations_of_the_cartesian_pendulum() {
    let d = pendulum();
    insta::assert_snapshot!(format!("{}\n{}", equations_text(&d), equations_latex(&d)));
}

#[test]
fn equations_of_the_minimal_double_pendulum() {
    let d = double_pendulum();
    insta::assert_snapshot!(format!("{}\n{}", equations_text(&d), equations_latex(&d)));
}
