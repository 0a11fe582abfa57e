//! Model files: a `udk_symbolic::ModelSpec` (plus optional initial conditions) as TOML, or as
//! JSON when the file name ends in `.json`, and the location of every error in them.
//!
//! Expressions are strings in the file, parsed by `syn::parse_str`; with proc-macro2's
//! `span-locations` each string becomes its own source, so an error's span gives a line and a
//! column within its expression, and joining it with an expression's span (possible only
//! within the same source) tells which expression it is in.

use crate::failure::Failure;
use proc_macro2::Span;
use serde::Deserialize;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;
use udk_symbolic::{Errors, Expression, ModelSpec};

/// A model file, read and parsed.
#[derive(Debug)]
pub struct ModelFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// The model.
    pub spec: ModelSpec,
    text: String,
    /// Byte ranges of the expression and name strings in a TOML file.
    positions: Option<Positions>,
}

/// Where each string of a TOML model file is: byte ranges of the values, quotes included.
#[derive(Debug, Default, Deserialize)]
struct Positions {
    #[serde(default)]
    coordinates: Vec<Spanned<String>>,
    #[serde(default)]
    momenta: Vec<Spanned<String>>,
    #[serde(default)]
    parameters: Vec<ParameterPosition>,
    lagrangian: Option<Spanned<String>>,
    hamiltonian: Option<Spanned<String>>,
    #[serde(default)]
    holonomic: Vec<Spanned<String>>,
    #[serde(default)]
    nonholonomic: Vec<Spanned<String>>,
    #[serde(default)]
    constraints: Vec<Spanned<String>>,
    #[serde(default)]
    forces: Vec<Spanned<String>>,
    #[serde(default)]
    nonideal: Vec<Spanned<String>>,
    #[serde(default)]
    events: Vec<EventPosition>,
    #[serde(default)]
    contacts: Vec<ContactPosition>,
}

/// Where the expressions of a `[[contacts]]` table are.
#[derive(Debug, Default, Deserialize)]
struct ContactPosition {
    gap: Option<Spanned<String>>,
    slip: Option<Spanned<String>>,
}

