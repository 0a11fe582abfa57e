//! The generated items of a floating-base model with link points that hold them all in place
//! (p̈ = 0 at each, Pinocchio's `constraintDynamics` with `CONTACT_3D` at the points):
//! `contact_terms`, the terms M, Q, A and b of the fundamental equation, and
//! `contact_dynamics`, v̇ and the contact forces λ from the fundamental equation's positive
//! definite path written out over the terms' zeros ([`crate::derive::fundamental`]), with the
//! kernel wherever that path's tests fail.

use super::free_flyer::access;
use super::{doc, matrix_type, vector_type};
use crate::derivation::ExprMatrix;
use crate::derive::fundamental::{fast_path, FastPath};
use crate::derive::tree::free_flyer::{FreeFlyerDynamics, PointKinematics};
use crate::emit::{emit_rust, emit_rust_in_phases};
use crate::expr::{ExprId, Pool, Symbol};
use proc_macro2::TokenStream;
use quote::quote;

/// The most operations (`Pool::operation_count`, after common subexpressions) of a fast path
/// that is generated; a larger one (many held points on a large tree, where its Delassus
/// matrix and its factorization grow as the cube of the rows, or a deep tree, where the
/// factorization of M grows as n times the depth squared) is left out, and `contact_dynamics`
/// calls the kernel on the terms alone, so that the generated code and its compilation stay
/// bounded. A path whose estimate from below ([`fewest_operations`]) exceeds it is not even
/// built. Solo12's four feet take 13 136 (5 353 of them the terms).
const FAST_PATH_BUDGET: usize = 60_000;

/// An estimate from below of the multiplications of the fast path ([`fast_path`]) of the
/// n × n `mass` with `rows` constraints, from the zeros of M alone: with cₖ the entries of
/// column k above the diagonal that are not exactly 0 (a tree numbered parents first: k's
/// ancestors), the elimination of M from the leaves makes Σ cₖ(cₖ + 1)/2 updates and each of
/// the two solves of an n-vector Σ cₖ products; the Delassus matrix has rows(rows + 1)/2
/// entries and its dense factorization rows³/6 updates (a floating base couples every point).
/// O(n²) to count.
fn fewest_operations(pool: &Pool, mass: &ExprMatrix, rows: usize) -> usize {
    let above: Vec<usize> = (0..mass.rows)
        .map(|k| (0..k).filter(|&j| !pool.is_zero(mass.get(j, k))).count())
        .collect();
    let factor: usize = above.iter().map(|c| c * (c + 1) / 2).sum();
    let solves = 2 * above.iter().sum::<usize>();
    factor + solves + rows * (rows + 1) / 2 + rows.pow(3) / 6
}

/// M, Q = [0; τ] − h, A = J (the points' Jacobians stacked) and b = −J̇ v, as DAG nodes.
struct HeldTerms {
    mass: ExprMatrix,
    force: Vec<ExprId>,
    jacobian: ExprMatrix,
    rhs: Vec<ExprId>,
}

impl HeldTerms {
    fn new(pool: &mut Pool, dynamics: &FreeFlyerDynamics, points: &[PointKinematics]) -> Self {
        let force = (dynamics.bias_force.iter().enumerate())
            .map(|(k, &h)| match k.checked_sub(6) {
                Some(joint) => {
                    let tau = pool.symbol(Symbol::Input(joint));
                    pool.sub(tau, h)
                }
                None => pool.neg(h),
            })
            .collect();
        let nv = dynamics.bias_force.len();
        let jacobian = ExprMatrix {
            rows: 3 * points.len(),
            cols: nv,
            entries: points
                .iter()
                .flat_map(|p| p.jacobian.entries.clone())
                .collect(),
        };
        let rhs = (points.iter().flat_map(|p| p.bias))
            .map(|bias| pool.neg(bias))
            .collect();
        Self {
            mass: dynamics.mass_matrix.clone(),
            force,
            jacobian,
            rhs,
        }
    }

    /// Every entry: M (row-major), Q, A (row-major), b.
    fn ids(&self) -> Vec<ExprId> {
        (self.mass.entries.iter())
            .chain(&self.force)
            .chain(&self.jacobian.entries)
            .chain(&self.rhs)
            .copied()
            .collect()
    }
}

