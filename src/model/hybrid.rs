//! The events (`[[events]]`, [`udk_symbolic::EventSpec`]) and unilateral contacts
//! (`[[contacts]]`, [`udk_symbolic::ContactEquations`]) of a model spec, compiled: [`Hybrid`], and
//! with parameter values and inputs bound, [`BoundHybrid`], which hands them to the
//! udk-runtime simulator as [`Event`]s and the [`Contact`]s of a [`ContactSet`].
//!
//! A reset applies the impact of its rows by the fundamental equation at velocity level
//! ([`udk_runtime::impact()`]: q̇⁺ = q̇⁻ + M^-½ (Ĵ M^-½)⁺ (b̂ − Ĵ q̇⁻), with Ĵ the impacting rows,
//! restitution e, stacked on the model's persistent constraint rows), then the map of the
//! coordinates q⁺ = R(t, q) with q̇⁺ = (∂R/∂q) q̇ (or the spec's own q̇⁺).

use super::ModelError;
use nalgebra::{DMatrix, DVector, SVector};
use std::cell::RefCell;
use std::ops::ControlFlow;
use udk_jit::{Backend, Function};
use udk_runtime::simulate::{
    simulate_dynamic_lagrangian_with_events, Action, Contact, ContactGeometry, ContactRow,
    ContactSet, Direction, DynamicLagrangianSystem, Event, Sample, SimulationError,
    SimulationOptions, Trajectory,
};
use udk_runtime::{rheonomic_impact, Options};
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::expr::{ExprId, Pool, Symbol};
use udk_symbolic::{
    Coefficient, Derivation, Errors, EventAction, EventDirection, EventSpec, Expression, ModelSpec,
};

/// Where a model spec's expressions come from, so that the errors of its events and contacts
/// name their place: a model file (the CLI locates each error at its line and column) or a
/// spec built in memory ([`SpecText`]).
pub trait SpecSource {
    /// The name that starts each message (a file name).
    fn name(&self) -> String;
    /// Each error of `errors` as one line, located.
    fn locate(&self, errors: &Errors) -> Vec<String>;
    /// The text of `expression` as the source writes it.
    fn source_of(&self, expression: &Expression) -> String;
}

/// A spec with no source text: messages start with `model \`name\``, expressions are shown
/// as tokens.
#[derive(Clone, Debug)]
pub struct SpecText {
    /// The model's name.
    pub model: String,
}

impl SpecSource for SpecText {
    fn name(&self) -> String {
        format!("model `{}`", self.model)
    }

    fn locate(&self, errors: &Errors) -> Vec<String> {
        let name = self.name();
        errors.0.iter().map(|e| format!("{name}: {e}")).collect()
    }

    fn source_of(&self, expression: &Expression) -> String {
        expression.to_string()
    }
}

/// A row of an impact: the gradient ∂φ/∂q and rate ∂φ/∂t of a gap function φ(q, t) (its index
/// among the gaps of the reset program's outputs), or a row of the model's constraint matrix A.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Row {
    Gap(usize),
    Model(usize),
}

/// A coefficient (restitution, friction, rest speed): a number, or an expression of the
/// parameters in [`Hybrid`]'s pool.
#[derive(Clone, Copy, Debug)]
enum Constant {
    Number(f64),
    Expression(ExprId),
}

/// The reset of an event, its entries laid out in the reset program's outputs.
#[derive(Debug)]
struct Reset {
    /// The impacting rows, with restitution `restitution`.
    impact: Vec<Row>,
    restitution: Constant,
    /// The model's rows that persist through the impact (e = 0).
    kept: Vec<usize>,
    /// The offsets of R(t, q) (n entries) and ∂R/∂q (n × n, row-major), when given.
    map: Option<(usize, usize)>,
    /// The offset of q̇⁺ (n entries), when given.
    velocities: Option<usize>,
    program: Function,
}

/// One event, compiled.
#[derive(Debug)]
struct CompiledEvent {
    name: String,
    direction: Direction,
    action: EventAction,
    /// The program of g and, when given, the condition c.
    guard: Function,
    /// The program of g's gradient [∂g/∂q, ∂g/∂q̇] (2n).
    gradient: Function,
    conditional: bool,
    reset: Option<Reset>,
}