/// Where the expressions of an `[[events]]` table are.
#[derive(Debug, Default, Deserialize)]
struct EventPosition {
    guard: Option<Spanned<String>>,
    when: Option<Spanned<String>>,
    #[serde(default)]
    impact: Vec<Spanned<String>>,
    #[serde(default)]
    q: Vec<Spanned<String>>,
    #[serde(default)]
    qd: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
struct ParameterPosition {
    name: Spanned<String>,
}

/// One string of the spec that spans can point into: its key, e.g. `holonomic[0]`, a span
/// in it, its text, and in a TOML file its value's byte range (quotes included).
struct Site {
    key: String,
    span: Span,
    text: String,
    value: Option<Range<usize>>,
}

impl Site {
    fn new(key: String, span: Span, text: String, value: Option<&Spanned<String>>) -> Self {
        match value {
            Some(v) => Site {
                key,
                span,
                text: v.get_ref().clone(),
                value: Some(v.span()),
            },
            None => Site {
                key,
                span,
                text,
                value: None,
            },
        }
    }
}

impl ModelFile {
    /// Reads and parses the model file at `path` (JSON if its name ends in `.json`, a robot if
    /// it ends in `.urdf`, else TOML), and expands a URDF model ([`udk_symbolic::urdf::expand`],
    /// its `urdf` file relative to the model file's directory) unless it is on a floating base
    /// ([`ModelFile::is_free_flyer`]).
    ///
    /// # Errors
    /// [`Failure::BadInput`] with the file, line and column when the file cannot be read or
    /// does not parse (malformed TOML or JSON, an unknown key, an expression that is not a
    /// Rust expression, a wrong type), or when its URDF file cannot be read or expanded.
    pub fn load(path: &Path) -> Result<Self, Failure> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::bad_input(format!("{}: cannot read: {e}", path.display())))?;
        let extension = path.extension().and_then(|e| e.to_str());
        let (spec, positions) = if extension == Some("urdf") {
            (urdf_model(path), None)
        } else if extension == Some("json") {
            let spec = serde_json::from_str(&text).map_err(|e| {
                Failure::bad_input(format!(
                    "{}:{}:{}: {}",
                    path.display(),
                    e.line(),
                    e.column(),
                    without_position(&e.to_string())
                ))
            })?;
            (spec, None)
        } else {
            let spec = toml::from_str(&text).map_err(|e| {
                let at = e
                    .span()
                    .map(|s| line_column(&text, s.start))
                    .map(|(l, c)| format!(":{l}:{c}"))
                    .unwrap_or_default();
                Failure::bad_input(format!(
                    "{}{at}: {}",
                    path.display(),
                    e.message().trim_end().replace('\n', "; ")
                ))
            })?;
            (spec, toml::from_str(&text).ok())
        };
        let mut file = ModelFile {
            path: path.to_owned(),
            spec,
            text,
            positions,
        };
        if !file.is_free_flyer() {
            let base = path.parent().unwrap_or(Path::new(""));
            udk_symbolic::urdf::expand(&mut file.spec, base).map_err(|e| file.locate(&e))?;
        }
        Ok(file)
    }

    /// Whether the file is a robot on a floating base (`urdf = { path = "..",
    /// floating_base = true }`), which [`crate::free_flyer`] evaluates and simulates rather
    /// than the Lagrangian derivation.
    pub fn is_free_flyer(&self) -> bool {
        self.spec.urdf.as_ref().is_some_and(|s| s.floating_base)
    }

    /// The file name as given, for messages.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// Every error of `errors` as one line: `file:line:column: message (in `key`, column c)`
    /// when the error points into an expression or a name of the file, else `file: message`.
    pub fn locate(&self, errors: &Errors) -> Failure {
        let sites = self.sites();
        Failure::BadInput(
            errors
                .0
                .iter()
                .map(|e| {
                    let site = sites.iter().find(|s| s.span.join(e.span).is_some());
                    match site {
                        Some(site) => self.at_site(site, e.span, &e.message),
                        None => format!("{}: {}", self.name(), e.message),
                    }
                })
                .collect(),
        )
    }

    /// The text of `expression` as the file writes it (as tokens for a JSON file).
    pub fn source_of(&self, expression: &udk_symbolic::Expression) -> String {
        self.sites()
            .into_iter()
            .find(|s| s.span.join(expression.span()).is_some())
            .map_or_else(|| expression.to_string(), |s| s.text)
    }

    fn at_site(&self, site: &Site, span: Span, message: &str) -> String {
        let start = span.start();
        let where_in = if site.text.contains('\n') {
            format!("line {}, column {}", start.line, start.column + 1)
        } else {
            format!("column {}", start.column + 1)
        };
        let offset = byte_offset(&site.text, start.line, start.column);
        let file_at = site
            .value
            .as_ref()
            .map(|v| {
                let at = match expression_start(&self.text, v, &site.text) {
                    Some(base) => base + offset,
                    None => v.start,
                };
                let (l, c) = line_column(&self.text, at);
                format!(":{l}:{c}")
            })
            .unwrap_or_default();
        format!(
            "{}{file_at}: {message} (in `{}`, {where_in})",
            self.name(),
            site.key
        )
    }

    /// Every name and expression of the spec with its key and, in a TOML file, its value.
    fn sites(&self) -> Vec<Site> {
        let spec = &self.spec;
        let none = Positions::default();
        let pos = self.positions.as_ref().unwrap_or(&none);
        let mut sites = Vec::new();
        for (key, names, values) in [
            ("coordinates", &spec.coordinates, &pos.coordinates),
            ("momenta", &spec.momenta, &pos.momenta),
        ] {
            for (i, name) in names.iter().enumerate() {
                let key = format!("{key}[{i}]");
                sites.push(Site::new(key, name.span(), name.as_string(), values.get(i)));
            }
        }
        for (i, p) in spec.parameters.iter().enumerate() {
            let value = pos.parameters.get(i).map(|p| &p.name);
            let key = format!("parameters[{i}].name");
            sites.push(Site::new(key, p.name.span(), p.name.as_string(), value));
        }
        push_one(
            &mut sites,
            "lagrangian".into(),
            spec.lagrangian.as_ref(),
            pos.lagrangian.as_ref(),
        );
        push_one(
            &mut sites,
            "hamiltonian".into(),
            spec.hamiltonian.as_ref(),
            pos.hamiltonian.as_ref(),
        );
        for (key, exprs, values) in [
            ("holonomic", &spec.holonomic, &pos.holonomic),
            ("nonholonomic", &spec.nonholonomic, &pos.nonholonomic),
            ("constraints", &spec.constraints, &pos.constraints),
            ("forces", &spec.forces, &pos.forces),
            ("nonideal", &spec.nonideal, &pos.nonideal),
        ] {
            push_many(&mut sites, key, exprs, values);
        }
        let no_event = EventPosition::default();
        for (i, event) in spec.events.iter().enumerate() {
            let pos = pos.events.get(i).unwrap_or(&no_event);
            let key = |k: &str| format!("events[{i}].{k}");
            push_one(
                &mut sites,
                key("guard"),
                Some(&event.guard),
                pos.guard.as_ref(),
            );
            push_one(
                &mut sites,
                key("when"),
                event.when.as_ref(),
                pos.when.as_ref(),
            );
            push_many(&mut sites, &key("impact"), &event.impact, &pos.impact);
            push_many(&mut sites, &key("q"), &event.q, &pos.q);
            push_many(&mut sites, &key("qd"), &event.qd, &pos.qd);
        }
        let no_contact = ContactPosition::default();
        for (i, contact) in spec.contacts.iter().enumerate() {
            let pos = pos.contacts.get(i).unwrap_or(&no_contact);
            let key = |k: &str| format!("contacts[{i}].{k}");
            push_one(&mut sites, key("gap"), Some(&contact.gap), pos.gap.as_ref());
            push_one(
                &mut sites,
                key("slip"),
                contact.slip.as_ref(),
                pos.slip.as_ref(),
            );
        }
        sites
    }
}