/// `contact_terms` and `contact_dynamics` of a model with n joints and the link points
/// `points` (none for a model without link points). Builds the fast path in `pool`.
pub(super) fn held_points(
    pool: &mut Pool,
    dynamics: &FreeFlyerDynamics,
    points: &[PointKinematics],
    n: usize,
) -> TokenStream {
    if points.is_empty() {
        return TokenStream::new();
    }
    let terms = HeldTerms::new(pool, dynamics, points);
    // Built only when a lower bound of its size is within the budget, so that a deep tree or
    // many points never build a path of cubic size only to drop it.
    let path = (fewest_operations(pool, &terms.mass, terms.rhs.len()) <= FAST_PATH_BUDGET)
        .then(|| fast_path(pool, &terms.mass, &terms.force, &terms.jacobian, &terms.rhs))
        .filter(|path| pool.operation_count(&path.outputs()) <= FAST_PATH_BUDGET);
    let (nv, rows) = (6 + n, 3 * points.len());
    let (vec_q, vec_v, vec_n, mat_v, vec_r, mat_rv) = (
        vector_type(7 + n),
        vector_type(nv),
        vector_type(n),
        matrix_type(nv, nv),
        vector_type(rows),
        matrix_type(rows, nv),
    );
    let runtime = quote!(::udk::__private::udk_runtime);
    // The terms, for `contact_terms` and for the kernel when the fast path's tests fail.
    let terms_tokens = |outputs: &[TokenStream]| {
        let (mass, rest) = outputs.split_at(nv * nv);
        let (force, rest) = rest.split_at(nv);
        let (jacobian, rhs) = rest.split_at(rows * nv);
        quote!((
            #mat_v::from_row_slice(&[#(#mass),*]),
            #vec_v::from([#(#force),*]),
            #mat_rv::from_row_slice(&[#(#jacobian),*]),
            #vec_r::from([#(#rhs),*]),
        ))
    };
    let block = emit_rust(pool, &terms.ids(), &access);
    let (statements, terms_value) = (block.statements, terms_tokens(&block.outputs));

    // The kernel's v̇ and λ, the minimum-norm multipliers when points repeat.
    let kernel = |terms_value: TokenStream| {
        quote! {
            let (mass, force, jacobian, rhs) = #terms_value;
            let terms = #runtime::LagrangianView::new(&mass, &force, &jacobian, &rhs);
            Ok(#runtime::acceleration_and_multipliers(terms, &options)?)
        }
    };
    let body = match path {
        Some(path) => {
            let fast = fast_path_tokens(pool, &path, &terms, (nv, rows));
            let (statements, test, later) = (fast.statements, fast.test, fast.later);
            let kernel = kernel(terms_tokens(&fast.terms));
            quote! {
                #statements
                if #test {
                    return Ok((acceleration, multipliers));
                }
                #later
                #kernel
            }
        }
        None => {
            let kernel = kernel(terms_value.clone());
            quote! {
                #statements
                #kernel
            }
        }
    };
    let docs_terms = doc(&format!(
        "The terms of the fundamental equation with every link point held (p̈ = 0 at each): \
         M ({nv} × {nv}), Q = [0; τ] − h ({nv}: h the Coriolis, centrifugal and gravity \
         forces), A = J ({rows} × {nv}: the points' Jacobians stacked, three world-frame rows \
         each, in the order of `POINT_NAMES`) and b = −J̇ v ({rows}), from one program that \
         computes the kinematics once. `udk::runtime::acceleration(LagrangianView::new(&m, &q, \
         &a, &b), &Options::default())` then gives v̇ as Pinocchio's `constraintDynamics` with \
         `CONTACT_3D` at the points (`contact_dynamics` does it in one call); drop rows for \
         the points that are not held.\n\n\
         # Errors\nA `FreeFlyerError` for a zero quaternion or a non-finite entry."
    ));
    let docs_dynamics = doc(&format!(
        "(v̇, λ) with every link point held (p̈ = 0 at each): v̇ ({nv}) and the contact forces λ \
         ({rows}, N: three world-frame components per point, in the order of `POINT_NAMES`, \
         with Jᵀλ = M v̇ − Q), the fundamental equation on the terms of `contact_terms` \
         (Udwadia & Kalaba 1993, eqs 16–17): Pinocchio's `constraintDynamics` with \
         `CONTACT_3D` at the points (its `ddq` and `lambda_c`). Its positive definite path \
         (M = U D Uᵀ, the Delassus matrix A M⁻¹ Aᵀ = V E Vᵀ) is generated in straight lines \
         over the terms' zeros; its answer is returned where \
         `udk::runtime::fast_path::holds` passes on its pivots and residual, and anywhere \
         else `udk::runtime::acceleration_and_multipliers` solves the terms (redundant or \
         nearly redundant contacts, a singular M) with `Options::default()`, λ then the \
         minimum-norm multipliers (Jᵀ)⁺Qᶜ.\n\n\
         # Errors\n`ContactDynamicsError::State` for a zero quaternion or a non-finite entry; \
         `ContactDynamicsError::Dynamics` for the kernel's errors (no unique v̇, \
         inconsistent contacts, a failed residual check)."
    ));
    let check = quote!(#runtime::free_flyer::check(
        q.as_slice(),
        &[("v", v.as_slice()), ("tau", tau.as_slice())],
    )?;);
    quote! {
        #docs_terms
        pub fn contact_terms(
            &self,
            q: &#vec_q,
            v: &#vec_v,
            tau: &#vec_n,
            t: f64,
        ) -> ::core::result::Result<(#mat_v, #vec_v, #mat_rv, #vec_r), #runtime::free_flyer::FreeFlyerError> {
            #check
            #statements
            Ok(#terms_value)
        }

        #docs_dynamics
        pub fn contact_dynamics(
            &self,
            q: &#vec_q,
            v: &#vec_v,
            tau: &#vec_n,
            t: f64,
        ) -> ::core::result::Result<(#vec_v, #vec_r), #runtime::free_flyer::ContactDynamicsError> {
            #check
            let options = #runtime::Options::default();
            #body
        }
    }
}