/// A contact, compiled: its program gives φ, ∂φ/∂q (n), b of φ̈ = (∂φ/∂q) q̈ − b, then the
/// same three for the slip coordinate s (zeros without one).
#[derive(Debug)]
struct CompiledContact {
    name: String,
    /// Restitution, friction and rest speed.
    coefficients: [Constant; 3],
    program: Function,
}

/// The events and contacts of a Lagrangian model spec, compiled by the JIT (or the tape):
/// their guards, conditions, reset maps and contact geometry, each a program of the model's
/// inputs; the coefficients are expressions of the parameters, evaluated when bound.
#[derive(Debug)]
pub struct Hybrid {
    /// The model's name.
    model: String,
    events: Vec<CompiledEvent>,
    contacts: Vec<CompiledContact>,
    /// The derivation's pool with the events' expressions lowered into it.
    pool: Pool,
    n: usize,
}

/// `holonomic[i]` or `nonholonomic[i]` (spaces ignored) as (is holonomic, i).
fn named_row(text: &str) -> Option<(bool, usize)> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let (kind, rest) = text.split_once('[')?;
    let index = rest.strip_suffix(']')?.parse().ok()?;
    match kind {
        "holonomic" => Some((true, index)),
        "nonholonomic" => Some((false, index)),
        _ => None,
    }
}

