//! Parsing of the attribute's keys (`coordinates(..)`, `lagrangian = ..`, ...) into the parts of a
//! [`ModelSpec`]. Every malformed key is reported; parsing goes on with the next one.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Meta, Token};
use udk_symbolic::urdf::{InertiaCheck, UrdfRoot, UrdfSource};
use udk_symbolic::{Errors, Expression, ModelSpec, Name, NamedExpression};

/// Which macro is expanding: it decides the keys the attribute accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `#[lagrangian(...)]`.
    Lagrangian,
    /// `#[hamiltonian(...)]`.
    Hamiltonian,
}

/// One key of the attribute, named for the [`ModelSpec`] field it fills.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Coordinates,
    Momenta,
    Lagrangian,
    Hamiltonian,
    Holonomic,
    Nonholonomic,
    Constraints,
    Forces,
    Nonideal,
    Inputs,
    Loads,
    Outputs,
    Servo,
    Contacts,
    Speeds,
    Kinematics,
    Urdf,
    Gravity,
    JointDamping,
    Mimic,
    Inertia,
    FloatingBase,
    UrdfRoot,
}

impl Key {
    const ALL: [Key; 23] = [
        Key::Coordinates,
        Key::Momenta,
        Key::Lagrangian,
        Key::Hamiltonian,
        Key::Holonomic,
        Key::Nonholonomic,
        Key::Constraints,
        Key::Forces,
        Key::Nonideal,
        Key::Inputs,
        Key::Loads,
        Key::Outputs,
        Key::Servo,
        Key::Contacts,
        Key::Speeds,
        Key::Kinematics,
        Key::Urdf,
        Key::Gravity,
        Key::JointDamping,
        Key::Mimic,
        Key::Inertia,
        Key::FloatingBase,
        Key::UrdfRoot,
    ];

    fn name(self) -> &'static str {
        match self {
            Key::Coordinates => "coordinates",
            Key::Momenta => "momenta",
            Key::Lagrangian => "lagrangian",
            Key::Hamiltonian => "hamiltonian",
            Key::Holonomic => "holonomic",
            Key::Nonholonomic => "nonholonomic",
            Key::Constraints => "constraints",
            Key::Forces => "forces",
            Key::Nonideal => "nonideal",
            Key::Inputs => "inputs",
            Key::Loads => "loads",
            Key::Outputs => "outputs",
            Key::Servo => "servo",
            Key::Contacts => "contacts",
            Key::Speeds => "speeds",
            Key::Kinematics => "kinematics",
            Key::Urdf => "urdf",
            Key::Gravity => "gravity",
            Key::JointDamping => "joint_damping",
            Key::Mimic => "mimic",
            Key::Inertia => "inertia",
            Key::FloatingBase => "floating_base",
            Key::UrdfRoot => "urdf_root",
        }
    }

    /// Whether the macro `kind` accepts this key.
    fn accepted_by(self, kind: Kind) -> bool {
        match self {
            Key::Coordinates | Key::Holonomic | Key::Outputs => true,
            Key::Lagrangian
            | Key::Nonholonomic
            | Key::Forces
            | Key::Nonideal
            | Key::Inputs
            | Key::Loads
            | Key::Servo
            | Key::Contacts
            | Key::Speeds
            | Key::Kinematics
            | Key::Urdf
            | Key::Gravity
            | Key::JointDamping
            | Key::Mimic
            | Key::Inertia
            | Key::FloatingBase
            | Key::UrdfRoot => kind == Kind::Lagrangian,
            Key::Momenta | Key::Hamiltonian | Key::Constraints => kind == Kind::Hamiltonian,
        }
    }

    /// How the key is written, for error messages.
    fn syntax(self) -> String {
        match self {
            Key::Lagrangian | Key::Hamiltonian => format!("`{} = ..`", self.name()),
            Key::Urdf => "`urdf = \"path\"`".to_owned(),
            Key::JointDamping | Key::Mimic | Key::FloatingBase => {
                format!("`{} = true|false`", self.name())
            }
            Key::Inertia => "`inertia = \"strict\"|\"repair\"`".to_owned(),
            Key::UrdfRoot => "`urdf_root(position = .., rotation = ..)`".to_owned(),
            _ => format!("`{}(..)`", self.name()),
        }
    }
}

