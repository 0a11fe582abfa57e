//! The code of a Lagrangian model: M, Q, A, b, C, the Jacobi integral, the residuals, and the
//! `LagrangianSystem` impl that turns them into motion by the fundamental equation.

use super::{
    allowances, doc, field, is_zero, local, matrix_type, vector_type, Code, Output, Shared,
};
use crate::derivation::LagrangianEquations;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// The inherent impl and the `LagrangianSystem` impl of the struct `name`.
pub(super) fn generate(name: &Ident, code: &Code, eq: &LagrangianEquations) -> TokenStream {
    let n = &code.n;
    let (m_count, h_count) = (eq.constraint_rhs.len(), eq.holonomic.len());
    let m = Literal::usize_unsuffixed(m_count);
    let q = code.coordinate_names();
    let vec_n = vector_type(code.derivation.coordinates.len());
    let vec_m = vector_type(m_count);
    let mat_nn = matrix_type(
        code.derivation.coordinates.len(),
        code.derivation.coordinates.len(),
    );
    let mat_mn = matrix_type(m_count, code.derivation.coordinates.len());
    let runtime = quote!(::udk::__private::udk_runtime);
    let k = Literal::usize_unsuffixed(code.k);
    let system = if code.k == 0 {
        quote!(#runtime::LagrangianSystem<#n, #m>)
    } else {
        quote!(#runtime::ControlledLagrangianSystem<#n, #m, #k>)
    };
    let u = code.input_parameter();
    let u_arg = code.input_argument();
    let error = quote!(#runtime::Error);
    let has_nonideal = !eq
        .nonideal_force
        .iter()
        .all(|&id| is_zero(&code.derivation.pool, id));

    let inputs = if code.k == 0 {
        String::new()
    } else {
        format!(" `u`, the inputs ({});", code.derivation.inputs.join(", "))
    };
    let velocities = match code.derivation.speeds.is_empty() {
        true => "their velocities q̇".to_owned(),
        false => format!(
            "the generalized speeds u ({}), with q̇ = `coordinate_rates(q, qd, t)`: M, Q, A, b and C are \
             taken with respect to u̇, and `acceleration` returns u̇",
            code.derivation.speeds.join(", ")
        ),
    };
    let state = format!(
        "Arguments: `q`, the generalized coordinates {q}; `qd`, {velocities};{inputs} `t`, the time."
    );
    let doc_dof = doc(&format!("Number of generalized coordinates: n = {n} {q}."));
    let doc_m = doc(&format!(
        "Number of constraint equations: m = {m_count} ({h_count} holonomic, {} nonholonomic).",
        m_count - h_count
    ));
    let doc_equations = doc(
        "The derived M, Q, A, b and C, as plain text and as LaTeX (`EQUATIONS.text`, `EQUATIONS.latex`).",
    );
    let mass = match code.derivation.speeds.is_empty() {
        true => "M(q, t) = ∂²L/∂q̇²",
        false => "M_u(q, t) = Nᵀ (∂²L/∂q̇²) N of the speeds",
    };
    let doc_mass = doc(&format!(
        "Mass matrix {mass}, {n} × {n}.\n\nArguments: `q`, the generalized coordinates {q}; `t`, the time."
    ));
    let doc_force = doc(&format!(
        "Generalized force Q(q, q̇, t) = ∂L/∂q − (∂²L/∂q̇∂q) q̇ − ∂²L/∂q̇∂t + the non-conservative forces, {n} entries.\n\n{state}"
    ));
    let doc_a = doc(&format!(
        "Constraint matrix A(q, q̇, t) of A q̈ = b, {m_count} × {n} (Zhao, Chen, Zhao & Dong 2018, eqs 18–29).\n\n{state}"
    ));
    let doc_b = doc(&format!(
        "Right-hand side b(q, q̇, t) of A q̈ = b, {m_count} entries (Zhao, Chen, Zhao & Dong 2018, eqs 18–29).\n\n{state}"
    ));
    let doc_c = doc(&format!(
        "Non-ideal constraint force C(q, q̇, t), {n} entries; zero for ideal constraints (Udwadia & Phohomsiri 2006, eq 2.14).\n\n{state}"
    ));
    let doc_terms = doc(&format!(
        "M ({n} × {n}), Q ({n}), A ({m_count} × {n}), b ({m_count}) and C ({n}, `None` when the constraints are ideal), computed together.\n\n{state}"
    ));
    let doc_acceleration = doc(&format!(
        "The constrained generalized acceleration q̈, {n} entries, by the Udwadia–Kalaba fundamental equation \
         (Udwadia & Kalaba 1993, eq 17; a singular M is handled through M + AᵀA, Udwadia & Wanichanon 2013, eq 3.18).\n\n{state}\n\n\
         # Errors\n`NonUniqueAcceleration` when [M; A] is rank-deficient, `InconsistentConstraints` when A q̈ = b has no solution, \
         `NonFinite` when a term is not finite."
    ));
    let doc_constraint_force = doc(&format!(
        "The constraint force Qᶜ = M q̈ − Q, {n} entries (includes C for non-ideal constraints).\n\n{state}\n\n\
         # Errors\nAs `acceleration`."
    ));
    let doc_names = doc(&format!(
        "The names of the {m_count} rows of A q̈ = b, in order: `holonomic[i]` for the i-th holonomic row, \
         `nonholonomic[i]` for the i-th nonholonomic one (a 3-vector constraint gives three rows)."
    ));
    let doc_multipliers = doc(&format!(
        "The Lagrange multipliers λ, {m_count} entries named by `CONSTRAINT_NAMES`, of the ideal constraint force \
         Qᶜ − C = Aᵀλ: λ = (A M⁻¹ Aᵀ)⁺ (b − A a), a = M⁻¹(Q + C) (Udwadia & Kalaba 1993, eq 16), the minimum-norm λ \
         when rows are redundant (`udk::runtime::constraint_multipliers`). A holonomic row's λ is in generalized \
         force per unit of its f(q, t).\n\n{state}\n\n# Errors\nAs `acceleration`."
    ));
    let row_names = code.derivation.constraint_names();
    let doc_energy = doc(&format!(
        "The Jacobi integral h = q̇ᵀ ∂L/∂q̇ − L (the total energy when L does not depend on t).\n\n{state}"
    ));
    let doc_velocity = doc(&format!(
        "The constraints at velocity level, {m_count} entries: ḟ for each holonomic constraint, then φ(q, q̇, t) \
         for each nonholonomic one; zero on a consistent state.\n\n{state}"
    ));

    let doc_residual_jacobians = doc(&format!(
        "The Jacobians of the residuals r = M v − Q − C − Aᵀλ ({n} entries) and g = A v − b ({m_count} entries) \
         with respect to q, q̇ and u, at the acceleration v = `qdd` ({n} entries) and the multipliers λ = `lambda` \
         ({m_count} entries), computed together: ∂r/∂q, ∂r/∂q̇ ({n} × {n}), ∂r/∂u ({n} × {k}), ∂g/∂q, ∂g/∂q̇ \
         ({m_count} × {n}), ∂g/∂u ({m_count} × {k}). The runtime turns them into ∂q̈/∂(q, q̇, u) \
         (`udk::runtime::jacobian::acceleration_jacobian`).\n\n{state}",
        k = code.k
    ));
    let doc_acceleration_jacobian = doc(&format!(
        "q̈ ({n} entries) and its exact Jacobians ∂q̈/∂q, ∂q̈/∂q̇ ({n} × {n}) and ∂q̈/∂u ({n} × {}), from the \
         symbolic Jacobians of the fundamental equation's residuals (`residual_jacobians`) with the default options; \
         redundant constraints and a singular M are handled at constant rank.\n\n{state}\n\n\
         # Errors\nAs `acceleration`, and `RankChange` where the rank of A or [M; A] changes (q̈ is not \
         differentiable there); `JacobianUnavailable` for a model beyond `udk_symbolic::limits::MAX_JACOBIAN_COST`.",
        code.k
    ));
    let doc_velocity_jacobian = doc(&format!(
        "∂/∂q of the velocity-level constraints (`velocity_residual`), {m_count} × {n}; their ∂/∂q̇ is A.\n\n{state}"
    ));
    let options = quote!(#runtime::Options);
    // The Jacobian items, unless the model is beyond MAX_JACOBIAN_COST (then the trait's
    // defaults say that the derivative is unavailable).
    let (jacobian_items, jacobian_overrides) = match &eq.jacobians {
        Some(jacobians) => {
            let residual_jacobians = code.matrices(
                &quote!(#runtime::ResidualJacobians),
                &jacobians.residual_blocks(),
            );
            let velocity_jacobian = code.body(
                "velocity_residual_jacobian",
                Output::Matrix(&jacobians.velocity_constraints_q),
            );
            (
                quote! {
                    #doc_velocity_jacobian
                    pub fn velocity_residual_jacobian(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #mat_mn {
                        #velocity_jacobian
                    }

                    #doc_residual_jacobians
                    pub fn residual_jacobians(
                        &self, q: &#vec_n, qd: &#vec_n, #u t: f64, qdd: &#vec_n, lambda: &#vec_m,
                    ) -> #runtime::ResidualJacobians<#n, #m, #k> {
                        #residual_jacobians
                    }
                },
                quote! {
                    fn acceleration_jacobian_with(&self, q: &#vec_n, qd: &#vec_n, #u t: f64, options: &#options)
                        -> ::core::result::Result<#runtime::AccelerationJacobian<#n, #k>, #error> {
                        let terms = Self::terms(self, q, qd, #u_arg t);
                        #runtime::jacobian::acceleration_jacobian(terms.view(), options, |qdd, lambda| {
                            Self::residual_jacobians(self, q, qd, #u_arg t, qdd, lambda)
                        })
                        .map_err(|e| e.with_coordinate_names(&Self::COORDINATE_NAMES))
                    }

                    fn velocity_residual_jacobian(&self, q: &#vec_n, qd: &#vec_n, #u t: f64)
                        -> ::core::result::Result<#mat_mn, #error> {
                        ::core::result::Result::Ok(Self::velocity_residual_jacobian(self, q, qd, #u_arg t))
                    }
                },
            )
        }
        None => (TokenStream::new(), TokenStream::new()),
    };

    let mass = code.body("mass_matrix", Output::Matrix(&eq.mass_matrix));
    let force = code.body("generalized_force", Output::Vector(&eq.generalized_force));
    let a = code.body("constraint_matrix", Output::Matrix(&eq.constraint_matrix));
    let b = code.body("constraint_rhs", Output::Vector(&eq.constraint_rhs));
    let c = code.body("nonideal_force", Output::Vector(&eq.nonideal_force));
    let energy = code.body("energy", Output::Scalar(eq.energy));
    let velocity = code.body(
        "velocity_residual",
        Output::Vector(&eq.velocity_constraints),
    );

    // `terms` computes M and Q together so that their shared subexpressions are computed once;
    // where they share almost nothing (a tree: M by composite rigid bodies, Q by Newton–Euler,
    // under 1/20 of their operations in common) it calls `mass_matrix` and
    // `generalized_forces` instead of repeating their code (TIAGo Pro: 14 266 emitted
    // operations fewer).
    let calls = {
        let pool = &code.derivation.pool;
        let (mass, force) = (&eq.mass_matrix.entries, &eq.generalized_force);
        let together = pool.operation_count(&[&mass[..], force].concat());
        let apart = pool.operation_count(mass) + pool.operation_count(force);
        20 * (apart - together) < together
    };
    let mut outputs = Vec::new();
    if !calls {
        outputs.push((local("mass_matrix"), Output::Matrix(&eq.mass_matrix)));
        outputs.push((
            local("generalized_force"),
            Output::Vector(&eq.generalized_force),
        ));
    }
    outputs.push((
        local("constraint_matrix"),
        Output::Matrix(&eq.constraint_matrix),
    ));
    outputs.push((local("constraint_rhs"), Output::Vector(&eq.constraint_rhs)));
    if has_nonideal {
        outputs.push((local("nonideal_force"), Output::Vector(&eq.nonideal_force)));
    }
    let (mut statements, mut values) = code.emit(&outputs);
    if calls {
        statements.extend(quote! {
            let mass_matrix = Self::mass_matrix(self, q, t);
            let generalized_force = Self::generalized_forces(self, q, qd, #u_arg t);
        });
        values.splice(0..0, [quote!(mass_matrix), quote!(generalized_force)]);
    }
    let nonideal_v = match values.get(4) {
        Some(c) => quote!(::core::option::Option::Some(#c)),
        None => quote!(::core::option::Option::None),
    };
    let fields = [
        "mass_matrix",
        "generalized_force",
        "constraint_matrix",
        "constraint_rhs",
    ]
    .iter()
    .zip(&values)
    .map(|(name, value)| field(name, value));
    let factored = eq.articulated.as_ref().map(|art| {
        let mut outputs = vec![
            (
                local("unconstrained_acceleration"),
                Output::Vector(&art.unconstrained_acceleration),
            ),
            (
                local("inverse_mass_constraint"),
                Output::Matrix(&art.inverse_mass_constraint),
            ),
            (
                local("constraint_matrix"),
                Output::Matrix(&eq.constraint_matrix),
            ),
            (local("constraint_rhs"), Output::Vector(&eq.constraint_rhs)),
            (local("pivots"), Output::Vector(&art.pivots)),
        ];
        if has_nonideal {
            outputs.push((local("nonideal_force"), Output::Vector(&eq.nonideal_force)));
        }
        let (statements, values) = code.emit(&outputs);
        let [a, w, a_matrix, b, pivots] = [0, 1, 2, 3, 4].map(|k| values[k].clone());
        let c = match values.get(5) {
            Some(c) => quote!(::core::option::Option::Some(&#c)),
            None => quote!(::core::option::Option::None),
        };
        let doc_factored = doc(&format!(
            "q̈ and the constraint force Qᶜ, {n} entries each, by the articulated-body algorithm (Featherstone 2008, Table 7.1): \
             q̈₀ = M⁻¹(Q + C) and W = M⁻¹Aᵀ in O(n), then q̈ = q̈₀ + W (A W)⁺ (b − A q̈₀), Qᶜ = Aᵀ(A W)⁺(b − A q̈₀) + C \
             (Udwadia & Kalaba 1993, eqs 16–17). Where an articulated pivot is not positive and finite, the dense kernel on M, Q, A, b, C.\n\n\
             {state}\n\n# Errors\nAs `acceleration`."
        ));
        quote! {
            #doc_factored
            pub fn factored_acceleration(&self, q: &#vec_n, qd: &#vec_n, #u t: f64, options: &#runtime::Options)
                -> ::core::result::Result<(#vec_n, #vec_n), #error> {
                #statements
                if !#runtime::pivots_usable(#pivots.as_slice()) {
                    let terms = Self::terms(self, q, qd, #u_arg t);
                    return #runtime::acceleration_and_constraint_force(terms.view(), options)
                        .map_err(|e| e.with_coordinate_names(&Self::COORDINATE_NAMES));
                }
                #runtime::factored_acceleration_and_constraint_force(
                    #runtime::FactoredView {
                        unconstrained_acceleration: &#a,
                        inverse_mass_constraint: &#w,
                        constraint_matrix: &#a_matrix,
                        constraint_rhs: &#b,
                        nonideal_force: #c,
                    },
                    options,
                )
            }
        }
    });
    let (acceleration_body, constraint_force_body) = if factored.is_some() {
        (
            quote!(Self::factored_acceleration(self, q, qd, #u_arg t, &#runtime::Options::default()).map(|(x, _)| x)),
            quote!(Self::factored_acceleration(self, q, qd, #u_arg t, &#runtime::Options::default()).map(|(_, f)| f)),
        )
    } else {
        (
            quote!(<Self as #system>::acceleration(self, q, qd, #u_arg t)),
            quote!(<Self as #system>::constraint_force(self, q, qd, #u_arg t)),
        )
    };
    // The system trait's own q̈ and Qᶜ through the factored form (a model with inputs reaches
    // it through its closed loop, which reads `terms`: the dense path).
    let trait_factored = if factored.is_some() && code.k == 0 {
        quote! {
            fn acceleration_with(&self, q: &#vec_n, qd: &#vec_n, t: f64, options: &#runtime::Options)
                -> ::core::result::Result<#vec_n, #error> {
                Self::factored_acceleration(self, q, qd, t, options).map(|(x, _)| x)
            }

            fn constraint_force(&self, q: &#vec_n, qd: &#vec_n, t: f64)
                -> ::core::result::Result<#vec_n, #error> {
                Self::factored_acceleration(self, q, qd, t, &#runtime::Options::default()).map(|(_, f)| f)
            }
        }
    } else {
        TokenStream::new()
    };
    let (kinematics_items, kinematics_overrides) = match &eq.kinematics {
        Some(kinematics) => {
            let rates = code.body("coordinate_rates", Output::Vector(&kinematics.rates));
            let matrix = code.body("kinematic_matrix", Output::Matrix(&kinematics.matrix));
            let speeds = &code.derivation.speeds;
            let doc_rates = doc(&format!(
                "The kinematic differential equations q̇ = K(q, u, t) = N(q, t) u + c(q, t), {n} entries: \
                 the rates of the coordinates {q} at the speeds u = `qd`.\n\n\
                 Arguments: `q`, the generalized coordinates; `qd`, the speeds ({}); `t`, the time.",
                speeds.join(", ")
            ));
            let doc_matrix = doc(&format!(
                "N(q, t) = ∂q̇/∂u of the kinematic differential equations, {n} × {n}.\n\n\
                 Arguments: `q`, the generalized coordinates {q}; `t`, the time."
            ));
            (
                quote! {
                    /// The generalized speeds' names, in order (the entries of `qd` and of the acceleration u̇).
                    pub const VELOCITY_NAMES: [&'static str; #n] = [#(#speeds),*];

                    #doc_rates
                    pub fn coordinate_rates(&self, q: &#vec_n, qd: &#vec_n, t: f64) -> #vec_n { #rates }

                    #doc_matrix
                    pub fn kinematic_matrix(&self, q: &#vec_n, t: f64) -> #mat_nn { #matrix }
                },
                quote! {
                    const VELOCITY_NAMES: &'static [&'static str] = &[#(#speeds),*];

                    fn coordinate_rates(&self, q: &#vec_n, qd: &#vec_n, t: f64) -> #vec_n {
                        Self::coordinate_rates(self, q, qd, t)
                    }

                    fn kinematic_matrix(&self, q: &#vec_n, t: f64) -> ::core::option::Option<#mat_nn> {
                        ::core::option::Option::Some(Self::kinematic_matrix(self, q, t))
                    }
                },
            )
        }
        None => (TokenStream::new(), TokenStream::new()),
    };
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
        &quote!(q: &#vec_n, qd: &#vec_n, #u),
        &state,
    );

    quote! {
        #allow
        impl #name {
            #constants

            #doc_mass
            pub fn mass_matrix(&self, q: &#vec_n, t: f64) -> #mat_nn { #mass }

            #doc_force
            pub fn generalized_forces(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #vec_n { #force }

            #doc_a
            pub fn constraint_matrix(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #mat_mn { #a }

            #doc_b
            pub fn constraint_rhs(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #vec_m { #b }

            #doc_c
            pub fn nonideal_force(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #vec_n { #c }

            #doc_terms
            pub fn terms(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #runtime::LagrangianTerms<#n, #m> {
                #statements
                #runtime::LagrangianTerms { #(#fields,)* nonideal_force: #nonideal_v }
            }

            #doc_acceleration
            pub fn acceleration(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> ::core::result::Result<#vec_n, #error> {
                #acceleration_body
            }

            #doc_constraint_force
            pub fn constraint_force(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> ::core::result::Result<#vec_n, #error> {
                #constraint_force_body
            }

            #factored

            #doc_names
            pub const CONSTRAINT_NAMES: [&'static str; #m] = [#(#row_names),*];

            #doc_multipliers
            pub fn constraint_multipliers(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> ::core::result::Result<#vec_m, #error> {
                let terms = Self::terms(self, q, qd, #u_arg t);
                #runtime::constraint_multipliers(terms.view(), &#runtime::Options::default())
                    .map_err(|e| e.with_coordinate_names(&Self::COORDINATE_NAMES))
            }

            #doc_energy
            pub fn energy(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> f64 { #energy }

            #position_residual

            #doc_velocity
            pub fn velocity_residual(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #vec_m { #velocity }

            #jacobian_items

            #kinematics_items

            #doc_acceleration_jacobian
            pub fn acceleration_jacobian(&self, q: &#vec_n, qd: &#vec_n, #u t: f64)
                -> ::core::result::Result<#runtime::AccelerationJacobian<#n, #k>, #error> {
                <Self as #system>::acceleration_jacobian(self, q, qd, #u_arg t)
            }
        }

        #allow
        impl #system for #name {
            const EQUATIONS: #runtime::ModelEquations = Self::EQUATIONS;

            fn terms(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #runtime::LagrangianTerms<#n, #m> {
                Self::terms(self, q, qd, #u_arg t)
            }

            fn energy(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> f64 {
                Self::energy(self, q, qd, #u_arg t)
            }

            #holonomic_residual

            #output_values

            #trait_factored

            fn velocity_residual(&self, q: &#vec_n, qd: &#vec_n, #u t: f64) -> #vec_m {
                Self::velocity_residual(self, q, qd, #u_arg t)
            }

            #jacobian_overrides

            #kinematics_overrides
        }
    }
}