impl Hybrid {
    /// The events and contacts of `spec`, derived as `derivation`, compiled for `backend`;
    /// `None` when the spec has neither. When every entry of `params` (the parameters'
    /// values, in order) is known, the coefficients are checked at them.
    ///
    /// # Errors
    /// [`ModelError::Events`], every problem located by `source`: an expression that does
    /// not parse or uses an unknown name; a guard that depends on neither q nor q̇ (not a
    /// function of the state); a gap or slip coordinate that reads q̇, a gap that depends on
    /// no coordinate; a coefficient that is not a constant of the parameters, or is negative;
    /// events or contacts in a Hamiltonian model; a map `q` or `qd` without n entries; a
    /// `release` or impact row that names no row of the model; a reset action with nothing to
    /// apply, or reset keys on a stop or record.
    pub fn new(
        spec: &ModelSpec,
        derivation: &Derivation,
        params: &[Option<f64>],
        backend: Backend,
        source: &dyn SpecSource,
    ) -> Result<Option<Self>, ModelError> {
        let specs = &spec.events;
        let n = derivation.coordinates.len();
        let failed = |problems| ModelError::Events {
            model: derivation.name.clone(),
            problems,
        };
        if specs.is_empty() && spec.contacts.is_empty() {
            return Ok(None);
        }
        let udk_symbolic::Equations::Lagrangian(equations) = &derivation.equations else {
            return Err(failed(vec![format!(
                "{}: [[events]] and [[contacts]] need a Lagrangian model (the impact acts on q̇)",
                source.name()
            )]));
        };
        // Rows, as the derivation counts them (a 3-vector constraint is three rows) and
        // `Derivation::constraint_names` names them.
        let holonomic = equations.holonomic.len();
        let rows = equations.constraint_rhs.len();
        let derived = &equations.contacts;
        let known: Option<Vec<f64>> = params.iter().copied().collect();
        // The expressions are lowered into a copy of the derivation's pool, so that the
        // definitions they use are the same nodes.
        let mut pool = derivation.pool.clone();
        let mut problems = Vec::new();
        let mut events = Vec::with_capacity(specs.len());
        for event in specs {
            let at = |what: &str| format!("{}: event `{}`: {what}", source.name(), event.name);
            let row_index = |(is_holonomic, i): (bool, usize)| match is_holonomic {
                true => (i < holonomic).then_some(i),
                false => (i < rows - holonomic).then_some(holonomic + i),
            };
            let mut gaps: Vec<&Expression> = Vec::new();
            let mut impact = Vec::new();
            for row in &event.impact {
                match named_row(&row.to_string()) {
                    Some(named) => match row_index(named) {
                        Some(i) => impact.push(Row::Model(i)),
                        None => problems.push(at(&format!(
                            "impact row `{}` names no row of the model ({holonomic} holonomic, {} nonholonomic)",
                            source.source_of(row),
                            rows - holonomic
                        ))),
                    },
                    None => {
                        impact.push(Row::Gap(gaps.len()));
                        gaps.push(row);
                    }
                }
            }
            let mut released = Vec::new();
            for name in &event.release {
                match named_row(name).and_then(row_index) {
                    Some(i) => released.push(i),
                    None => problems.push(at(&format!(
                        "release `{name}` is not `holonomic[i]` or `nonholonomic[i]` of a row of the model"
                    ))),
                }
            }
            for (key, map) in [("q", &event.q), ("qd", &event.qd)] {
                if !map.is_empty() && map.len() != n {
                    problems.push(at(&format!(
                        "`{key}` has {} entries, but the model has n = {n} coordinates ({})",
                        map.len(),
                        derivation.coordinates.join(", ")
                    )));
                }
            }
            let restitution =
                constant(spec, &mut pool, &event.restitution).unwrap_or_else(|errors| {
                    problems.extend(source.locate(&errors));
                    Constant::Number(0.0)
                });
            if let Some(params) = &known {
                let e = value(&pool, restitution, params);
                if !(e.is_finite() && e >= 0.0) {
                    problems.push(at("the restitution must be finite and non-negative"));
                }
            }
            let resets = !(event.impact.is_empty() && event.q.is_empty() && event.qd.is_empty());
            let action = event.action.unwrap_or(match resets {
                true => EventAction::Reset,
                false => EventAction::Record,
            });
            match (action, resets) {
                (EventAction::Reset, false) => problems.push(at(
                    "a reset needs `impact`, `q` or `qd` (what to apply at the event)",
                )),
                (EventAction::Stop | EventAction::Record, true) => problems.push(at(
                    "`impact`, `q` and `qd` belong to a reset (`action = \"reset\"`)",
                )),
                _ => {}
            }
            match lower_event(spec, n, &mut pool, event, &gaps) {
                Ok(lowered) => {
                    let compile = |outputs: &[ExprId], what: &str| {
                        let name =
                            format!("{what} of event `{}` of `{}`", event.name, derivation.name);
                        Function::compile(&pool, outputs, &name, backend)
                    };
                    let reset = match action == EventAction::Reset {
                        true => Some(Reset {
                            kept: (0..rows)
                                .filter(|r| {
                                    !released.contains(r) && !impact.contains(&Row::Model(*r))
                                })
                                .collect(),
                            impact: impact.clone(),
                            restitution,
                            map: (!event.q.is_empty())
                                .then_some((lowered.map_at, lowered.map_at + n)),
                            velocities: (!event.qd.is_empty()).then_some(lowered.velocities_at),
                            program: compile(&lowered.reset, "reset")?,
                        }),
                        false => None,
                    };
                    events.push(CompiledEvent {
                        name: event.name.clone(),
                        direction: match event.direction {
                            EventDirection::Rising => Direction::Rising,
                            EventDirection::Falling => Direction::Falling,
                            EventDirection::Both => Direction::Both,
                        },
                        action,
                        guard: compile(&lowered.guard, "guard")?,
                        gradient: compile(&lowered.gradient, "guard gradient")?,
                        conditional: event.when.is_some(),
                        reset,
                    })
                }
                Err(errors) => problems.extend(source.locate(&errors)),
            }
        }
        let mut contacts = Vec::with_capacity(derived.len());
        for contact in derived {
            let coefficients = contact.coefficients().map(Constant::Expression);
            if let Some(params) = &known {
                let valid = |c| {
                    let x = value(&pool, c, params);
                    x.is_finite() && x >= 0.0
                };
                if !coefficients.into_iter().all(valid) {
                    problems.push(format!(
                        "{}: contact `{}`: the restitution, friction and rest speed must be finite and non-negative",
                        source.name(),
                        contact.name
                    ));
                }
            }
            let name = format!("contact `{}` of `{}`", contact.name, derivation.name);
            contacts.push(CompiledContact {
                name: contact.name.clone(),
                coefficients,
                program: Function::compile(&pool, &contact.geometry(), &name, backend)?,
            })
        }
        match problems.is_empty() {
            true => Ok(Some(Hybrid {
                model: derivation.name.clone(),
                events,
                contacts,
                pool,
                n,
            })),
            false => Err(failed(problems)),
        }
    }

