//! The code of a model with servo constraints: `servo_terms`, `servo_control` and the
//! `ServoSystem` impl that `udk_runtime::servo` runs on.

use super::{doc, vector_type, Code, Output};
use crate::derivation::LagrangianEquations;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// The servo items of the struct `name` (nothing for a model without servo constraints).
pub(super) fn generate(name: &Ident, code: &Code, eq: &LagrangianEquations) -> TokenStream {
    let Some(servo) = &eq.servo else {
        return TokenStream::new();
    };
    let pool = &code.derivation.pool;
    let n_count = code.derivation.coordinates.len();
    let (m_count, s_count) = (eq.constraint_rhs.len(), servo.constraint_rhs.len());
    let r_count = m_count + s_count;
    let (n, m, r, k) = (
        &code.n,
        Literal::usize_unsuffixed(m_count),
        Literal::usize_unsuffixed(r_count),
        Literal::usize_unsuffixed(code.k),
    );
    let rows = eq
        .servo_rows()
        .expect("a model with servo constraints has servo rows");
    let has_nonideal = !servo
        .nonideal_force
        .iter()
        .all(|&id| super::is_zero(pool, id));
    let mut outputs = vec![
        (super::local("mass_matrix"), Output::Matrix(&eq.mass_matrix)),
        (
            super::local("generalized_force"),
            Output::Vector(&servo.generalized_force),
        ),
        (
            super::local("input_matrix"),
            Output::Matrix(&servo.input_matrix),
        ),
        (
            super::local("constraint_matrix"),
            Output::Matrix(&rows.constraint_matrix),
        ),
        (
            super::local("constraint_rhs"),
            Output::Vector(&rows.constraint_rhs),
        ),
        (
            super::local("position_residual"),
            Output::Vector(&servo.position_residual),
        ),
        (
            super::local("velocity_residual"),
            Output::Vector(&rows.velocity_residual),
        ),
    ];
    if has_nonideal {
        outputs.push((
            super::local("nonideal_force"),
            Output::Vector(&servo.nonideal_force),
        ));
    }
    let (statements, values) = code.emit(&outputs);
    let fields = [
        "mass_matrix",
        "generalized_force",
        "input_matrix",
        "constraint_matrix",
        "constraint_rhs",
        "position_residual",
        "velocity_residual",
    ]
    .iter()
    .zip(&values)
    .map(|(name, value)| super::field(name, value));
    let nonideal = match values.get(7) {
        Some(c) => quote!(::core::option::Option::Some(#c)),
        None => quote!(::core::option::Option::None),
    };
    let runtime = quote!(::udk::__private::udk_runtime);
    let vec_n = vector_type(n_count);
    let state =
        "Arguments: `q`, the generalized coordinates; `qd`, their velocities q̇; `t`, the time.";
    let doc_count = doc(&format!(
        "Number of servo constraint rows: s = {s_count} ({} holonomic, {} nonholonomic), rows {m_count}..{r_count} of the servo terms.",
        servo.holonomic.len(),
        s_count - servo.holonomic.len()
    ));
    let doc_terms = doc(&format!(
        "The terms of the servo controller at (q, q̇, t), computed together: M ({n_count} × {n_count}), Q and C at u = 0 ({n_count}), \
         the input matrix B = ∂(Q + C)/∂u ({n_count} × {k_count}), the {m_count} physical and {s_count} servo rows of [A; A_s] q̈ = [b; b_s], \
         the holonomic residuals and the velocity-level residuals (β) of all {r_count} rows (review paper, section 8.3).\n\n{state}",
        k_count = code.k
    ));
    let doc_control = doc(&format!(
        "The inputs u ({k_count}) that make the motion satisfy the servo and physical constraints, with the servo force, \
         the part of it the inputs cannot supply and the task residual (`udk::runtime::servo::control`), under `law` \
         (a `Convergence`, or a `ServoLaw` that also chooses the realization) with the default options.\n\n{state}\n\n# Errors\nAs `udk::runtime::servo::control`.",
        k_count = code.k
    ));
    let s_lit = Literal::usize_unsuffixed(s_count);
    quote! {
        impl #name {
            #doc_count
            pub const NUM_SERVO: usize = #s_lit;

            #doc_terms
            pub fn servo_terms(&self, q: &#vec_n, qd: &#vec_n, t: f64) -> #runtime::servo::ServoTerms<#n, #r, #k> {
                #statements
                #runtime::servo::ServoTerms { #(#fields,)* nonideal_force: #nonideal }
            }

            #doc_control
            pub fn servo_control(&self, q: &#vec_n, qd: &#vec_n, t: f64, law: impl ::core::convert::Into<#runtime::servo::ServoLaw>)
                -> ::core::result::Result<#runtime::servo::ServoControl<#n, #r, #k>, #runtime::Error> {
                #runtime::servo::control::<#n, #m, #r, #k>(
                    &Self::servo_terms(self, q, qd, t),
                    law,
                    &#runtime::Options::default(),
                )
            }
        }

        impl #runtime::servo::ServoSystem<#n, #m, #r, #k> for #name {
            fn servo_terms(&self, q: &#vec_n, qd: &#vec_n, t: f64) -> #runtime::servo::ServoTerms<#n, #r, #k> {
                Self::servo_terms(self, q, qd, t)
            }
        }
    }
}
