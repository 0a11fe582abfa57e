//! [`Workspace`]: the buffers of one thread's evaluations of q̈, reused from state to state, and
//! the two paths of q̈: the articulated-body algorithm of a kinematic tree (O(n), as the
//! generated `factored_acceleration`) and the dense kernel on M, Q, A, b, C.

use super::{lazy, Model, ModelError};
use nalgebra::{DMatrix, DVector};
use udk_jit::{Block, Buffers, JitPair, PairBuffers, Stacked};
use udk_runtime::simulate::DynamicLagrangianTerms;
use udk_runtime::{FactoredView, Options};
use udk_symbolic::emit::TapeInputs;
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

/// The buffers of the articulated-body program, whose outputs q̈₀, the pivots, C, W, A and b
/// (a [`Stacked`] program, in this order) are read in place.
#[derive(Clone, Debug)]
struct Factored {
    buffers: Buffers,
    /// Number of articulated pivots (bodies of the tree).
    pivots: usize,
    /// The terms the factored kernel takes with constraints (m > 0), copied from the outputs.
    terms: FactoredTerms,
}

/// The owned terms of [`FactoredView`].
#[derive(Clone, Debug)]
struct FactoredTerms {
    /// q̈₀ = M⁻¹(Q + C), n.
    unconstrained_acceleration: DVector<f64>,
    /// W = M⁻¹Aᵀ, n × m.
    inverse_mass_constraint: DMatrix<f64>,
    /// A, m × n.
    constraint_matrix: DMatrix<f64>,
    /// b, m.
    constraint_rhs: DVector<f64>,
    /// C, n (zero for ideal constraints).
    nonideal_force: DVector<f64>,
}

impl Model {
    /// The articulated-body program of a kinematic tree (compiled on the first call), `None`
    /// for a model the algorithm does not apply to. Its blocks: q̈₀ (n), the pivots, C (n, or
    /// none for ideal constraints), W (n × m), A (m × n), b (m).
    #[inline]
    fn factored(&self) -> Result<Option<&Stacked>, ModelError> {
        let c = &self.compiled;
        let program = lazy(&c.factored, || {
            let Equations::Lagrangian(e) = &c.derivation.equations else {
                return Ok(None);
            };
            let Some(art) = &e.articulated else {
                return Ok(None);
            };
            let nonideal = if c.nonideal {
                &e.nonideal_force[..]
            } else {
                &[]
            };
            let blocks = [
                Block::vector(&art.unconstrained_acceleration),
                Block::vector(&art.pivots),
                Block::vector(nonideal),
                Block::matrix(&art.inverse_mass_constraint),
                Block::matrix(&e.constraint_matrix),
                Block::vector(&e.constraint_rhs),
            ];
            let name = format!("articulated-body algorithm of `{}`", c.name);
            Stacked::new(&c.derivation.pool, &blocks, &name, c.backend).map(Some)
        })?;
        Ok(program.as_ref())
    }

