//! The code of a model with servo constraints: `servo_terms`, `servo_control` and the
//! `ServoSystem` impl that `udk_runtime::servo` runs on.

use super::{doc, vector_type, Code, Output};
use crate::derivation::LagrangianEquations;
use crate::expr::ExprId;
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
    let fast = inverse_dynamics_path(code, eq, (n, &r, &k), &rows.velocity_residual);
    let (fast_items, fast_control) = fast.unwrap_or_default();
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
                <Self as #runtime::servo::ServoSystem<#n, #m, #r, #k>>::control(
                    self,
                    q,
                    qd,
                    t,
                    law.into(),
                    &#runtime::Options::default(),
                )
            }

            #fast_items
        }

        impl #runtime::servo::ServoSystem<#n, #m, #r, #k> for #name {
            fn servo_terms(&self, q: &#vec_n, qd: &#vec_n, t: f64) -> #runtime::servo::ServoTerms<#n, #r, #k> {
                Self::servo_terms(self, q, qd, t)
            }

            #fast_control
        }
    }
}

/// For a model whose servo rows alone determine the motion (no physical rows, s = n) and whose
/// inputs are the generalized forces (B = I, exactly), the items of the controller's path
/// without M: `servo_task` (A_s, b_s and the residuals (e, β) in one program) and
/// `servo_inverse_dynamics` (M v − Q₀ − C₀, by recursive Newton–Euler for a tree), then the
/// override of `ServoSystem::control` that runs `udk_runtime::servo::control_by_inverse_dynamics`
/// on the two computed as one program in two phases (the inverse dynamics, a closure run at
/// the solved q̈*, reuses the task's subexpressions), and `control` on the full terms where
/// that path does not apply. `None` for other models.
fn inverse_dynamics_path(
    code: &Code,
    eq: &LagrangianEquations,
    (n, r, k): (&Literal, &Literal, &Literal),
    velocity_residual: &[ExprId],
) -> Option<(TokenStream, TokenStream)> {
    let servo = eq.servo.as_ref()?;
    let n_count = code.derivation.coordinates.len();
    if !eq.servo_by_inverse_dynamics(&code.derivation.pool) {
        return None;
    }
    let task_outputs = [
        (
            super::local("constraint_matrix"),
            Output::Matrix(&servo.constraint_matrix),
        ),
        (
            super::local("constraint_rhs"),
            Output::Vector(&servo.constraint_rhs),
        ),
        (
            super::local("position_residual"),
            Output::Vector(&servo.position_residual),
        ),
        (
            super::local("velocity_residual"),
            Output::Vector(velocity_residual),
        ),
    ];
    let (statements, values) = code.emit(&task_outputs);
    let fields: Vec<TokenStream> = (task_outputs.iter().zip(&values))
        .map(|((name, _), value)| super::field(&name.to_string(), value))
        .collect();
    let inverse = code.body("inverse_dynamics", Output::Vector(&servo.inverse_dynamics));
    // The controller's own program: the task, then the inverse dynamics at the solved q̈*,
    // which reuses the task's sines, cosines and rotations.
    let mut both = task_outputs.to_vec();
    both.push((
        super::local("inverse_dynamics"),
        Output::Vector(&servo.inverse_dynamics),
    ));
    let (task_statements, inverse_statements, both_values) = code.emit_in_phases(&both, 4);
    let both_fields = (task_outputs.iter().zip(&both_values))
        .map(|((name, _), value)| super::field(&name.to_string(), value));
    let inverse_value = &both_values[4];
    let runtime = quote!(::udk::__private::udk_runtime);
    let vec_n = vector_type(n_count);
    let doc_task = doc(&format!(
        "The task terms of the servo controller at (q, q̇, t), computed together: A_s ({n_count} × {n_count}), b_s,          the holonomic residuals e and the velocity-level residuals β ({n_count} each): all the controller needs besides          `servo_inverse_dynamics`, since the servo rows alone fix the motion and the inputs are the generalized forces.

         Arguments: `q`, the generalized coordinates; `qd`, their velocities q̇; `t`, the time."
    ));
    let doc_inverse = doc(&format!(
        "The generalized force ({n_count}) the inputs must supply for the acceleration `qdd` at (q, q̇, t):          M q̈ − Q − C at u = 0, by recursive Newton–Euler for a kinematic tree (Featherstone 2008, Table 5.1;          M is never formed), else the product M q̈. Since B = I, these are the inputs.

         Arguments: `q`, the generalized coordinates; `qd`, their velocities q̇; `qdd`, the accelerations q̈; `t`, the time."
    ));
    let allow = super::allowances();
    let items = quote! {
        #doc_task
        #allow
        pub fn servo_task(&self, q: &#vec_n, qd: &#vec_n, t: f64) -> #runtime::servo::ServoTask<#n, #r> {
            #statements
            #runtime::servo::ServoTask { #(#fields,)* }
        }

        #doc_inverse
        #allow
        pub fn servo_inverse_dynamics(&self, q: &#vec_n, qd: &#vec_n, qdd: &#vec_n, t: f64) -> #vec_n {
            #inverse
        }
    };
    let control = quote! {
        #allow
        fn control(
            &self,
            q: &#vec_n,
            qd: &#vec_n,
            t: f64,
            law: #runtime::servo::ServoLaw,
            options: &#runtime::Options,
        ) -> ::core::result::Result<#runtime::servo::ServoControl<#n, #r, #k>, #runtime::Error> {
            #task_statements
            let task = #runtime::servo::ServoTask { #(#both_fields,)* };
            let inverse_dynamics = |qdd: &#vec_n| -> #vec_n {
                #inverse_statements
                #inverse_value
            };
            match #runtime::servo::control_by_inverse_dynamics(&task, inverse_dynamics, law, options)? {
                ::core::option::Option::Some(control) => ::core::result::Result::Ok(control),
                ::core::option::Option::None => #runtime::servo::control::<#n, 0, #r, #k>(
                    &Self::servo_terms(self, q, qd, t),
                    law,
                    options,
                ),
            }
        }
    };
    Some((items, control))
}
