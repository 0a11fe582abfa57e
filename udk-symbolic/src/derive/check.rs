//! Checks of a spec's shape and names, before any expression is parsed.

use crate::error::Errors;
use crate::parse::{Binding, Scope};
use crate::spec::{Expression, ModelSpec, Name};
use proc_macro2::Span;

/// Which kind of model a spec is, with its L or H.
pub(super) enum Kind<'a> {
    /// A Lagrangian model.
    Lagrangian(&'a Expression),
    /// A Hamiltonian model.
    Hamiltonian(&'a Expression),
}

/// Checks which kind of model `spec` is and that its fields fit that kind; `None` when the
/// kind cannot be told (the error is pushed).
pub(super) fn check_spec<'a>(spec: &'a ModelSpec, errors: &mut Errors) -> Option<Kind<'a>> {
    let n = spec.coordinates.len();
    if n == 0 {
        errors.push(
            Span::call_site(),
            format!("model `{}` has no generalized coordinates", spec.name),
        );
    }
    for (field, entries) in [("forces", &spec.forces), ("nonideal", &spec.nonideal)] {
        if !entries.is_empty() && entries.len() != n {
            errors.push(
                entries[0].span(),
                format!(
                    "`{field}` has {} entries; it needs one per coordinate ({n}) or none",
                    entries.len()
                ),
            );
        }
    }
    if spec.joint_pd.is_some() {
        errors.push(
            Span::call_site(),
            "`joint_pd` is a PD law on the joints of a robot on a floating base (`urdf = { .., \
             floating_base = true }`); this model's inputs take their values from `--u`, or \
             from `servo` constraints for a feedback law",
        );
    }
    match (&spec.lagrangian, &spec.hamiltonian) {
        (Some(l), None) => {
            if let Some(p) = spec.momenta.first() {
                errors.push(
                    p.span(),
                    "momenta belong to Hamiltonian models; this model has a Lagrangian",
                );
            }
            if let Some(c) = spec.constraints.first() {
                errors.push(
                    c.span(),
                    "`constraints` φ(q, p, t) belong to Hamiltonian models; write \
                     `holonomic` f(q, t) or `nonholonomic` φ(q, q̇, t) constraints",
                );
            }
            check_speeds(spec, errors);
            Some(Kind::Lagrangian(l))
        }
        (None, Some(h)) => {
            if spec.momenta.len() != n {
                let span = spec.momenta.first().map_or(h.span(), Name::span);
                errors.push(
                    span,
                    format!(
                        "a Hamiltonian model needs one momentum per coordinate ({n}), got {}",
                        spec.momenta.len()
                    ),
                );
            }
            for (field, entries, hint) in [
                (
                    "nonholonomic",
                    &spec.nonholonomic,
                    "write constraints φ(q, p, t) in `constraints`",
                ),
                (
                    "forces",
                    &spec.forces,
                    "include them in H or use a Lagrangian",
                ),
                ("nonideal", &spec.nonideal, "use a Lagrangian model"),
                ("loads", &spec.loads, "use a Lagrangian model"),
                ("servo", &spec.servo, "use a Lagrangian model with inputs"),
            ] {
                if let Some(e) = entries.first() {
                    errors.push(
                        e.span(),
                        format!("a Hamiltonian model takes no `{field}`: {hint}"),
                    );
                }
            }
            if let Some(u) = spec.inputs.first() {
                errors.push(
                    u.span(),
                    "a Hamiltonian model takes no `inputs`: use a Lagrangian model",
                );
            }
            if let Some(u) = spec.speeds.first() {
                errors.push(
                    u.span(),
                    "a Hamiltonian model takes no `speeds`: its momenta are its second state",
                );
            }
            if let Some(k) = spec.kinematics.first() {
                errors.push(
                    k.span(),
                    "a Hamiltonian model takes no `kinematics`: q̇ = H_p",
                );
            }
            Some(Kind::Hamiltonian(h))
        }
        (Some(_), Some(h)) => {
            errors.push(
                h.span(),
                "a model has a Lagrangian or a Hamiltonian, not both",
            );
            None
        }
        (None, None) => {
            errors.push(
                Span::call_site(),
                format!(
                    "model `{}` has neither a Lagrangian nor a Hamiltonian",
                    spec.name
                ),
            );
            None
        }
    }
}

/// The shape of the speeds of a Lagrangian `spec`: as many speeds as coordinates (N square),
/// one kinematic differential equation per coordinate, both or neither, and no servo
/// constraints or contacts with them.
fn check_speeds(spec: &ModelSpec, errors: &mut Errors) {
    let n = spec.coordinates.len();
    match (spec.speeds.first(), spec.kinematics.first()) {
        (None, None) => return,
        (Some(u), None) => errors.push(
            u.span(),
            "`speeds` need their kinematic differential equations: `kinematics(..)` with \
             q̇ᵢ as an expression of q, the speeds and t for each coordinate",
        ),
        (None, Some(k)) => errors.push(
            k.span(),
            "`kinematics` give q̇ in terms of the speeds: name them with `speeds(..)`",
        ),
        (Some(_), Some(_)) => {}
    }
    if let Some(u) = spec.speeds.get(n).or(spec.speeds.first()) {
        if spec.speeds.len() != n {
            errors.push(
                u.span(),
                format!(
                    "the model has {} speeds and {n} coordinates: udk takes one speed per \
                     coordinate (q̇ = N(q, t) u with N square)",
                    spec.speeds.len()
                ),
            );
        }
    }
    if let Some(k) = spec.kinematics.get(n).or(spec.kinematics.first()) {
        if spec.kinematics.len() != n {
            errors.push(
                k.span(),
                format!(
                    "`kinematics` has {} entries; it needs one per coordinate ({n}), q̇ᵢ in \
                     the order of the coordinates",
                    spec.kinematics.len()
                ),
            );
        }
    }
    if let (Some(s), Some(_)) = (spec.servo.first(), spec.speeds.first()) {
        errors.push(
            s.span(),
            "servo constraints are not supported in a model with speeds",
        );
    }
    if let (Some(c), Some(_)) = (spec.contacts.first(), spec.speeds.first()) {
        errors.push(
            c.gap.span(),
            "contacts are not supported in a model with speeds: their rows are taken in q̇",
        );
    }
}

/// The names of `spec`, with an error at each name used twice or reserved (`t`, `PI`).
pub(crate) fn scope(spec: &ModelSpec, errors: &mut Errors) -> Scope {
    let mut scope = Scope::new();
    let names = spec
        .coordinates
        .iter()
        .enumerate()
        .map(|(i, c)| (c, Binding::Coordinate(i)))
        .chain(
            spec.momenta
                .iter()
                .enumerate()
                .map(|(i, p)| (p, Binding::Momentum(i))),
        )
        .chain(
            spec.parameters
                .iter()
                .enumerate()
                .map(|(i, p)| (&p.name, Binding::Parameter(i))),
        )
        .chain(
            spec.inputs
                .iter()
                .enumerate()
                .map(|(i, u)| (u, Binding::Input(i))),
        )
        .chain(
            spec.speeds
                .iter()
                .enumerate()
                .map(|(i, u)| (u, Binding::Speed(i))),
        );
    for (name, binding) in names {
        let text = name.as_string();
        if text == "t" || text == "PI" {
            errors.push(name.span(), format!("`{text}` is reserved (time and π)"));
        } else if let Some(earlier) = scope.bind(&text, binding) {
            let what = earlier.describe();
            errors.push(name.span(), format!("`{text}` is already {what}"));
        }
    }
    scope
}
