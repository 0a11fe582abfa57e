//! [`Workspace`]: the buffers of one thread's evaluations of q̈, reused from state to state, and
//! the two paths of q̈: the articulated-body algorithm of a kinematic tree (O(n), as the
//! generated `factored_acceleration`) and the dense kernel on M, Q, A, b, C.

use super::{lazy, Model, ModelError};
use nalgebra::{DMatrix, DVector};
use udk_jit::{Block, Buffers, Scatter};
use udk_runtime::simulate::DynamicLagrangianTerms;
use udk_runtime::{FactoredView, Options};
use udk_symbolic::Equations;

/// The buffers [`Model::acceleration_in`] evaluates into, made once by [`Model::workspace`]
/// and reused: with them, q̈ of a kinematic tree without constraints allocates nothing (the
/// articulated-body algorithm compiled by the JIT writes q̈₀ = M⁻¹(Q + C) into them, and it
/// is q̈). The dense kernel and the factored one with constraints still allocate their own
/// factorizations. One workspace per thread; cloning makes another.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// The parameter values of the evaluation, in the model's order.
    pub(super) params: Vec<f64>,
    /// The buffers of the terms program, made on the first use of the dense path.
    terms_buffers: Option<Buffers>,
    terms: DynamicLagrangianTerms,
    factored: Option<Factored>,
}

/// The outputs of the articulated-body program, with its buffers.
#[derive(Clone, Debug)]
struct Factored {
    buffers: Buffers,
    /// q̈₀ = M⁻¹(Q + C), n.
    unconstrained_acceleration: DVector<f64>,
    /// W = M⁻¹Aᵀ, n × m.
    inverse_mass_constraint: DMatrix<f64>,
    /// A, m × n.
    constraint_matrix: DMatrix<f64>,
    /// b, m.
    constraint_rhs: DVector<f64>,
    /// The articulated pivots, one per body.
    pivots: DVector<f64>,
    /// C, n (zero for ideal constraints).
    nonideal_force: DVector<f64>,
}

impl Model {
    /// The articulated-body program of a kinematic tree (compiled on the first call), `None`
    /// for a model the algorithm does not apply to.
    fn factored(&self) -> Result<Option<&Scatter>, ModelError> {
        let c = &self.compiled;
        let scatter = lazy(&c.factored, || {
            let Equations::Lagrangian(e) = &c.derivation.equations else {
                return Ok(None);
            };
            let Some(art) = &e.articulated else {
                return Ok(None);
            };
            let blocks = [
                Block::vector(&art.unconstrained_acceleration),
                Block::matrix(&art.inverse_mass_constraint),
                Block::matrix(&e.constraint_matrix),
                Block::vector(&e.constraint_rhs),
                Block::vector(&art.pivots),
                Block::vector(&e.nonideal_force),
            ];
            let name = format!("articulated-body algorithm of `{}`", c.name);
            Scatter::new(&c.derivation.pool, &blocks, &name, c.backend).map(Some)
        })?;
        Ok(scatter.as_ref())
    }

    /// Buffers for [`Model::acceleration_in`], sized for this model (and its clones).
    ///
    /// # Errors
    /// [`ModelError::WrongKind`] for a Hamiltonian model; [`ModelError::Jit`] when Cranelift
    /// fails on the articulated-body program (compiled on the first call).
    pub fn workspace(&self) -> Result<Workspace, ModelError> {
        self.kind(false)?;
        let (n, m) = (self.n(), self.m());
        let factored = self.factored()?.map(|scatter| Factored {
            buffers: scatter.buffers(),
            unconstrained_acceleration: DVector::zeros(n),
            inverse_mass_constraint: DMatrix::zeros(n, m),
            constraint_matrix: DMatrix::zeros(m, n),
            constraint_rhs: DVector::zeros(m),
            pivots: DVector::zeros(self.pivot_count()),
            nonideal_force: DVector::zeros(n),
        });
        Ok(Workspace {
            params: vec![0.0; self.values.len()],
            terms_buffers: None,
            terms: DynamicLagrangianTerms {
                mass_matrix: DMatrix::zeros(n, n),
                generalized_force: DVector::zeros(n),
                constraint_matrix: DMatrix::zeros(m, n),
                constraint_rhs: DVector::zeros(m),
                nonideal_force: self.compiled.nonideal.then(|| DVector::zeros(n)),
            },
            factored,
        })
    }

    /// Number of articulated pivots (bodies of the tree), 0 without the algorithm.
    fn pivot_count(&self) -> usize {
        match &self.compiled.derivation.equations {
            Equations::Lagrangian(e) => e.articulated.as_ref().map_or(0, |a| a.pivots.len()),
            Equations::Hamiltonian(_) => 0,
        }
    }