impl Kind {
    /// The macro's name, as the user writes it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Lagrangian => "lagrangian",
            Kind::Hamiltonian => "hamiltonian",
        }
    }

    /// The accepted keys as the user would write them, for error messages.
    fn syntax(self) -> String {
        let keys: Vec<String> = Key::ALL
            .iter()
            .filter(|key| key.accepted_by(self))
            .map(|key| key.syntax())
            .collect();
        format!(
            "`let NAME = ..`, {}, `for i in 0..n {{ .. }}`",
            keys.join(", ")
        )
    }
}

/// One entry of the attribute: a definition `let NAME = EXPR`, a key, or a repeated block
/// `for i in 0..n { .. }`.
enum Entry {
    Definition(NamedExpression),
    Key(Meta),
    Repeat(udk_symbolic::repeat::Repeat),
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![for]) {
            crate::repeat::parse(input).map(Entry::Repeat)
        } else if input.peek(Token![let]) {
            input.parse::<Token![let]>()?;
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value: Expr = input.parse()?;
            Ok(Entry::Definition(NamedExpression {
                name: Name(name),
                value: Expression(value),
            }))
        } else {
            input.parse().map(Entry::Key)
        }
    }
}

/// Parses the attribute's tokens into `spec` (every field but `name` and `parameters`), pushing
/// one error per malformed, unknown or repeated key. Returns whether the spec can still be
/// derived, so that the expressions' errors are reported too: not when the attribute does not
/// parse at all or its coordinates, momenta, L or H are malformed (every expression would then
/// report names it cannot know), but after an unknown or repeated key or another malformed one.
pub fn parse(kind: Kind, tokens: TokenStream, spec: &mut ModelSpec, errors: &mut Errors) -> bool {
    let entries = match Punctuated::<Entry, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(entries) => entries,
        Err(error) => {
            errors.push(
                error.span(),
                format!(
                    "malformed #[{}] attribute: {error}; expected {}",
                    kind.name(),
                    kind.syntax()
                ),
            );
            return false;
        }
    };
    let mut derivable = true;
    let mut seen: Vec<Key> = Vec::new();
    for entry in entries {
        let meta = match entry {
            Entry::Definition(definition) => {
                spec.definitions.push(definition);
                continue;
            }
            Entry::Repeat(block) => {
                spec.repeat.push(udk_symbolic::repeat::Repeat {
                    definitions_at: Some(spec.definitions.len()),
                    ..block
                });
                continue;
            }
            Entry::Key(meta) => meta,
        };
        let key_span = meta.path().span();
        let key = meta
            .path()
            .get_ident()
            .and_then(|ident| Key::ALL.into_iter().find(|key| ident == key.name()))
            .filter(|key| key.accepted_by(kind));
        let Some(key) = key else {
            errors.push(key_span, unknown_key(kind, &meta));
            continue;
        };
        if seen.contains(&key) {
            errors.push(key_span, format!("`{}` is given twice", key.name()));
            continue;
        }
        seen.push(key);
        if let Err(error) = fill(spec, key, meta) {
            for error in error {
                errors.push(error.span(), error.to_string());
            }
            derivable &= !matches!(
                key,
                Key::Coordinates
                    | Key::Momenta
                    | Key::Lagrangian
                    | Key::Hamiltonian
                    | Key::Urdf
                    | Key::Speeds
            );
        }
    }
    if let Some(source) = spec.urdf.as_ref().filter(|s| s.path.is_empty()) {
        // An option was given (its span is the source's), but no file.
        errors.push(
            source.span,
            "`gravity`, `joint_damping`, `mimic`, `inertia`, `floating_base` and `urdf_root` are \
             options of a URDF model: add `urdf = \"path/to/robot.urdf\"`",
        );
        spec.urdf = None;
    }
    derivable
}

