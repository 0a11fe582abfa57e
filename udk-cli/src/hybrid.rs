//! The events of a model file (`[[events]]`, [`udk_symbolic::EventSpec`]): their guards,
//! conditions and resets lowered into tapes and handed to the simulator as
//! [`udk_runtime::simulate::Event`]s, and the event log of a run; its contacts
//! (`[[contacts]]`, [`udk_symbolic::ContactSpec`]) as the
//! [`udk_runtime::simulate::Contact`]s of a
//! [`udk_runtime::simulate::ContactSet`].
//!
//! A reset applies the impact of its rows by the fundamental equation at velocity level
//! ([`udk_runtime::impact()`]: q̇⁺ = q̇⁻ + M^-½ (Ĵ M^-½)⁺ (b̂ − Ĵ q̇⁻), with Ĵ the impacting rows,
//! restitution e, stacked on the model's persistent constraint rows), then the map of the
//! coordinates q⁺ = R(t, q) with q̇⁺ = (∂R/∂q) q̇ (or the file's own q̇⁺).

use crate::failure::Failure;
use crate::model::{list, Model, Monitor};
use nalgebra::{DMatrix, DVector, SVector};
use std::cell::RefCell;
use std::fmt::Write as _;
use udk_runtime::simulate::{
    Action, Contact, ContactGeometry, Direction, DynamicLagrangianSystem, Event, EventRecord,
};
use udk_runtime::{impact, Options};
use udk_symbolic::emit::{compile_tape, TapeInputs};
use udk_symbolic::expr::{ExprId, Symbol};
use udk_symbolic::{
    Coefficient, ContactSpec, Errors, EventAction, EventDirection, EventSpec, Expression,
};

/// A row of an impact: the gradient ∂φ/∂q of a gap function (its offset in the reset tape's
/// outputs), or a row of the model's constraint matrix A.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Row {
    Gap(usize),
    Model(usize),
}

/// The reset of an event, its entries laid out in the reset tape's outputs.
#[derive(Debug)]
struct Reset {
    /// The impacting rows, with restitution `restitution`.
    impact: Vec<Row>,
    restitution: f64,
    /// The model's rows that persist through the impact (e = 0).
    kept: Vec<usize>,
    /// The offsets of R(t, q) (n entries) and ∂R/∂q (n × n, row-major), when given.
    map: Option<(usize, usize)>,
    /// The offset of q̇⁺ (n entries), when given.
    velocities: Option<usize>,
    tape: RefCell<Monitor>,
}

/// One event of a model file, compiled.
#[derive(Debug)]
struct Compiled {
    name: String,
    direction: Direction,
    action: EventAction,
    /// The tape of g and, when given, the condition c.
    guard: RefCell<Monitor>,
    conditional: bool,
    reset: Option<Reset>,
}

/// A contact of a model file, compiled: its tape gives φ, ∂φ/∂q (n), b of φ̈ = (∂φ/∂q) q̈ − b,
/// then the same three for the slip coordinate s (zeros without one).
#[derive(Debug)]
struct CompiledContact {
    name: String,
    restitution: f64,
    friction: f64,
    rest_speed: f64,
    tape: RefCell<Monitor>,
}