    /// [`Model::acceleration`] at (q, q̇, t) into `qdd` (n entries each), with the buffers of
    /// `workspace` (made by [`Model::workspace`] for this model or a clone of it): allocation-free
    /// for an unconstrained kinematic tree, and bit for bit equal to [`Model::acceleration`].
    ///
    /// # Errors
    /// As [`Model::acceleration`]; [`ModelError::Length`] for `qdd` too.
    ///
    /// # Panics
    /// When `workspace` was made for a model of other sizes.
    pub fn acceleration_in(
        &self,
        workspace: &mut Workspace,
        q: &[f64],
        qd: &[f64],
        t: f64,
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        self.kind(false)?;
        self.check_state(q, qd)?;
        self.check("qdd", self.n(), qdd.len())?;
        self.parameter_values_into(&mut workspace.params)?;
        self.solve(workspace, q, qd, t, qdd, None)
    }

    /// q̈ into `qdd` and, when asked, the constraint force into `force`, at (q, q̇, t) with the
    /// parameters of `workspace` (all checked by the caller).
    pub(super) fn solve(
        &self,
        workspace: &mut Workspace,
        q: &[f64],
        qd: &[f64],
        t: f64,
        qdd: &mut [f64],
        force: Option<&mut [f64]>,
    ) -> Result<(), ModelError> {
        let options = Options::default();
        let Workspace {
            params,
            terms_buffers,
            terms,
            factored,
        } = workspace;
        let inputs = self.tape_inputs(q, qd, t, params);
        let checked = "inputs checked against the model";
        if let (Some(scatter), Some(f)) = (self.factored()?, factored.as_mut()) {
            let blocks = [
                f.unconstrained_acceleration.as_mut_slice(),
                f.inverse_mass_constraint.as_mut_slice(),
                f.constraint_matrix.as_mut_slice(),
                f.constraint_rhs.as_mut_slice(),
                f.pivots.as_mut_slice(),
                f.nonideal_force.as_mut_slice(),
            ];
            scatter
                .eval(&inputs, &mut f.buffers, blocks)
                .expect(checked);
            if udk_runtime::pivots_usable(f.pivots.as_slice()) {
                return self.factored_solve(f, qdd, force, &options);
            }
        }
        let program = self.terms_program()?;
        let buffers = terms_buffers.get_or_insert_with(|| program.buffers());
        (program)
            .eval(&inputs, buffers, super::term_slices(terms))
            .expect(checked);
        // A non-unique acceleration names its free coordinates.
        let named = |e: udk_runtime::Error| {
            e.with_coordinate_names(&self.compiled.derivation.coordinate_names)
        };
        match force {
            Some(force) => {
                let (x, g) =
                    udk_runtime::acceleration_and_constraint_force_dyn(terms.view(), &options)
                        .map_err(named)?;
                qdd.copy_from_slice(x.as_slice());
                force.copy_from_slice(g.as_slice());
            }
            None => {
                let x = udk_runtime::acceleration_dyn(terms.view(), &options).map_err(named)?;
                qdd.copy_from_slice(x.as_slice());
            }
        }
        Ok(())
    }

    /// The factored fundamental equation on the outputs of the articulated-body program:
    /// `udk_runtime::factored_acceleration_and_constraint_force`, whose answer without
    /// constraints (q̈ = q̈₀, Qᶜ = C) is written here without allocating.
    fn factored_solve(
        &self,
        f: &Factored,
        qdd: &mut [f64],
        force: Option<&mut [f64]>,
        options: &Options,
    ) -> Result<(), ModelError> {
        let nonideal = self.compiled.nonideal.then_some(&f.nonideal_force);
        if self.m() == 0 {
            let finite = |v: &DVector<f64>| v.iter().all(|x| x.is_finite());
            if !finite(&f.unconstrained_acceleration) {
                return Err(udk_runtime::Error::NonFinite {
                    what: "unconstrained acceleration M⁻¹(Q + C)",
                }
                .into());
            }
            if !nonideal.is_none_or(finite) {
                return Err(udk_runtime::Error::NonFinite {
                    what: "non-ideal force C",
                }
                .into());
            }
            qdd.copy_from_slice(f.unconstrained_acceleration.as_slice());
            if let Some(force) = force {
                match nonideal {
                    Some(c) => force.copy_from_slice(c.as_slice()),
                    None => force.fill(0.0),
                }
            }
            return Ok(());
        }
        let (x, g) = udk_runtime::factored_acceleration_and_constraint_force(
            FactoredView {
                unconstrained_acceleration: &f.unconstrained_acceleration,
                inverse_mass_constraint: &f.inverse_mass_constraint,
                constraint_matrix: &f.constraint_matrix,
                constraint_rhs: &f.constraint_rhs,
                nonideal_force: nonideal,
            },
            options,
        )?;
        qdd.copy_from_slice(x.as_slice());
        if let Some(force) = force {
            force.copy_from_slice(g.as_slice());
        }
        Ok(())
    }
}
