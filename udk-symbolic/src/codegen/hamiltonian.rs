//! The code of a Hamiltonian model: H, H_p, H_q, H_pp, A_p, b_p, the residuals, and the
//! `HamiltonianSystem` impl that turns them into the constrained Hamilton equations.

use super::{allowances, doc, field, local, vector_type, Code, Output, Shared};
use crate::derivation::HamiltonianEquations;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// The inherent impl and the `HamiltonianSystem` impl of the struct `name`.
pub(super) fn generate(name: &Ident, code: &Code, eq: &HamiltonianEquations) -> TokenStream {
    let n = &code.n;
    let n_count = code.derivation.coordinates.len();
    let (m_count, h_count) = (eq.constraints.len(), eq.holonomic.len());
    let m = Literal::usize_unsuffixed(m_count);
    let q = code.coordinate_names();
    let momenta = &code.derivation.momenta;
    let p = format!("({})", momenta.join(", "));
    let vec_n = vector_type(n_count);
    let vec_m = vector_type(m_count);
    let runtime = quote!(::udk::__private::udk_runtime);
    let system = quote!(#runtime::HamiltonianSystem<#n, #m>);
    let error = quote!(#runtime::Error);

    let state = format!(
        "Arguments: `q`, the generalized coordinates {q}; `p`, the generalized momenta {p}; `t`, the time."
    );
    let doc_dof = doc(&format!(
        "Number of generalized coordinates (and momenta): n = {n} {q}, {p}."
    ));
    let doc_m = doc(&format!(
        "Number of constraints φ(q, p, t) = 0: m = {m_count} ({h_count} of them from holonomic constraints)."
    ));
    let doc_equations = doc(
        "The derived H, H_p, H_q, H_pp, A_p and b_p, as plain text and as LaTeX (`EQUATIONS.text`, `EQUATIONS.latex`).",
    );
    let doc_hamiltonian = doc(&format!("The Hamiltonian H(q, p, t).\n\n{state}"));
    let doc_velocity = doc(&format!(
        "The generalized velocities q̇ = H_p = ∂H/∂p, {n} entries (Udwadia 2016, eq 35).\n\n{state}"
    ));
    let doc_terms = doc(&format!(
        "H_p ({n}), H_q ({n}), H_pp ({n} × {n}), A_p ({m_count} × {n}) and b_p ({m_count}), computed together \
         (Udwadia 2016, eqs 9–12).\n\n{state}"
    ));
    let doc_state = doc(&format!(
        "The state derivative (q̇, ṗ), each {n} entries: q̇ = H_p, ṗ = −H_q + H_pp⁻¹A_pᵀ(A_p H_pp⁻¹ A_pᵀ)⁺(b_p + A_p H_q) \
         (Udwadia 2016, eqs 35–36).\n\n{state}\n\n\
         # Errors\n`InconsistentConstraints` when the constraints cannot hold, `NonFinite` when a term is not finite, \
         or the error of a singular H_pp."
    ));
    let doc_force = doc(&format!(
        "The constraint force on ṗ, ṗ + H_q, {n} entries (Udwadia 2016, eq 36).\n\n{state}\n\n# Errors\nAs `state_derivative`."
    ));
    let doc_constraints = doc(&format!(
        "The constraints φ(q, p, t), {m_count} entries (holonomic ones through q̇ = H_p); zero on a consistent state.\n\n{state}"
    ));

    let doc_residual_jacobians = doc(&format!(
        "∂H_p/∂q ({n} × {n}) and the Jacobians of the residuals r = H_pp (w + H_q) − A_pᵀμ ({n} entries) and \
         g = A_p w − b_p ({m_count} entries) with respect to q and p, at the momentum rate w = `p_dot` ({n} entries) \
         and the multipliers μ = `mu` ({m_count} entries), computed together. The runtime turns them into \
         ∂(q̇, ṗ)/∂(q, p) (`udk::runtime::jacobian::state_jacobian`).\n\n{state}"
    ));
    let doc_state_jacobian = doc(&format!(
        "(q̇, ṗ) and their exact Jacobian ∂(q̇, ṗ)/∂(q, p) in four {n} × {n} blocks, from the symbolic Jacobians \
         of Udwadia 2016, eq 36 (`residual_jacobians`), with the default options.\n\n{state}\n\n\
         # Errors\nAs `state_derivative`, `RankChange` where the rank of A_p changes, and `JacobianUnavailable` \
         for a model beyond `udk_symbolic::limits::MAX_JACOBIAN_COST`."
    ));
    let options = quote!(#runtime::Options);
    // The Jacobian items, unless the model is beyond MAX_JACOBIAN_COST.
    let (jacobian_items, jacobian_overrides) = match &eq.jacobians {
        Some(jacobians) => {
            let residual_jacobians = code.matrices(
                &quote!(#runtime::HamiltonianResidualJacobians),
                &jacobians.blocks(),
            );
            (
                quote! {
                    #doc_residual_jacobians
                    pub fn residual_jacobians(&self, q: &#vec_n, p: &#vec_n, t: f64, p_dot: &#vec_n, mu: &#vec_m)
                        -> #runtime::HamiltonianResidualJacobians<#n, #m> {
                        #residual_jacobians
                    }
                },
                quote! {
                    fn state_jacobian_with(&self, q: &#vec_n, p: &#vec_n, t: f64, options: &#options)
                        -> ::core::result::Result<#runtime::StateJacobian<#n>, #error> {
                        let terms = Self::terms(self, q, p, t);
                        #runtime::jacobian::state_jacobian(&terms, options, |p_dot, mu| {
                            Self::residual_jacobians(self, q, p, t, p_dot, mu)
                        })
                    }
                },
            )
        }
        None => (TokenStream::new(), TokenStream::new()),
    };

    let hamiltonian = code.body("hamiltonian", Output::Scalar(eq.hamiltonian));
    let velocity = code.body("velocity", Output::Vector(&eq.h_p));
    let constraints = code.body("constraint_residual", Output::Vector(&eq.constraints));
    let (statements, values) = code.emit(&[
        (local("h_p"), Output::Vector(&eq.h_p)),
        (local("h_q"), Output::Vector(&eq.h_q)),
        (local("h_pp"), Output::Matrix(&eq.h_pp)),
        (local("a_p"), Output::Matrix(&eq.a_p)),
        (local("b_p"), Output::Vector(&eq.b_p)),
    ]);
    let fields = ["h_p", "h_q", "h_pp", "a_p", "b_p"]
        .iter()
        .zip(&values)
        .map(|(name, value)| field(name, value));
    let allow = allowances();
    let Shared {
        constants,
        position_residual,
        holonomic_residual,
        output_values,
    } = code.shared(
        m_count,
        &eq.holonomic,
        [doc_dof, doc_m, doc_equations],
        &quote!(q: &#vec_n, p: &#vec_n,),
        &state,
    );

    quote! {
        #allow
        impl #name {
            #constants

            #doc_hamiltonian
            pub fn hamiltonian(&self, q: &#vec_n, p: &#vec_n, t: f64) -> f64 { #hamiltonian }

            #doc_velocity
            pub fn velocity(&self, q: &#vec_n, p: &#vec_n, t: f64) -> #vec_n { #velocity }

            #doc_terms
            pub fn terms(&self, q: &#vec_n, p: &#vec_n, t: f64) -> #runtime::HamiltonianTerms<#n, #m> {
                #statements
                #runtime::HamiltonianTerms { #(#fields),* }
            }

            #doc_state
            pub fn state_derivative(&self, q: &#vec_n, p: &#vec_n, t: f64)
                -> ::core::result::Result<(#vec_n, #vec_n), #error> {
                <Self as #system>::state_derivative(self, q, p, t)
            }

            #doc_force
            pub fn constraint_force(&self, q: &#vec_n, p: &#vec_n, t: f64) -> ::core::result::Result<#vec_n, #error> {
                <Self as #system>::constraint_force(self, q, p, t)
            }

            #doc_constraints
            pub fn constraint_residual(&self, q: &#vec_n, p: &#vec_n, t: f64) -> #vec_m { #constraints }

            #jacobian_items

            #doc_state_jacobian
            pub fn state_jacobian(&self, q: &#vec_n, p: &#vec_n, t: f64)
                -> ::core::result::Result<#runtime::StateJacobian<#n>, #error> {
                <Self as #system>::state_jacobian(self, q, p, t)
            }

            #position_residual
        }

        #allow
        impl #system for #name {
            const EQUATIONS: #runtime::ModelEquations = Self::EQUATIONS;

            fn terms(&self, q: &#vec_n, p: &#vec_n, t: f64) -> #runtime::HamiltonianTerms<#n, #m> {
                Self::terms(self, q, p, t)
            }

            fn hamiltonian(&self, q: &#vec_n, p: &#vec_n, t: f64) -> f64 {
                Self::hamiltonian(self, q, p, t)
            }

            #holonomic_residual
            const MOMENTUM_NAMES: &'static [&'static str] = &[#(#momenta),*];

            #output_values

            fn constraint_residual(&self, q: &#vec_n, p: &#vec_n, t: f64) -> #vec_m {
                Self::constraint_residual(self, q, p, t)
            }

            #jacobian_overrides
        }
    }
}