/// The fast path in generated code: `statements` compute q̈ (`acceleration`), λ
/// (`multipliers`), the residual, the pivots and the rows' largest entries, `test` is
/// `udk_runtime::fast_path::holds` on them, and `later` computes what the kernel's `terms`
/// (M, Q, A, b) need beyond that.
struct FastPathTokens {
    statements: TokenStream,
    test: TokenStream,
    later: TokenStream,
    terms: Vec<TokenStream>,
}

/// The [`FastPathTokens`] of `path` on `terms` (nv coordinates, `rows` constraints).
fn fast_path_tokens(
    pool: &Pool,
    path: &FastPath,
    terms: &HeldTerms,
    (nv, rows): (usize, usize),
) -> FastPathTokens {
    let runtime = quote!(::udk::__private::udk_runtime);
    // Each row's entries that are not exactly zero, for its largest magnitude.
    let nonzero_rows: Vec<Vec<ExprId>> = (0..rows)
        .map(|i| {
            (0..nv)
                .map(|j| terms.jacobian.get(i, j))
                .filter(|&a| !pool.is_zero(a))
                .collect()
        })
        .collect();
    let first: Vec<ExprId> = (path.outputs().into_iter())
        .chain(nonzero_rows.iter().flatten().copied())
        .collect();
    let count = first.len();
    let all: Vec<ExprId> = first.into_iter().chain(terms.ids()).collect();
    let block = emit_rust_in_phases(pool, &all, count, &access);
    let (fast, terms) = block.outputs.split_at(count);
    let (acceleration, rest) = fast.split_at(nv);
    let (multipliers, rest) = rest.split_at(rows);
    let (residual, rest) = rest.split_at(rows);
    let (pivots, mut entries) = rest.split_at(2 * (nv + rows));
    let pair = |k: usize| {
        let (pivot, diagonal) = (&pivots[2 * k], &pivots[2 * k + 1]);
        quote!((#pivot, #diagonal))
    };
    let (mass_pivots, delassus_pivots) = ((0..nv).map(pair), (nv..nv + rows).map(pair));
    let row_scales = nonzero_rows.iter().map(|row| {
        let (values, rest) = entries.split_at(row.len());
        entries = rest;
        quote!(0.0_f64 #(.max(f64::abs(#values)))*)
    });
    let (vec_v, vec_r) = (vector_type(nv), vector_type(rows));
    let statements = block.statements;
    FastPathTokens {
        statements: quote! {
            #statements
            let acceleration = #vec_v::from([#(#acceleration),*]);
            let multipliers = #vec_r::from([#(#multipliers),*]);
        },
        test: quote!(#runtime::fast_path::holds(
            acceleration.as_slice(),
            &[#(#residual),*],
            &[#(#row_scales),*],
            &[#(#mass_pivots),*],
            &[#(#delassus_pivots),*],
            &options,
        )),
        later: block.later,
        terms: terms.to_vec(),
    }
}