    /// The events' names, in the spec's order.
    pub fn event_names(&self) -> Vec<&str> {
        self.events.iter().map(|e| e.name.as_str()).collect()
    }

    /// The indices of the events whose action is a reset.
    pub fn resets(&self) -> Vec<usize> {
        (0..self.events.len())
            .filter(|&i| self.events[i].reset.is_some())
            .collect()
    }

    /// The events and contacts with the parameter values `params` (in the model's order) and
    /// the inputs `inputs` (k entries) they are evaluated with.
    ///
    /// # Errors
    /// [`ModelError::Events`] naming each event or contact whose coefficient (restitution,
    /// friction, rest speed) is negative or not finite at `params`.
    pub fn bind(&self, params: &[f64], inputs: &[f64]) -> Result<BoundHybrid<'_>, ModelError> {
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        let mut problems = Vec::new();
        let restitutions: Vec<f64> = (self.events.iter())
            .map(|e| {
                let r = e.reset.as_ref();
                let x = r.map_or(0.0, |r| value(&self.pool, r.restitution, params));
                if !valid(x) {
                    problems.push(format!(
                        "event `{}`: the restitution must be finite and non-negative",
                        e.name
                    ));
                }
                x
            })
            .collect();
        let coefficients: Vec<[f64; 3]> = (self.contacts.iter())
            .map(|c| {
                let x = c.coefficients.map(|k| value(&self.pool, k, params));
                if !x.into_iter().all(valid) {
                    problems.push(format!(
                        "contact `{}`: the restitution, friction and rest speed must be finite and non-negative",
                        c.name
                    ));
                }
                x
            })
            .collect();
        if !problems.is_empty() {
            return Err(ModelError::Events {
                model: self.model.clone(),
                problems,
            });
        }
        let buffers =
            |f: &Function| RefCell::new((vec![0.0; f.registers()], vec![0.0; f.outputs()]));
        Ok(BoundHybrid {
            hybrid: self,
            params: params.to_vec(),
            inputs: inputs.to_vec(),
            restitutions,
            coefficients,
            guards: self.events.iter().map(|e| buffers(&e.guard)).collect(),
            gradients: self.events.iter().map(|e| buffers(&e.gradient)).collect(),
            resets: (self.events.iter())
                .map(|e| e.reset.as_ref().map(|r| buffers(&r.program)))
                .collect(),
            contacts: self.contacts.iter().map(|c| buffers(&c.program)).collect(),
        })
    }
}

/// The scratch and output buffers of one program.
type Buffers = RefCell<(Vec<f64>, Vec<f64>)>;

/// The value of a coefficient at `params`.
fn value(pool: &Pool, constant: Constant, params: &[f64]) -> f64 {
    match constant {
        Constant::Number(x) => x,
        Constant::Expression(id) => pool.eval(id, &|s| match s {
            Symbol::Parameter(i) => params[i],
            _ => f64::NAN,
        }),
    }
}

/// The events and contacts of a [`Hybrid`] with parameter values and inputs bound, and the
/// buffers of their programs: what one run uses (not `Sync`: make one per thread).
#[derive(Debug)]
pub struct BoundHybrid<'h> {
    hybrid: &'h Hybrid,
    params: Vec<f64>,
    inputs: Vec<f64>,
    restitutions: Vec<f64>,
    coefficients: Vec<[f64; 3]>,
    guards: Vec<Buffers>,
    gradients: Vec<Buffers>,
    resets: Vec<Option<Buffers>>,
    contacts: Vec<Buffers>,
}

/// The outcome of [`BoundHybrid::simulate`]: the run's, or (outer `Err`) the contacts' error
/// before the run (a failed solve while settling the contacts at the start).
pub type HybridRun<const N: usize> =
    Result<Result<Trajectory<N>, SimulationError<N>>, udk_runtime::Error>;

