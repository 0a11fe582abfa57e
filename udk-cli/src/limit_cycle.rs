//! `udk limit-cycle`: the periodic orbit of a model file through the section of one of its
//! reset events (a walker's heel strike), by Newton's method on the Poincaré return map
//! ([`udk_runtime::simulate::periodic_dynamic_orbit`]), with its period and Floquet
//! multipliers, as JSON.

use crate::args::LimitCycleArgs;
use crate::failure::Failure;
use crate::hybrid::Events;
use crate::model::{Backend, Evaluator, LagrangianEvaluator, Model};
use crate::simulate::{Tape, MAX_COORDINATES};
use nalgebra::SVector;
use std::cell::RefCell;
use udk_runtime::simulate::{periodic_dynamic_orbit, OrbitOptions, SimulationOptions};

/// Runs `udk limit-cycle` and returns its JSON: `{"state": [q…, q̇…], "period": τ,
/// "multipliers": [[re, im], …], "iterations": k}`, the state on the section just after the
/// reset, the multipliers by decreasing magnitude.
///
/// # Errors
/// [`Failure::BadInput`] for a bad model or events, no `[initial]` guess or one of the wrong
/// length, an unknown `--section`, a section that is not a reset, no reset event (or several
/// without `--section`), bad tolerances, n above [`MAX_COORDINATES`]; [`Failure::Motion`] when
/// a return fails, the event does not fire within `--max-period`, or Newton's method does not
/// converge.
pub fn run(args: &LimitCycleArgs, backend: Backend) -> Result<String, Failure> {
    let model = Model::load(&args.model)?;
    let name = model.file.name();
    if !model.file.spec.speeds.is_empty() {
        return Err(Failure::bad_input(format!(
            "{name}: a limit cycle of a model with generalized speeds is not supported yet: \
             its events are written in q̇"
        )));
    }
    let params = model.parameter_values(&args.set)?;
    let inputs = model.input_values("", None)?;
    let events = Events::new(&model, &params, &inputs, backend)?;
    let resets = events.resets();
    let section = match (&args.section, resets.as_slice()) {
        (Some(section), _) => events.index(section)?,
        (None, [one]) => *one,
        (None, []) => {
            return Err(Failure::bad_input(format!(
                "{name}: no [[events]] with a reset: the section of a limit cycle is a reset"
            )))
        }
        (None, _) => {
            let names: Vec<&str> = resets.iter().map(|&i| events.name(i)).collect();
            return Err(Failure::bad_input(format!(
                "{name}: several reset events ({}): pick the section with --section",
                names.join(", ")
            )));
        }
    };
    if !resets.contains(&section) {
        return Err(Failure::bad_input(format!(
            "--section {}: the event's action is not a reset",
            events.name(section)
        )));
    }
    let Some(initial) = model.file.spec.initial.clone() else {
        return Err(Failure::bad_input(format!(
            "{name}: no guess: add an [initial] table with q0 and qd0 on the section"
        )));
    };
    let context = format!("{name}: ");
    model.check_length(&context, "initial.q0", &initial.q0)?;
    model.check_length(&context, "initial.qd0", &initial.qd0)?;
    let options = SimulationOptions {
        rtol: args.rtol,
        atol: args.atol,
        ..SimulationOptions::default()
    };
    let orbit = OrbitOptions {
        max_period: args.max_period,
        ..OrbitOptions::default()
    };
    let Evaluator::Lagrangian(evaluator) = model.evaluator(params, inputs, backend)? else {
        return Err(Failure::bad_input(format!(
            "{name}: udk limit-cycle needs a Lagrangian model"
        )));
    };
    let search = Search {
        events: &events,
        section,
        options,
        orbit,
        name: &name,
    };
    let n = model.n();
    macro_rules! dispatch {
        ($($size:literal)*) => {
            match n {
                $($size => search.run::<$size>(evaluator, &initial.q0, &initial.qd0),)*
                _ => Err(Failure::bad_input(format!(
                    "{name}: udk limit-cycle handles up to {MAX_COORDINATES} coordinates; this model has {n}"
                ))),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24)
}

/// One search: the events, the section and the options.
struct Search<'a> {
    events: &'a Events,
    section: usize,
    options: SimulationOptions,
    orbit: OrbitOptions,
    name: &'a str,
}

impl Search<'_> {
    fn run<const N: usize>(
        &self,
        evaluator: LagrangianEvaluator,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<String, Failure> {
        let system = Tape {
            evaluator: RefCell::new(evaluator),
            progress: None,
        };
        let bound = self.events.bind()?;
        let event = (bound
            .as_ref()
            .and_then(|b| b.event::<N>(self.section, &system)))
        .ok_or_else(|| Failure::bad_input(format!("{}: no such event", self.name)))?;
        let start = (
            &SVector::<f64, N>::from_column_slice(q0),
            &SVector::<f64, N>::from_column_slice(v0),
        );
        let orbit = periodic_dynamic_orbit(&system, &event, start, &self.options, &self.orbit)
            .map_err(|e| Failure::Motion(format!("{}: {e}", self.name)))?;
        let state: Vec<f64> = orbit.q.iter().chain(orbit.v.iter()).copied().collect();
        let multipliers: Vec<[f64; 2]> = (orbit.multipliers.iter()).map(|z| [z.re, z.im]).collect();
        let json = serde_json::json!({
            "state": state,
            "period": orbit.period,
            "multipliers": multipliers,
            "iterations": orbit.iterations,
        });
        Ok(format!("{json}\n"))
    }
}