/// The events and contacts of a model file, compiled into tapes, with the parameter values
/// and inputs they are evaluated with.
#[derive(Debug)]
pub struct Events {
    events: Vec<Compiled>,
    contacts: Vec<CompiledContact>,
    params: Vec<f64>,
    inputs: Vec<f64>,
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

impl Events {
    /// The events and contacts of `model`'s file, with parameter values `params` and inputs
    /// `inputs`.
    ///
    /// # Errors
    /// [`Failure::BadInput`], located in the file: an expression that does not parse or uses
    /// an unknown name; a guard that depends on neither q nor q̇ (not a function of the
    /// state); a gap or slip coordinate that reads q̇, a gap that depends on no coordinate; a
    /// coefficient that is not a constant of the parameters, or is negative; events or
    /// contacts in a Hamiltonian model; a map `q` or `qd` without n entries; a negative
    /// restitution; a `release` or impact row that names no row of the model; a reset action
    /// with nothing to apply, or reset keys on a stop or record.
    pub fn new(model: &Model, params: &[f64], inputs: &[f64]) -> Result<Self, Failure> {
        let file = &model.file;
        let specs = &file.spec.events;
        let n = model.n();
        if !(specs.is_empty() && file.spec.contacts.is_empty()) && model.is_hamiltonian() {
            return Err(Failure::bad_input(format!(
                "{}: [[events]] and [[contacts]] need a Lagrangian model (the impact acts on q̇)",
                file.name()
            )));
        }
        let holonomic = file.spec.holonomic.len();
        let rows = holonomic + file.spec.nonholonomic.len();
        let empty = Events {
            events: Vec::new(),
            contacts: Vec::new(),
            params: params.to_vec(),
            inputs: inputs.to_vec(),
            n,
        };
        if specs.is_empty() && file.spec.contacts.is_empty() {
            return Ok(empty);
        }
        // The expressions are lowered into a copy of the derivation's pool, so that the
        // definitions they use are the same nodes.
        let mut pool = model.derivation.pool.clone();
        let mut problems = Vec::new();
        let mut events = Vec::with_capacity(specs.len());
        for spec in specs {
            let at = |what: &str| format!("{}: event `{}`: {what}", file.name(), spec.name);
            let row_index = |(is_holonomic, i): (bool, usize)| match is_holonomic {
                true => (i < holonomic).then_some(i),
                false => (i < rows - holonomic).then_some(holonomic + i),
            };
            let mut gaps: Vec<&Expression> = Vec::new();
            let mut impact = Vec::new();
            for row in &spec.impact {
                match named_row(&row.to_string()) {
                    Some(named) => match row_index(named) {
                        Some(i) => impact.push(Row::Model(i)),
                        None => problems.push(at(&format!(
                            "impact row `{}` names no row of the model ({holonomic} holonomic, {} nonholonomic)",
                            file.source_of(row),
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
            for name in &spec.release {
                match named_row(name).and_then(row_index) {
                    Some(i) => released.push(i),
                    None => problems.push(at(&format!(
                        "release `{name}` is not `holonomic[i]` or `nonholonomic[i]` of a row of the model"
                    ))),
                }
            }
            for (key, map) in [("q", &spec.q), ("qd", &spec.qd)] {
                if !map.is_empty() && map.len() != n {
                    problems.push(at(&format!(
                        "`{key}` has {} entries, but the model has n = {n} coordinates ({})",
                        map.len(),
                        list(&model.derivation.coordinates)
                    )));
                }
            }
            let restitution = coefficient(model, &mut pool, params, &spec.restitution)
                .unwrap_or_else(|errors| {
                    problems.extend(file.locate(&errors).lines());
                    0.0
                });
            if !(restitution.is_finite() && restitution >= 0.0) {
                problems.push(at("the restitution must be finite and non-negative"));
            }
            let resets = !(spec.impact.is_empty() && spec.q.is_empty() && spec.qd.is_empty());
            let action = spec.action.unwrap_or(match resets {
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
            match compile(model, &mut pool, spec, &gaps) {
                Ok((guard, reset)) => {
                    let reset = (action == EventAction::Reset).then(|| Reset {
                        kept: (0..rows)
                            .filter(|r| !released.contains(r) && !impact.contains(&Row::Model(*r)))
                            .collect(),
                        impact: impact.clone(),
                        restitution,
                        map: (!spec.q.is_empty()).then_some((reset.1, reset.1 + n)),
                        velocities: (!spec.qd.is_empty()).then_some(reset.2),
                        tape: RefCell::new(reset.0),
                    });
                    events.push(Compiled {
                        name: spec.name.clone(),
                        direction: match spec.direction {
                            EventDirection::Rising => Direction::Rising,
                            EventDirection::Falling => Direction::Falling,
                            EventDirection::Both => Direction::Both,
                        },
                        action,
                        guard: RefCell::new(guard),
                        conditional: spec.when.is_some(),
                        reset,
                    })
                }
                Err(errors) => problems.extend(file.locate(&errors).lines()),
            }
        }
        let mut contacts = Vec::with_capacity(file.spec.contacts.len());
        for spec in &file.spec.contacts {
            let mut value = |c| {
                coefficient(model, &mut pool, params, c).unwrap_or_else(|errors| {
                    problems.extend(file.locate(&errors).lines());
                    0.0
                })
            };
            let (restitution, friction) = (value(&spec.restitution), value(&spec.friction));
            let rest_speed = value(&spec.rest_speed);
            let valid = |x: f64| x.is_finite() && x >= 0.0;
            if !(valid(restitution) && valid(friction) && valid(rest_speed)) {
                problems.push(format!(
                    "{}: contact `{}`: the restitution, friction and rest speed must be finite and non-negative",
                    file.name(),
                    spec.name
                ));
            }
            match compile_contact(model, &mut pool, spec) {
                Ok(tape) => contacts.push(CompiledContact {
                    name: spec.name.clone(),
                    restitution,
                    friction,
                    rest_speed,
                    tape: RefCell::new(tape),
                }),
                Err(errors) => problems.extend(file.locate(&errors).lines()),
            }
        }
        match problems.is_empty() {
            true => Ok(Events {
                events,
                contacts,
                ..empty
            }),
            false => Err(Failure::BadInput(problems)),
        }
    }

    /// The file's contacts, for a [`udk_runtime::simulate::ContactSet`].
    pub fn contacts(&self) -> Vec<Contact<'_>> {
        let n = self.n;
        (self.contacts.iter())
            .map(|c| {
                Contact::new(
                    c.name.clone(),
                    c.restitution,
                    c.friction,
                    move |q, qd, t| {
                        let inputs = self.inputs(t, q, qd);
                        let mut tape = c.tape.borrow_mut();
                        let v = tape.values(&inputs);
                        ContactGeometry {
                            gap: v[0],
                            normal: DVector::from_column_slice(&v[1..=n]),
                            normal_rhs: v[n + 1],
                            tangent: DVector::from_column_slice(&v[n + 3..2 * n + 3]),
                            tangent_rhs: v[2 * n + 3],
                            lateral: None,
                        }
                    },
                )
                .resting_below(c.rest_speed)
            })
            .collect()
    }

    /// The index of the event named `name`.
    ///
    /// # Errors
    /// [`Failure::BadInput`] listing the events when none has that name.
    pub fn index(&self, name: &str) -> Result<usize, Failure> {
        let names: Vec<String> = self.events.iter().map(|e| e.name.clone()).collect();
        names.iter().position(|e| e == name).ok_or_else(|| {
            Failure::bad_input(format!(
                "--section {name}: no event of that name (events: {})",
                list(&names)
            ))
        })
    }

    /// The indices of the events whose action is a reset.
    pub fn resets(&self) -> Vec<usize> {
        (0..self.events.len())
            .filter(|&i| self.events[i].reset.is_some())
            .collect()
    }

    /// The name of event `index`.
    pub fn name(&self, index: usize) -> &str {
        &self.events[index].name
    }

    /// The events for a run of `system` with n = `N` coordinates.
    pub fn events<'a, const N: usize>(
        &'a self,
        system: &'a dyn DynamicLagrangianSystem,
    ) -> Vec<Event<'a, N>> {
        (0..self.events.len())
            .map(|i| self.event(i, system))
            .collect()
    }

    /// Event `index` for a run of `system`.
    pub fn event<'a, const N: usize>(
        &'a self,
        index: usize,
        system: &'a dyn DynamicLagrangianSystem,
    ) -> Event<'a, N> {
        let compiled = &self.events[index];
        let guard = move |t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>| {
            let inputs = self.inputs(t, q.as_slice(), v.as_slice());
            compiled.guard.borrow_mut().values(&inputs)[0]
        };
        let action = match (&compiled.reset, compiled.action) {
            (Some(reset), _) => Action::Reset(Box::new(move |t, q: &SVector<f64, N>, v| {
                let (q, v) = self.reset(reset, system, t, q.as_slice(), v.as_slice())?;
                Ok((
                    SVector::from_column_slice(&q),
                    SVector::from_column_slice(&v),
                ))
            })),
            (None, EventAction::Stop) => Action::Stop,
            (None, _) => Action::Record,
        };
        let event = Event::new(compiled.name.clone(), compiled.direction, guard, action);
        match compiled.conditional {
            true => event.when(move |t, q, v| {
                let inputs = self.inputs(t, q.as_slice(), v.as_slice());
                compiled.guard.borrow_mut().values(&inputs)[1] > 0.0
            }),
            false => event,
        }
    }

    /// The tape inputs at (t, q, q̇).
    fn inputs<'a>(&'a self, t: f64, q: &'a [f64], qd: &'a [f64]) -> TapeInputs<'a> {
        TapeInputs {
            q,
            qd,
            t,
            params: &self.params,
            u: &self.inputs,
            ..TapeInputs::default()
        }
    }

    /// The reset's image of (t, q, q̇): the impact, then the map.
    fn reset(
        &self,
        reset: &Reset,
        system: &dyn DynamicLagrangianSystem,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>), udk_runtime::Error> {
        let n = self.n;
        let mut tape = reset.tape.borrow_mut();
        let mut velocity = DVector::from_column_slice(v);
        if !reset.impact.is_empty() {
            let terms = system.terms(q, v, t);
            let values = tape.values(&self.inputs(t, q, v)).to_vec();
            let a = &terms.constraint_matrix;
            let rows: Vec<Vec<f64>> = (reset.impact.iter())
                .map(|row| match *row {
                    Row::Gap(k) => values[k * n..(k + 1) * n].to_vec(),
                    Row::Model(i) => a.row(i).iter().copied().collect(),
                })
                .chain(
                    reset
                        .kept
                        .iter()
                        .map(|&i| a.row(i).iter().copied().collect()),
                )
                .collect();
            let jacobian = DMatrix::from_fn(rows.len(), n, |i, j| rows[i][j]);
            let restitution = DVector::from_fn(rows.len(), |i, _| match i < reset.impact.len() {
                true => reset.restitution,
                false => 0.0,
            });
            let options = Options::default();
            velocity = impact(
                &terms.mass_matrix,
                &jacobian,
                &restitution,
                &velocity,
                &options,
            )?
            .velocity;
        }
        let values = tape
            .values(&self.inputs(t, q, velocity.as_slice()))
            .to_vec();
        let after = match reset.velocities {
            Some(offset) => DVector::from_column_slice(&values[offset..offset + n]),
            None => match reset.map {
                Some((_, jacobian)) => {
                    DMatrix::from_row_slice(n, n, &values[jacobian..jacobian + n * n]) * velocity
                }
                None => velocity,
            },
        };
        let q = match reset.map {
            Some((map, _)) => values[map..map + n].to_vec(),
            None => q.to_vec(),
        };
        Ok((q, after.as_slice().to_vec()))
    }
}

/// The guard tape [g, c?] of `spec` and its reset tape with the offsets of R and q̇⁺: the
/// gradients of `gaps` (n each), then R (n), ∂R/∂q (n × n, row-major) when `q` is given, then
/// q̇⁺ when `qd` is given.
///
/// # Errors
/// The errors of the expressions; a guard that depends on neither q nor q̇.
fn compile(
    model: &Model,
    pool: &mut udk_symbolic::expr::Pool,
    spec: &EventSpec,
    gaps: &[&Expression],
) -> Result<(Monitor, (Monitor, usize, usize)), Errors> {
    let n = model.n();
    let file = &model.file.spec;
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
    let maps: Vec<&Expression> = gaps
        .iter()
        .copied()
        .chain(&spec.q)
        .chain(&spec.qd)
        .collect();
    let lowered = udk_symbolic::derive::lower(file, pool, &maps)?;
    let gradient = |pool: &mut udk_symbolic::expr::Pool, f: ExprId| -> Vec<ExprId> {
        (0..n)
            .map(|j| pool.diff(f, Symbol::Coordinate(j)))
            .collect()
    };
    let mut outputs = Vec::new();
    for &phi in &lowered[..gaps.len()] {
        outputs.extend(gradient(pool, phi));
    }
    let map_at = outputs.len();
    let map = &lowered[gaps.len()..gaps.len() + spec.q.len()];
    outputs.extend_from_slice(map);
    for &r in map {
        outputs.extend(gradient(pool, r));
    }
    let velocities_at = outputs.len();
    outputs.extend_from_slice(&lowered[gaps.len() + spec.q.len()..]);
    Ok((
        Monitor::new(compile_tape(pool, &guard)),
        (
            Monitor::new(compile_tape(pool, &outputs)),
            map_at,
            velocities_at,
        ),
    ))
}

/// The value of a coefficient with parameter values `params`.
///
/// # Errors
/// The errors of its expression; an expression that depends on more than the parameters.
fn coefficient(
    model: &Model,
    pool: &mut udk_symbolic::expr::Pool,
    params: &[f64],
    value: &Coefficient,
) -> Result<f64, Errors> {
    let expression = match value {
        Coefficient::Number(x) => return Ok(*x),
        Coefficient::Expression(e) => e.as_ref(),
    };
    let id = udk_symbolic::derive::lower(&model.file.spec, pool, &[expression])?[0];
    if pool.depends_on(id, &|s| !matches!(s, Symbol::Parameter(_))) {
        let mut errors = Errors::default();
        errors.push(
            expression.span(),
            "a coefficient is a constant: a number or an expression of the parameters",
        );
        return Err(errors);
    }
    Ok(pool.eval(id, &|s| match s {
        Symbol::Parameter(i) => params[i],
        _ => f64::NAN,
    }))
}

/// The tape of a contact: φ, ∂φ/∂q, b of φ̈ = (∂φ/∂q) q̈ − b, then s, ∂s/∂q and b of s̈ (or
/// zeros without a slip coordinate).
///
/// # Errors
/// The errors of the expressions; a gap or slip that depends on q̇, or a gap that does not
/// depend on q.
fn compile_contact(
    model: &Model,
    pool: &mut udk_symbolic::expr::Pool,
    spec: &ContactSpec,
) -> Result<Monitor, Errors> {
    let n = model.n();
    let mut expressions = vec![&spec.gap];
    expressions.extend(&spec.slip);
    let lowered = udk_symbolic::derive::lower(&model.file.spec, pool, &expressions)?;
    let mut errors = Errors::default();
    let velocity = |s: Symbol| matches!(s, Symbol::Velocity(_) | Symbol::Input(_));
    let coordinate = |s: Symbol| matches!(s, Symbol::Coordinate(_));
    for (expr, &id) in expressions.iter().zip(&lowered) {
        if pool.depends_on(id, &velocity) {
            errors.push(
                expr.span(),
                "a gap or slip coordinate is a function of (q, t) only",
            );
        }
    }
    if !pool.depends_on(lowered[0], &coordinate) {
        errors.push(spec.gap.span(), "the gap depends on no coordinate");
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut outputs = Vec::with_capacity(2 * n + 4);
    for &f in &lowered {
        let rate = pool.time_derivative(f);
        let drift = pool.convective_derivative(rate);
        outputs.push(f);
        outputs.extend((0..n).map(|j| pool.diff(f, Symbol::Coordinate(j))));
        outputs.push(pool.neg(drift));
    }
    let zero = pool.zero();
    outputs.resize(2 * n + 4, zero);
    Ok(Monitor::new(compile_tape(pool, &outputs)))
}

/// The event log of a run as text: a header and one line per event, at most `limit` of them.
pub fn log<const N: usize>(records: &[EventRecord<N>], limit: usize) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut text = format!("events: {}\n", records.len());
    let show = |v: &SVector<f64, N>| format!("{:?}", v.as_slice());
    for record in records.iter().take(limit) {
        let _ = writeln!(
            text,
            "  t = {:.12}  {}  q⁻ = {}  q̇⁻ = {}  q⁺ = {}  q̇⁺ = {}",
            record.t,
            record.name,
            show(&record.before.0),
            show(&record.before.1),
            show(&record.after.0),
            show(&record.after.1)
        );
    }
    if records.len() > limit {
        let _ = writeln!(
            text,
            "  … {} more (--events FILE writes them all)",
            records.len() - limit
        );
    }
    text
}

/// Writes the event log as CSV to `path`: t, name, then q⁻, q̇⁻, q⁺, q̇⁺ by coordinate name.
///
/// # Errors
/// [`Failure::Output`] when the file cannot be written.
pub fn write_log<const N: usize>(
    path: &std::path::Path,
    records: &[EventRecord<N>],
    coordinates: &[String],
) -> Result<(), Failure> {
    let mut text = String::from("t,event");
    for suffix in ["_before", "_dot_before", "_after", "_dot_after"] {
        for c in coordinates {
            let _ = write!(text, ",{c}{suffix}");
        }
    }
    text.push('\n');
    for r in records {
        let _ = write!(text, "{:e},{}", r.t, r.name.replace(',', ";"));
        for v in [&r.before.0, &r.before.1, &r.after.0, &r.after.1] {
            for x in v.iter() {
                let _ = write!(text, ",{x:e}");
            }
        }
        text.push('\n');
    }
    std::fs::write(path, text)
        .map_err(|e| Failure::Output(format!("cannot write {}: {e}", path.display())))
}