impl<'h> BoundHybrid<'h> {
    /// The compiled events and contacts.
    pub fn hybrid(&self) -> &'h Hybrid {
        self.hybrid
    }

    /// The program's outputs at (t, q, q̇), passed to `f`.
    fn eval<R>(
        &self,
        function: &Function,
        buffers: &Buffers,
        (t, q, qd): (f64, &[f64], &[f64]),
        f: impl FnOnce(&[f64]) -> R,
    ) -> R {
        let inputs = TapeInputs {
            q,
            qd,
            t,
            params: &self.params,
            u: &self.inputs,
            ..TapeInputs::default()
        };
        let (regs, out) = &mut *buffers.borrow_mut();
        (function.eval(&inputs, regs, out)).expect("inputs of n entries and buffers sized");
        f(out)
    }

    /// The contacts, for a [`ContactSet`].
    pub fn contacts(&self) -> Vec<Contact<'_>> {
        let n = self.hybrid.n;
        (self.hybrid.contacts.iter().zip(&self.contacts))
            .zip(&self.coefficients)
            .map(|((c, buffers), &[restitution, friction, rest_speed])| {
                Contact::new(c.name.clone(), restitution, friction, move |q, qd, t| {
                    // φ, ∂φ/∂q, ∂φ/∂t, b, then s, ∂s/∂q, ∂s/∂t, b (`ContactEquations::geometry`).
                    let row = |v: &[f64]| ContactRow {
                        gradient: DVector::from_column_slice(&v[..n]),
                        rate: v[n],
                        rhs: v[n + 1],
                    };
                    self.eval(&c.program, buffers, (t, q, qd), |v| ContactGeometry {
                        gap: v[0],
                        normal: row(&v[1..]),
                        tangent: row(&v[n + 4..]),
                        lateral: None,
                    })
                })
                .resting_below(rest_speed)
            })
            .collect()
    }

    /// The events for a run of `system` (whose terms the impacts use) with n = `N`.
    pub fn events<'a, const N: usize>(
        &'a self,
        system: &'a dyn DynamicLagrangianSystem,
    ) -> Vec<Event<'a, N>> {
        (0..self.hybrid.events.len())
            .filter_map(|i| self.event(i, system))
            .collect()
    }

    /// Event `index` (of [`Hybrid::event_names`]) for a run of `system`; `None` when there is
    /// no such event.
    pub fn event<'a, const N: usize>(
        &'a self,
        index: usize,
        system: &'a dyn DynamicLagrangianSystem,
    ) -> Option<Event<'a, N>> {
        let compiled = self.hybrid.events.get(index)?;
        let guard_buffers = &self.guards[index];
        let guard = move |t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>| {
            let state = (t, q.as_slice(), v.as_slice());
            self.eval(&compiled.guard, guard_buffers, state, |g| g[0])
        };
        let action = match (&compiled.reset, &self.resets[index], compiled.action) {
            (Some(reset), Some(buffers), _) => {
                let restitution = self.restitutions[index];
                Action::Reset(Box::new(move |t, q: &SVector<f64, N>, v| {
                    let (q, v) = self.reset(
                        (reset, buffers, restitution),
                        system,
                        t,
                        q.as_slice(),
                        v.as_slice(),
                    )?;
                    Ok((
                        SVector::from_column_slice(&q),
                        SVector::from_column_slice(&v),
                    ))
                }))
            }
            (_, _, EventAction::Stop) => Action::Stop,
            _ => Action::Record,
        };
        let gradient_buffers = &self.gradients[index];
        let gradient = move |t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>| {
            let state = (t, q.as_slice(), v.as_slice());
            self.eval(&compiled.gradient, gradient_buffers, state, |g| {
                (
                    SVector::from_column_slice(&g[..N]),
                    SVector::from_column_slice(&g[N..2 * N]),
                )
            })
        };
        let event = Event::new(compiled.name.clone(), compiled.direction, guard, action)
            .with_gradient(gradient);
        Some(match compiled.conditional {
            true => event.when(move |t, q, v| {
                let state = (t, q.as_slice(), v.as_slice());
                self.eval(&compiled.guard, guard_buffers, state, |g| g[1] > 0.0)
            }),
            false => event,
        })
    }

    /// The reset's image of (t, q, q̇): the impact, then the map. The impact holds Newton's law
    /// on φ̇ = (∂φ/∂q) q̇ + ∂φ/∂t of each impacting row (a moving surface) and ends the kept rows
    /// with their velocity residual 0 ([`rheonomic_impact`]).
    fn reset(
        &self,
        (reset, buffers, restitution): (&Reset, &Buffers, f64),
        system: &dyn DynamicLagrangianSystem,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>), udk_runtime::Error> {
        let n = self.hybrid.n;
        let mut velocity = DVector::from_column_slice(v);
        if !reset.impact.is_empty() {
            let terms = system.terms(q, v, t);
            let a = &terms.constraint_matrix;
            // A model row's rate ∂/∂t: its residual at q̇⁻ less A q̇⁻ (0 for a fixed row).
            let model_rates = system.velocity_residual(q, v, t) - a * &velocity;
            let model = |i: usize| (a.row(i).iter().copied().collect(), model_rates[i]);
            let rows: Vec<(Vec<f64>, f64)> =
                self.eval(&reset.program, buffers, (t, q, v), |values| {
                    (reset.impact.iter())
                        .map(|row| match *row {
                            Row::Gap(k) => {
                                let gap = &values[k * (n + 1)..(k + 1) * (n + 1)];
                                (gap[..n].to_vec(), gap[n])
                            }
                            Row::Model(i) => model(i),
                        })
                        .chain(reset.kept.iter().map(|&i| model(i)))
                        .collect()
                });
            let jacobian = DMatrix::from_fn(rows.len(), n, |i, j| rows[i].0[j]);
            let rates = DVector::from_fn(rows.len(), |i, _| rows[i].1);
            let restitution = DVector::from_fn(rows.len(), |i, _| match i < reset.impact.len() {
                true => restitution,
                false => 0.0,
            });
            velocity = rheonomic_impact(
                &terms.mass_matrix,
                &jacobian,
                &rates,
                &restitution,
                &velocity,
                &Options::default(),
            )?
            .velocity;
        }
        let state = (t, q, velocity.as_slice());
        self.eval(&reset.program, buffers, state, |values| {
            let after = match reset.velocities {
                Some(offset) => DVector::from_column_slice(&values[offset..offset + n]),
                None => match reset.map {
                    Some((_, jacobian)) => {
                        DMatrix::from_row_slice(n, n, &values[jacobian..jacobian + n * n])
                            * &velocity
                    }
                    None => velocity.clone(),
                },
            };
            let q = match reset.map {
                Some((map, _)) => values[map..map + n].to_vec(),
                None => q.to_vec(),
            };
            Ok((q, after.as_slice().to_vec()))
        })
    }

    /// Simulates `system` with these events and contacts from (q₀, q̇₀) at t₀ to t_f: the
    /// contacts settled at the start within `options.constraint_tolerance`
    /// ([`ContactSet::settle`]), then `simulate_dynamic_lagrangian_with_events` with the
    /// events followed by the contacts' mode switches; `observe` sees each sample.
    ///
    /// # Errors
    /// The outer `Err` when the contacts cannot be settled at the start (a failed solve of
    /// the fundamental equation); the inner one as `simulate_dynamic_lagrangian_with_events`.
    pub fn simulate<S: DynamicLagrangianSystem, const N: usize>(
        &self,
        system: &S,
        (q0, qd0): (&SVector<f64, N>, &SVector<f64, N>),
        (t0, tf): (f64, f64),
        options: &SimulationOptions,
        observe: impl FnMut(&Sample<N>) -> ControlFlow<()>,
    ) -> HybridRun<N> {
        let contacts = ContactSet::new(system, self.contacts())?;
        let tolerance = options.constraint_tolerance;
        contacts.settle(q0.as_slice(), qd0.as_slice(), t0, tolerance)?;
        let mut events = self.events::<N>(&contacts);
        events.extend(contacts.events::<N>());
        Ok(simulate_dynamic_lagrangian_with_events(
            &contacts,
            (q0, qd0),
            (t0, tf),
            options,
            &events,
            observe,
        ))
    }
}