/// Pushes the site of `expr`, if any, under `key`, at `value` in a TOML file.
fn push_one(
    sites: &mut Vec<Site>,
    key: String,
    expr: Option<&Expression>,
    value: Option<&Spanned<String>>,
) {
    if let Some(expr) = expr {
        sites.push(Site::new(key, expr.span(), expr.to_string(), value));
    }
}

/// Pushes the sites of `exprs` under `key[i]`, at `values[i]` in a TOML file.
fn push_many(sites: &mut Vec<Site>, key: &str, exprs: &[Expression], values: &[Spanned<String>]) {
    for (i, expr) in exprs.iter().enumerate() {
        push_one(sites, format!("{key}[{i}]"), Some(expr), values.get(i));
    }
}

/// The model of a URDF file named directly: the robot with the default options, named for the
/// file in CamelCase (`ur5_robot.urdf` is `Ur5Robot`).
fn urdf_model(path: &Path) -> ModelSpec {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let mut name: String = (stem.split(|c: char| !c.is_ascii_alphanumeric()))
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name.insert_str(0, "Robot");
    }
    let file = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    ModelSpec {
        name,
        urdf: Some(udk_symbolic::urdf::UrdfSource::new(file)),
        ..ModelSpec::default()
    }
}

/// Byte offset in `text` of the 1-based `line` and 0-based character `column`.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = &text[line_start.min(text.len())..];
    line_start
        + rest
            .char_indices()
            .nth(column)
            .map_or(rest.len(), |(i, _)| i)
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The byte offset in `file` where the string value at `range` (quotes included) starts, when
/// its raw text is `parsed` (no escapes), so that offsets within the expression are offsets in
/// the file.
fn expression_start(file: &str, range: &Range<usize>, parsed: &str) -> Option<usize> {
    let raw = file.get(range.clone())?;
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| raw.starts_with(q) && raw.ends_with(q) && raw.len() >= 2 * q.len())?;
    let inner = &raw[quote.len()..raw.len() - quote.len()];
    // A newline right after the opening delimiter of a multi-line string is not part of it.
    let skip = [0, 1, 2].into_iter().find(|&k| {
        inner.get(k..) == Some(parsed)
            && inner
                .get(..k)
                .is_some_and(|head| head.trim_matches(['\r', '\n']).is_empty())
    })?;
    Some(range.start + quote.len() + skip)
}

/// A serde_json message without its trailing " at line L column C".
fn without_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
}