/// Parses one key's value into its field of `spec`.
fn fill(spec: &mut ModelSpec, key: Key, meta: Meta) -> syn::Result<()> {
    let name = key.name();
    match key {
        Key::Coordinates => spec.coordinates = names(&meta, name)?,
        Key::Momenta => spec.momenta = names(&meta, name)?,
        Key::Lagrangian => spec.lagrangian = Some(value(meta, name)?),
        Key::Hamiltonian => spec.hamiltonian = Some(value(meta, name)?),
        Key::Holonomic => spec.holonomic = expressions(&meta, name)?,
        Key::Nonholonomic => spec.nonholonomic = expressions(&meta, name)?,
        Key::Constraints => spec.constraints = expressions(&meta, name)?,
        Key::Forces => spec.forces = expressions(&meta, name)?,
        Key::Nonideal => spec.nonideal = expressions(&meta, name)?,
        Key::Inputs => spec.inputs = names(&meta, name)?,
        Key::Loads => spec.loads = expressions(&meta, name)?,
        Key::Outputs => spec.outputs = named_expressions(&meta, name)?,
        Key::Servo => spec.servo = expressions(&meta, name)?,
        Key::Contacts => {
            let (contacts, problems) = contacts(&meta)?;
            spec.contacts = contacts;
            if let Some(problems) = problems {
                return Err(problems);
            }
        }
        Key::Speeds => spec.speeds = names(&meta, name)?,
        Key::Kinematics => spec.kinematics = expressions(&meta, name)?,
        Key::Urdf => {
            let literal = match string_literal(&meta) {
                Some(literal) => literal.clone(),
                None => {
                    return Err(syn::Error::new(
                        meta.span(),
                        "expected `urdf = \"path/to/robot.urdf\"`, relative to the crate's \
                         CARGO_MANIFEST_DIR",
                    ))
                }
            };
            let source = urdf_source(spec, literal.span());
            source.path = literal.value();
            source.span = literal.span();
        }
        Key::Gravity => {
            let values: Vec<f64> = expressions(&meta, name)?
                .iter()
                .map(|e| number(&e.0))
                .collect::<syn::Result<_>>()?;
            let gravity: [f64; 3] = values.try_into().map_err(|_| {
                syn::Error::new(meta.span(), "expected `gravity(gx, gy, gz)`, in m/s²")
            })?;
            urdf_source(spec, meta.path().span()).gravity = Some(gravity);
        }
        Key::JointDamping => urdf_source(spec, meta.path().span()).joint_damping = flag(&meta)?,
        Key::Mimic => urdf_source(spec, meta.path().span()).mimic = flag(&meta)?,
        Key::FloatingBase => {
            urdf_source(spec, meta.path().span()).floating_base = flag(&meta)?;
        }
        Key::UrdfRoot => {
            let mut root = UrdfRoot {
                position: None,
                rotation: None,
            };
            for entry in named_expressions(&meta, name)? {
                match entry.name.as_string().as_str() {
                    "position" => root.position = Some(entry.value),
                    "rotation" => root.rotation = Some(entry.value),
                    other => {
                        return Err(syn::Error::new(
                            entry.name.span(),
                            format!(
                                "`urdf_root(..)` takes `position = <3-vector>` and \
                                 `rotation = <3×3 matrix>`, not `{other}`"
                            ),
                        ))
                    }
                }
            }
            urdf_source(spec, meta.path().span()).root = Some(root);
        }
        Key::Inertia => {
            let check = match string_literal(&meta).map(|l| l.value()).as_deref() {
                Some("strict") => InertiaCheck::Strict,
                Some("repair") => InertiaCheck::Repair,
                _ => {
                    return Err(syn::Error::new(
                        meta.span(),
                        "expected `inertia = \"strict\"` (the default: an indefinite inertia \
                         tensor is an error) or `inertia = \"repair\"`",
                    ))
                }
            };
            urdf_source(spec, meta.path().span()).inertia = check;
        }
    }
    Ok(())
}