/// The outputs of an event's programs.
struct Lowered {
    /// g and, when given, the condition c.
    guard: Vec<ExprId>,
    /// g's gradient [∂g/∂q, ∂g/∂q̇] (2n).
    gradient: Vec<ExprId>,
    /// ∂φ/∂q (n) and ∂φ/∂t of each gap, then R (n), ∂R/∂q (n × n, row-major) when `q` is
    /// given, then q̇⁺ when `qd` is given.
    reset: Vec<ExprId>,
    /// The offset of R in `reset`.
    map_at: usize,
    /// The offset of q̇⁺ in `reset`.
    velocities_at: usize,
}

/// The guard and reset outputs of `spec` ([`Lowered`]), `gaps` its impact rows that are gap
/// functions.
///
/// # Errors
/// The errors of the expressions; a guard that depends on neither q nor q̇.
fn lower_event(
    file: &ModelSpec,
    n: usize,
    pool: &mut Pool,
    spec: &EventSpec,
    gaps: &[&Expression],
) -> Result<Lowered, Errors> {
    let mut scalars: Vec<&Expression> = vec![&spec.guard];
    scalars.extend(&spec.when);
    let guard = udk_symbolic::derive::lower(file, pool, &scalars)?;
    let state = |s: Symbol| matches!(s, Symbol::Coordinate(_) | Symbol::Velocity(_));
    if !pool.depends_on(guard[0], &state) {
        let mut errors = Errors::default();
        errors.push(
            spec.guard.span(),
            "the guard depends on neither q nor q̇: it is not a function of the state",
        );
        return Err(errors);
    }
    let state: Vec<Symbol> = ((0..n).map(Symbol::Coordinate))
        .chain((0..n).map(Symbol::Velocity))
        .collect();
    let slope: Vec<ExprId> = (state.iter()).map(|&s| pool.diff(guard[0], s)).collect();
    let maps: Vec<&Expression> = gaps
        .iter()
        .copied()
        .chain(&spec.q)
        .chain(&spec.qd)
        .collect();
    let lowered = udk_symbolic::derive::lower(file, pool, &maps)?;
    let gradient = |pool: &mut Pool, f: ExprId| -> Vec<ExprId> {
        (0..n)
            .map(|j| pool.diff(f, Symbol::Coordinate(j)))
            .collect()
    };
    let mut outputs = Vec::new();
    for &phi in &lowered[..gaps.len()] {
        outputs.extend(gradient(pool, phi));
        outputs.push(pool.diff(phi, Symbol::Time));
    }
    let map_at = outputs.len();
    let map = &lowered[gaps.len()..gaps.len() + spec.q.len()];
    outputs.extend_from_slice(map);
    for &r in map {
        outputs.extend(gradient(pool, r));
    }
    let velocities_at = outputs.len();
    outputs.extend_from_slice(&lowered[gaps.len() + spec.q.len()..]);
    Ok(Lowered {
        guard,
        gradient: slope,
        reset: outputs,
        map_at,
        velocities_at,
    })
}

/// A coefficient lowered into `pool`.
///
/// # Errors
/// The errors of its expression; an expression that depends on more than the parameters.
fn constant(spec: &ModelSpec, pool: &mut Pool, value: &Coefficient) -> Result<Constant, Errors> {
    let expression = match value {
        Coefficient::Number(x) => return Ok(Constant::Number(*x)),
        Coefficient::Expression(e) => e.as_ref(),
    };
    let id = udk_symbolic::derive::lower(spec, pool, &[expression])?[0];
    if pool.depends_on(id, &|s| !matches!(s, Symbol::Parameter(_))) {
        let mut errors = Errors::default();
        errors.push(
            expression.span(),
            "a coefficient is a constant: a number or an expression of the parameters",
        );
        return Err(errors);
    }
    Ok(Constant::Expression(id))
}