    /// Buffers for [`Model::acceleration_in`], sized for this model (and its clones).
    ///
    /// # Errors
    /// [`ModelError::WrongKind`] for a Hamiltonian model.
    pub fn workspace(&self) -> Result<Workspace, ModelError> {
        self.kind(false)?;
        let (n, m) = (self.n(), self.m());
        let pivots = match &self.compiled.derivation.equations {
            Equations::Lagrangian(e) => e.articulated.as_ref().map_or(0, |a| a.pivots.len()),
            Equations::Hamiltonian(_) => 0,
        };
        let factored = self.factored()?.map(|program| Factored {
            buffers: program.buffers(),
            pivots,
            terms: FactoredTerms {
                unconstrained_acceleration: DVector::zeros(n),
                inverse_mass_constraint: DMatrix::zeros(n, m),
                constraint_matrix: DMatrix::zeros(m, n),
                constraint_rhs: DVector::zeros(m),
                nonideal_force: DVector::zeros(n),
            },
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

    /// [`Model::acceleration`] at (q, q̇, t) into `qdd` (n entries each), with the buffers of
    /// `workspace` (made by [`Model::workspace`] for this model or a clone of it): allocation-free
    /// for an unconstrained kinematic tree, and bit for bit equal to [`Model::acceleration`].
    /// On an error `qdd` holds no meaningful values.
    ///
    /// # Errors
    /// As [`Model::acceleration`]; [`ModelError::Length`] for `qdd` too.
    ///
    /// # Panics
    /// When `workspace` was made for a model of other sizes.
    #[inline]
    pub fn acceleration_in(
        &self,
        workspace: &mut Workspace,
        q: &[f64],
        qd: &[f64],
        t: f64,
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        self.acceleration_with_inputs_in(workspace, q, qd, &self.u, t, qdd)
    }

    /// [`Model::acceleration_in`] at the inputs `u` (k entries, in the order of
    /// [`Model::inputs`]) instead of those the model holds ([`Model::set_inputs`]): the
    /// efforts of a controller passed at each call, as to the generated `acceleration`, without
    /// copying them into the model or needing it mutable (one model can serve many threads).
    /// The same q̈, bit for bit, as [`Model::set_inputs`] with `u` then
    /// [`Model::acceleration_in`].
    ///
    /// # Errors
    /// As [`Model::acceleration_in`]; [`ModelError::Length`] for `u` too.
    ///
    /// # Panics
    /// When `workspace` was made for a model of other sizes.
    #[inline]
    pub fn acceleration_with_inputs_in(
        &self,
        workspace: &mut Workspace,
        q: &[f64],
        qd: &[f64],
        u: &[f64],
        t: f64,
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        let n = self.n();
        let fits = q.len() == n && qd.len() == n && qdd.len() == n && u.len() == self.u.len();
        if !fits || self.compiled.hamiltonian {
            return self.call_error(q, qd, u, qdd);
        }
        self.parameter_values_into(&mut workspace.params)?;
        self.solve_with(workspace, q, qd, u, t, qdd, None)
    }

    /// The error of a call of [`Model::acceleration_in`] on a Hamiltonian model or with
    /// slices of other lengths than n (k for u).
    #[cold]
    fn call_error(&self, q: &[f64], qd: &[f64], u: &[f64], qdd: &[f64]) -> Result<(), ModelError> {
        self.kind(false)?;
        self.check_state(q, qd)?;
        self.check("qdd", self.n(), qdd.len())?;
        self.check("u", self.u.len(), u.len())
    }

    /// q̈ into `qdd` and, when asked, the constraint force into `force`, at (q, q̇, t) with the
    /// parameters of `workspace` and the model's inputs (all checked by the caller).
    pub(super) fn solve(
        &self,
        workspace: &mut Workspace,
        q: &[f64],
        qd: &[f64],
        t: f64,
        qdd: &mut [f64],
        force: Option<&mut [f64]>,
    ) -> Result<(), ModelError> {
        self.solve_with(workspace, q, qd, &self.u, t, qdd, force)
    }

    /// [`Model::solve`] at the inputs `u` (checked by the caller). Always inlined, with the
    /// evaluation of the compiled program, into its two callers: on a small model the call
    /// and the passing of the `TapeInputs` are a sizeable part of q̈.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn solve_with(
        &self,
        workspace: &mut Workspace,
        q: &[f64],
        qd: &[f64],
        u: &[f64],
        t: f64,
        qdd: &mut [f64],
        mut force: Option<&mut [f64]>,
    ) -> Result<(), ModelError> {
        let Workspace {
            params,
            terms_buffers,
            terms,
            factored,
        } = workspace;
        let inputs = TapeInputs {
            u,
            ..self.tape_inputs(q, qd, t, params)
        };
        if let (Some(program), Some(f)) = (self.factored()?, factored.as_mut()) {
            let outputs = program.eval(&inputs, &mut f.buffers).expect(CHECKED);
            if self.m() == 0 {
                let solved = self.unconstrained_tree(outputs, f.pivots, qdd, &mut force);
                if let Some(solved) = solved {
                    return solved;
                }
            } else if udk_runtime::pivots_usable(&outputs[self.n()..][..f.pivots]) {
                return self.factored_solve(program.split(outputs), &mut f.terms, qdd, force);
            }
        }
        self.dense_solve(&inputs, terms_buffers, terms, qdd, force)
    }

    /// The code for pairs of states of a batch of `states` (see `udk_jit::Function::pair`),
    /// for a kinematic tree without constraints: `None` for other models, or until the
    /// model's batches have asked for enough states.
    pub(super) fn pair(&self, states: usize) -> Result<Option<&JitPair>, ModelError> {
        if self.m() > 0 {
            return Ok(None);
        }
        Ok(self.factored()?.and_then(|program| program.pair(states)))
    }

    /// q̈ at two states (q, q̇, t, and the parameter values of each, `params`) by `pair`, from
    /// [`Model::pair`], into `qdd`: bit for bit [`Model::solve`] at each (a state whose pivots
    /// are not usable takes the dense path as there, through `workspace`, whose parameter
    /// values are then overwritten). The first failure is returned with its state (0 or 1).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_pair(
        &self,
        pair: &JitPair,
        buffers: &mut PairBuffers,
        workspace: &mut Workspace,
        [q, qd]: [[&[f64]; 2]; 2],
        t: [f64; 2],
        params: [&[f64]; 2],
        qdd: [&mut [f64]; 2],
    ) -> Result<(), (usize, ModelError)> {
        let inputs: [TapeInputs; 2] =
            std::array::from_fn(|s| self.tape_inputs(q[s], qd[s], t[s], params[s]));
        let outputs = pair.eval([&inputs[0], &inputs[1]], buffers).expect(CHECKED);
        let pivots = workspace.factored.as_ref().map_or(0, |f| f.pivots);
        for (s, qdd) in qdd.into_iter().enumerate() {
            let solved = match self.unconstrained_tree(outputs[s], pivots, qdd, &mut None) {
                Some(solved) => solved,
                None => {
                    workspace.params.copy_from_slice(params[s]);
                    self.solve(workspace, q[s], qd[s], t[s], qdd, None)
                }
            };
            solved.map_err(|e| (s, e))?;
        }
        Ok(())
    }

    /// q̈ = q̈₀ (and Qᶜ = C) from `outputs`, those of the articulated-body program of a tree
    /// without constraints (q̈₀, the `pivots`, then C when the program has it), as
    /// [`Model::unconstrained`] gives them; `None` when a pivot is not usable (the dense path
    /// serves then, and `force` is left to it).
    #[inline(always)]
    fn unconstrained_tree(
        &self,
        outputs: &[f64],
        pivots: usize,
        qdd: &mut [f64],
        force: &mut Option<&mut [f64]>,
    ) -> Option<Result<(), ModelError>> {
        let (a, rest) = outputs.split_at(self.n());
        let (pivots, c) = rest.split_at(pivots);
        udk_runtime::pivots_usable(pivots).then(|| self.unconstrained(a, c, qdd, force.take()))
    }

    /// q̈ and Qᶜ by the dense kernel on M, Q, A, b, C (the terms program, compiled on its
    /// first use, evaluated into `terms`).
    fn dense_solve(
        &self,
        inputs: &TapeInputs,
        terms_buffers: &mut Option<Buffers>,
        terms: &mut DynamicLagrangianTerms,
        qdd: &mut [f64],
        force: Option<&mut [f64]>,
    ) -> Result<(), ModelError> {
        let options = Options::default();
        let program = self.terms_program()?;
        let buffers = terms_buffers.get_or_insert_with(|| program.buffers());
        (program)
            .eval(inputs, buffers, super::term_slices(terms))
            .expect(CHECKED);
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

    /// q̈ = q̈₀ and Qᶜ = C (zero for ideal constraints) of a tree without constraints, from
    /// the outputs of the articulated-body program, without allocating.
    #[inline(always)]
    fn unconstrained(
        &self,
        a: &[f64],
        c: &[f64],
        qdd: &mut [f64],
        force: Option<&mut [f64]>,
    ) -> Result<(), ModelError> {
        // q̈₀ checked finite in the pass that copies it, a non-finite entry stored as NaN (the
        // error below voids `qdd` anyway): a plain copy would be split off into a call of
        // `memcpy` by LLVM, which costs more than the copy on a small model.
        let mut finite = true;
        for (x, &v) in qdd.iter_mut().zip(a) {
            let ok = v.is_finite();
            finite &= ok;
            *x = if ok { v } else { f64::NAN };
        }
        if !finite {
            return Err(udk_runtime::Error::NonFinite {
                what: "unconstrained acceleration M⁻¹(Q + C)",
            }
            .into());
        }
        // C is empty for ideal constraints.
        if !c.iter().all(|x| x.is_finite()) {
            return Err(udk_runtime::Error::NonFinite {
                what: "non-ideal force C",
            }
            .into());
        }
        if let Some(force) = force {
            if self.compiled.nonideal {
                force.copy_from_slice(c);
            } else {
                force.fill(0.0);
            }
        }
        Ok(())
    }

    /// The factored fundamental equation on the outputs of the articulated-body program
    /// (q̈₀, the pivots, C, W, A, b): `udk_runtime::factored_acceleration_and_constraint_force`
    /// on `terms`, copied from them.
    fn factored_solve(
        &self,
        [a, _, c, w, a_matrix, b]: [&[f64]; 6],
        terms: &mut FactoredTerms,
        qdd: &mut [f64],
        force: Option<&mut [f64]>,
    ) -> Result<(), ModelError> {
        let nonideal = self.compiled.nonideal;
        terms.unconstrained_acceleration.copy_from_slice(a);
        terms.inverse_mass_constraint.copy_from_slice(w);
        terms.constraint_matrix.copy_from_slice(a_matrix);
        terms.constraint_rhs.copy_from_slice(b);
        if nonideal {
            terms.nonideal_force.copy_from_slice(c);
        }
        let (x, g) = udk_runtime::factored_acceleration_and_constraint_force(
            FactoredView {
                unconstrained_acceleration: &terms.unconstrained_acceleration,
                inverse_mass_constraint: &terms.inverse_mass_constraint,
                constraint_matrix: &terms.constraint_matrix,
                constraint_rhs: &terms.constraint_rhs,
                nonideal_force: nonideal.then_some(&terms.nonideal_force),
            },
            &Options::default(),
        )?;
        qdd.copy_from_slice(x.as_slice());
        if let Some(force) = force {
            force.copy_from_slice(g.as_slice());
        }
        Ok(())
    }
}

/// What `expect` says of an evaluation at inputs checked against the model.
const CHECKED: &str = "inputs checked against the model";
