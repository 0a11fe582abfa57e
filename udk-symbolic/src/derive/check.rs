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