/// The spec's URDF source, created (with no path yet, at `span`) by the first URDF key.
fn urdf_source(spec: &mut ModelSpec, span: proc_macro2::Span) -> &mut UrdfSource {
    spec.urdf.get_or_insert_with(|| UrdfSource {
        span,
        ..UrdfSource::new(String::new())
    })
}

/// A numeric literal, possibly negated: one component of `gravity(..)`.
fn number(expr: &Expr) -> syn::Result<f64> {
    let value = match expr {
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => number(expr).map(|x| -x),
        Expr::Lit(syn::ExprLit { lit, .. }) => match lit {
            syn::Lit::Float(f) => f.base10_parse::<f64>(),
            syn::Lit::Int(i) => i.base10_parse::<f64>(),
            _ => Err(syn::Error::new(lit.span(), "")),
        },
        _ => Err(syn::Error::new(expr.span(), "")),
    };
    value
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| syn::Error::new(expr.span(), "`gravity(..)` takes three numbers, m/s²"))
}

/// `name = true` or `name = false`.
/// The string literal of `name = "..."`, `None` for any other form.
fn string_literal(meta: &Meta) -> Option<&syn::LitStr> {
    match meta {
        Meta::NameValue(syn::MetaNameValue {
            value:
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(literal),
                    ..
                }),
            ..
        }) => Some(literal),
        _ => None,
    }
}

fn flag(meta: &Meta) -> syn::Result<bool> {
    match meta {
        Meta::NameValue(syn::MetaNameValue {
            value:
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                }),
            ..
        }) => Ok(b.value),
        _ => Err(syn::Error::new(
            meta.span(),
            format!(
                "expected `{} = true` or `{0} = false`",
                quote::ToTokens::to_token_stream(meta.path())
            ),
        )),
    }
}

/// `name = <expression>`.
fn value(meta: Meta, name: &str) -> syn::Result<Expression> {
    match meta {
        Meta::NameValue(pair) => Ok(Expression(pair.value)),
        _ => Err(syn::Error::new(
            meta.path().span(),
            format!("expected `{name} = <expression>`"),
        )),
    }
}

/// `name(a, b, ...)` with identifiers.
fn names(meta: &Meta, name: &str) -> syn::Result<Vec<Name>> {
    let names = list(meta, name, "names")?
        .parse_args_with(Punctuated::<Ident, Token![,]>::parse_terminated)
        .map_err(|e| syn::Error::new(e.span(), format!("`{name}(..)` takes names only: {e}")))?;
    Ok(names.into_iter().map(Name).collect())
}

/// `name(e1, e2, ...)` with expressions.
fn expressions(meta: &Meta, name: &str) -> syn::Result<Vec<Expression>> {
    let expressions = list(meta, name, "expressions")?
        .parse_args_with(Punctuated::<Expr, Token![,]>::parse_terminated)
        .map_err(|e| syn::Error::new(e.span(), format!("`{name}(..)` takes expressions: {e}")))?;
    Ok(expressions.into_iter().map(Expression).collect())
}

/// `name(a = e1, b = e2, ...)`.
fn named_expressions(meta: &Meta, name: &str) -> syn::Result<Vec<NamedExpression>> {
    let entry = |input: ParseStream| -> syn::Result<NamedExpression> {
        let output: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let value: Expr = input.parse()?;
        Ok(NamedExpression {
            name: Name(output),
            value: Expression(value),
        })
    };
    let entries = list(meta, name, "`NAME = <expression>` entries")?
        .parse_args_with(|input: ParseStream| {
            Punctuated::<NamedExpression, Token![,]>::parse_terminated_with(input, entry)
        })
        .map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("`{name}(..)` takes `NAME = <expression>` entries: {e}"),
            )
        })?;
    Ok(entries.into_iter().collect())
}

/// One contact of `contacts(..)`: `NAME(gap = .., slip = .., restitution = .., friction = ..,
/// rest_speed = ..)`, its keys as written.
struct ContactEntry {
    name: Ident,
    keys: Punctuated<syn::MetaNameValue, Token![,]>,
}

impl Parse for ContactEntry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        let content;
        syn::parenthesized!(content in input);
        let keys = Punctuated::parse_terminated(&content)?;
        Ok(ContactEntry { name, keys })
    }
}

/// The keys of a contact, as in a model file's `[[contacts]]`.
const CONTACT_KEYS: [&str; 5] = ["gap", "slip", "restitution", "friction", "rest_speed"];

/// `contacts(NAME(gap = φ, slip = s, restitution = e, friction = μ, rest_speed = v), ..)`:
/// the contacts that have a gap, and every unknown, repeated or missing key as one error, so
/// that the well-formed contacts are still derived and report their own errors.
#[allow(clippy::type_complexity)]
fn contacts(meta: &Meta) -> syn::Result<(Vec<udk_symbolic::ContactSpec>, Option<syn::Error>)> {
    let syntax = "`contacts(NAME(gap = φ(q, t), slip = s(q, t), restitution = e, friction = μ, \
                  rest_speed = v), ..)`";
    let entries = list(meta, "contacts", "contacts `NAME(gap = .., ..)`")?
        .parse_args_with(Punctuated::<ContactEntry, Token![,]>::parse_terminated)
        .map_err(|e| syn::Error::new(e.span(), format!("expected {syntax}: {e}")))?;
    let mut problems: Vec<syn::Error> = Vec::new();
    let mut contacts = Vec::with_capacity(entries.len());
    for entry in entries {
        let mut values: [Option<Expr>; 5] = Default::default();
        for pair in entry.keys {
            let key = pair.path.get_ident().map(|k| k.to_string());
            match CONTACT_KEYS.iter().position(|k| Some(*k) == key.as_deref()) {
                Some(i) if values[i].is_some() => problems.push(syn::Error::new(
                    pair.path.span(),
                    format!("`{}` is given twice", CONTACT_KEYS[i]),
                )),
                Some(i) => values[i] = Some(pair.value),
                None => problems.push(syn::Error::new(
                    pair.path.span(),
                    format!(
                        "unknown key of a contact; expected {}",
                        CONTACT_KEYS.map(|k| format!("`{k}`")).join(", ")
                    ),
                )),
            }
        }
        let [gap, slip, restitution, friction, rest_speed] = values;
        let Some(gap) = gap else {
            problems.push(syn::Error::new(
                entry.name.span(),
                format!("contact `{}` has no `gap = φ(q, t)`", entry.name),
            ));
            continue;
        };
        let coefficient = |value: Option<Expr>| {
            value.map_or(udk_symbolic::Coefficient::Number(0.0), |e| {
                udk_symbolic::Coefficient::Expression(Box::new(Expression(e)))
            })
        };
        contacts.push(udk_symbolic::ContactSpec {
            name: entry.name.to_string(),
            gap: Expression(gap),
            slip: slip.map(Expression),
            restitution: coefficient(restitution),
            friction: coefficient(friction),
            rest_speed: coefficient(rest_speed),
        });
    }
    let problems = problems.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    });
    Ok((contacts, problems))
}

/// The key's parenthesized list, or an error saying it should be one.
fn list<'a>(meta: &'a Meta, name: &str, what: &str) -> syn::Result<&'a syn::MetaList> {
    match meta {
        Meta::List(list) => Ok(list),
        _ => Err(syn::Error::new(
            meta.path().span(),
            format!("expected `{name}(..)`: a parenthesized, comma-separated list of {what}"),
        )),
    }
}

fn unknown_key(kind: Kind, meta: &Meta) -> String {
    let path = meta.path();
    let key = quote::quote!(#path).to_string().replace(' ', "");
    format!(
        "unknown key `{key}` in #[{}]; expected {}",
        kind.name(),
        kind.syntax()
    )
}
