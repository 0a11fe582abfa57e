//! The derived equations of a model printed as plain text or LaTeX, entry by entry.

use super::latex::Printer;
use super::names::{self, Names};
use super::subexpressions::Subexpressions;
use crate::derivation::{Derivation, Equations, ExprMatrix};
use crate::expr::{ExprId, Pool};
use crate::parse::Value;

/// The equations of `d` as plain text: the model's name and kind, n and m, how M and Q were
/// formed (Lagrangian models: [`crate::MassMatrixForm::describe`]), then every
/// nonzero entry of M, Q, A, b and C (Lagrangian models; for a model with `servo`
/// constraints, a line with their number s and then the holonomic servo constraints e, all
/// servo rows at velocity level β (the error of the review paper's eq 72), A_s and b_s,
/// A_s q̈ = b_s, and the input matrix B = ∂(Q + C)/∂u, n × k, through which the inputs realize them: review
/// paper, section 8.3) or of H_p, H_q, H_pp, A_p and b_p (Hamiltonian models), 1-based, one
/// per line, in the syntax of [`text`]. A block whose
/// entries are all 0 says so, and so does an empty one (m = 0); entries not listed are 0.
///
/// The sheet is at most a constant times as long as the DAG it shows: a subexpression that
/// occurs more than once and is longer than about 100 characters is printed once. Met first
/// as a line's value (`M[1,2] = …`), that line's label names it afterwards (`M[2,1] = M[1,2]`);
/// met first inside a value, it is defined on a line of its own, `s1 = …` (`ss1` if the model
/// has a name `s` + digits), just before the line that uses it.
///
/// [`text`]: super::text
pub fn equations_text(d: &Derivation) -> String {
    Sheet::new(d, Format::Text).write(d)
}

/// The equations of `d` as LaTeX: a comment naming the model and how M and Q were formed, then
/// one `aligned` environment (math mode) with n, m (and s, the servo rows) and every
/// nonzero entry of the blocks listed at [`equations_text`], e.g. `M_{1,1} &= m \\`; a block
/// of zeros is one row `C &= 0`, an empty block (m = 0) none. Long repeated subexpressions
/// are named as in [`equations_text`], as rows `s_{1} &= …`.
pub fn equations_latex(d: &Derivation) -> String {
    Sheet::new(d, Format::Latex).write(d)
}

/// A value of `d` in plain text: a scalar as [`text`], a vector as `vec3(x, y, z)`, a matrix as
/// `mat3(a11, …, a33)`, with the definitions' names where they occur. Long repeated
/// subexpressions are named as in [`equations_text`] and defined after the value:
/// `vec3(s1, s1*x, 0), where s1 = …; s2 = …`.
///
/// [`text`]: super::text
pub fn value_text(d: &Derivation, value: &Value) -> String {
    let sheet = Sheet::new(d, Format::Text);
    let mut subexpressions = subexpressions(d, &sheet.names, value.components());
    let (text, definitions) = sheet.value(&d.pool, value, None, &mut subexpressions);
    let definitions: Vec<String> = (definitions.iter())
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    if definitions.is_empty() {
        text
    } else {
        format!("{text}, where {}", definitions.join("; "))
    }
}

/// The subexpressions to name on a sheet of `d` that prints `roots`.
fn subexpressions(d: &Derivation, names: &Names, roots: &[ExprId]) -> Subexpressions {
    let taken = [&d.coordinates, &d.momenta, &d.parameters, &d.inputs]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .chain(d.definitions.iter().map(|v| v.name.as_str()))
        .chain(d.outputs.iter().map(|v| v.name.as_str()));
    Subexpressions::of(&d.pool, roots, names, taken)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Latex,
}

/// A block of the equations: its symbol in text and LaTeX, a description, and its entries.
struct Block<'e> {
    text: &'static str,
    latex: &'static str,
    what: &'static str,
    rows: usize,
    cols: Option<usize>,
    entries: &'e [ExprId],
}

fn vector<'e>(
    text: &'static str,
    latex: &'static str,
    what: &'static str,
    v: &'e [ExprId],
) -> Block<'e> {
    Block {
        text,
        latex,
        what,
        rows: v.len(),
        cols: None,
        entries: v,
    }
}

fn matrix<'e>(
    text: &'static str,
    latex: &'static str,
    what: &'static str,
    m: &'e ExprMatrix,
) -> Block<'e> {
    Block {
        text,
        latex,
        what,
        rows: m.rows,
        cols: Some(m.cols),
        entries: &m.entries,
    }
}

/// Which path q̈ takes, for a model with a kinematic tree (`None` without one: the dense path,
/// as always): the articulated-body algorithm, or the dense path where it cannot apply.
fn acceleration_path(d: &Derivation) -> Option<&'static str> {
    let Equations::Lagrangian(e) = &d.equations else {
        return None;
    };
    let tree = (e.mass_matrix_forms.iter())
        .any(|(form, _)| *form == crate::derivation::MassMatrixForm::CompositeRigidBody);
    match (tree, &e.articulated) {
        (false, _) => None,
        (true, Some(_)) => Some(
            "O(n), q''0 = M^-1 (Q + C) and M^-1 A^T by the articulated-body algorithm, \
             q'' = q''0 + M^-1 A^T (A M^-1 A^T)^+ (b - A q''0)",
        ),
        (true, None) => Some(
            "dense, M factored (the articulated-body algorithm does not apply: a massless \
             subtree, a coordinate outside the tree, or inertia the tree does not hold)",
        ),
    }
}

struct Sheet {
    format: Format,
    names: Names,
    out: String,
}

impl Sheet {
    fn new(d: &Derivation, format: Format) -> Self {
        Sheet {
            format,
            names: Names::of(d),
            out: String::new(),
        }
    }

    fn write(mut self, d: &Derivation) -> String {
        let n = d.coordinates.len();
        let (kind, m, blocks) = match &d.equations {
            Equations::Lagrangian(e) => (
                "Lagrangian",
                e.constraint_rhs.len(),
                vec![
                    matrix("M", "M", "mass matrix", &e.mass_matrix),
                    vector("Q", "Q", "generalized force", &e.generalized_force),
                    matrix("A", "A", "constraint matrix", &e.constraint_matrix),
                    vector(
                        "b",
                        "b",
                        "constraint right-hand side, A q'' = b",
                        &e.constraint_rhs,
                    ),
                    vector("C", "C", "non-ideal constraint force", &e.nonideal_force),
                ]
                .into_iter()
                .chain(e.servo.iter().flat_map(|s| {
                    [
                        vector(
                            "e",
                            "e",
                            "holonomic servo constraints e(q, t)",
                            &s.holonomic,
                        ),
                        vector(
                            "beta",
                            "\\beta",
                            "servo constraints at velocity level (e', phi_s)",
                            &s.velocity_constraints,
                        ),
                        matrix(
                            "A_s",
                            "A_{s}",
                            "servo constraint matrix",
                            &s.constraint_matrix,
                        ),
                        vector(
                            "b_s",
                            "b_{s}",
                            "servo right-hand side, A_s q'' = b_s",
                            &s.constraint_rhs,
                        ),
                        matrix("B", "B", "input matrix d(Q + C)/du", &s.input_matrix),
                    ]
                }))
                .collect(),
            ),
            Equations::Hamiltonian(e) => (
                "Hamiltonian",
                e.b_p.len(),
                vec![
                    vector("H_p", "H_{p}", "dH/dp", &e.h_p),
                    vector("H_q", "H_{q}", "dH/dq", &e.h_q),
                    matrix("H_pp", "H_{pp}", "d2H/dp2", &e.h_pp),
                    matrix("A_p", "A_{p}", "constraint matrix dphi/dp", &e.a_p),
                    vector("b_p", "b_{p}", "constraint right-hand side", &e.b_p),
                ],
            ),
        };
        let servo = match &d.equations {
            Equations::Lagrangian(e) => e.servo.as_ref().map(|s| {
                let rows = s.constraint_rhs.len();
                (rows, s.holonomic.len(), rows - s.holonomic.len())
            }),
            Equations::Hamiltonian(_) => None,
        };
        let coordinates = d.coordinates.join(", ");
        let path = acceleration_path(d);
        let form = match &d.equations {
            Equations::Lagrangian(e) => Some(e.mass_matrix_form.describe()),
            Equations::Hamiltonian(_) => None,
        };
        match self.format {
            Format::Text => {
                self.line(format!(
                    "{} ({kind}): n = {n} coordinates ({coordinates}), m = {m} constraints",
                    d.name
                ));
                if let Some((s, holonomic, nonholonomic)) = servo {
                    self.line(format!(
                        "s = {s} servo constraints ({holonomic} holonomic, {nonholonomic} \
                         nonholonomic), realized by the inputs ({})",
                        d.inputs.join(", ")
                    ));
                }
                if let Some(form) = form {
                    self.line(format!("M and Q by {form}"));
                }
                if let Some(path) = path {
                    self.line(format!("acceleration: {path}"));
                }
                if !d.parameters.is_empty() {
                    self.line(format!("parameters: {}", d.parameters.join(", ")));
                }
                self.line("entries not listed are 0".to_owned());
            }
            Format::Latex => {
                self.line(format!("% {} ({kind}), coordinates: {coordinates}", d.name));
                if let Some((s, holonomic, nonholonomic)) = servo {
                    self.line(format!(
                        "% s = {s} servo constraints ({holonomic} holonomic, {nonholonomic} \
                         nonholonomic), realized by the inputs {}",
                        d.inputs.join(", ")
                    ));
                }
                if let Some(form) = form {
                    self.line(format!("% M and Q by {form}"));
                }
                if let Some(path) = path {
                    self.line(format!("% acceleration: {path}"));
                }
                self.line("\\begin{aligned}".to_owned());
                match servo {
                    Some((s, _, _)) => {
                        self.line(format!("n &= {n}, \\quad m = {m}, \\quad s = {s} \\\\"))
                    }
                    None => self.line(format!("n &= {n}, \\quad m = {m} \\\\")),
                }
            }
        }
        let roots: Vec<ExprId> = (d.definitions.iter().chain(&d.outputs))
            .flat_map(|v| v.value.components().to_vec())
            .chain(blocks.iter().flat_map(|b| b.entries.iter().copied()))
            .filter(|&e| !d.pool.is_zero(e))
            .collect();
        let mut subexpressions = subexpressions(d, &self.names, &roots);
        for (heading, values) in [("definitions", &d.definitions), ("outputs", &d.outputs)] {
            if values.is_empty() {
                continue;
            }
            if self.format == Format::Text {
                self.line(format!("{heading}:"));
            }
            for (index, v) in values.iter().enumerate() {
                // A definition in terms of the definitions before it; an output in terms of all.
                self.names.alias_limit = if heading == "definitions" {
                    index
                } else {
                    usize::MAX
                };
                let labels = names::component_labels(&v.name, &v.value);
                let (value, definitions) =
                    self.value(&d.pool, &v.value, Some(&labels), &mut subexpressions);
                self.definitions(definitions);
                let name = match self.format {
                    Format::Text => v.name.clone(),
                    Format::Latex => names::latex_name(&v.name, 0),
                };
                self.definition(&name, &value);
            }
        }
        self.names.alias_limit = usize::MAX;
        let names = self.names.clone();
        let latex = self.format == Format::Latex;
        let mut printer = Printer::new(&d.pool, &names, latex, &mut subexpressions);
        for block in &blocks {
            self.block(&d.pool, &mut printer, block);
        }
        if self.format == Format::Latex {
            // The last row needs no line break.
            if self.out.ends_with(" \\\\\n") {
                self.out.truncate(self.out.len() - 4);
                self.out.push('\n');
            }
            self.line("\\end{aligned}".to_owned());
        }
        self.out
    }

    /// A value in this sheet's format, its components with the names of the definitions before
    /// `names.alias_limit` and of `subexpressions`, and the definitions of the subexpressions
    /// it named first (name, value). A component printed with its label (`labels`) names its
    /// node afterwards if the node is one of `subexpressions`.
    fn value(
        &self,
        pool: &Pool,
        value: &Value,
        labels: Option<&[(String, String)]>,
        subexpressions: &mut Subexpressions,
    ) -> (String, Vec<(String, String)>) {
        let latex = self.format == Format::Latex;
        let mut printer = Printer::new(pool, &self.names, latex, subexpressions);
        let parts: Vec<String> = (value.components().iter().enumerate())
            .map(|(k, &id)| match labels {
                Some(labels) => printer.line(id, &labels[k].0, &labels[k].1),
                None => printer.string(id),
            })
            .collect();
        let definitions = printer.take_definitions();
        let text = match (value, self.format) {
            (Value::Scalar(_), _) => parts[0].clone(),
            (Value::Vector(_), Format::Text) => format!("vec3({})", parts.join(", ")),
            (Value::Matrix(_), Format::Text) => format!("mat3({})", parts.join(", ")),
            (Value::Vector(_), Format::Latex) => {
                format!(
                    "\\begin{{pmatrix}} {} \\end{{pmatrix}}",
                    parts.join(" \\\\ ")
                )
            }
            (Value::Matrix(_), Format::Latex) => {
                let rows: Vec<String> = parts.chunks(3).map(|r| r.join(" & ")).collect();
                format!(
                    "\\begin{{pmatrix}} {} \\end{{pmatrix}}",
                    rows.join(" \\\\ ")
                )
            }
        };
        (text, definitions)
    }

    /// The line `name = value` (LaTeX `name &= value \\`).
    fn definition(&mut self, name: &str, value: &str) {
        let line = match self.format {
            Format::Text => format!("  {name} = {value}"),
            Format::Latex => format!("{name} &= {value} \\\\"),
        };
        self.line(line);
    }

    /// The lines of the subexpressions' `definitions` (name, value).
    fn definitions(&mut self, definitions: Vec<(String, String)>) {
        for (name, value) in definitions {
            self.definition(&name, &value);
        }
    }

    fn line(&mut self, line: String) {
        self.out.push_str(&line);
        self.out.push('\n');
    }

    fn block(&mut self, pool: &Pool, printer: &mut Printer<'_>, b: &Block<'_>) {
        let shape = match b.cols {
            Some(c) => format!("{} x {c}", b.rows),
            None => b.rows.to_string(),
        };
        let nonzero: Vec<(usize, ExprId)> = b
            .entries
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, e)| !pool.is_zero(e))
            .collect();
        match self.format {
            Format::Text if b.entries.is_empty() => {
                self.line(format!("{}, {} ({shape}): empty", b.text, b.what))
            }
            Format::Latex if b.entries.is_empty() => {}
            Format::Text if nonzero.is_empty() => {
                self.line(format!("{}, {} ({shape}): all entries 0", b.text, b.what))
            }
            Format::Text => self.line(format!("{}, {} ({shape}):", b.text, b.what)),
            Format::Latex if nonzero.is_empty() => self.line(format!("{} &= 0 \\\\", b.latex)),
            Format::Latex => {}
        }
        for (k, e) in nonzero {
            let index = match b.cols {
                Some(c) => format!("{},{}", k / c + 1, k % c + 1),
                None => (k + 1).to_string(),
            };
            let symbol = if b.latex.contains('_') {
                format!("\\left({}\\right)", b.latex)
            } else {
                b.latex.to_owned()
            };
            let labels = (
                format!("{}[{index}]", b.text),
                format!("{symbol}_{{{index}}}"),
            );
            let value = printer.line(e, &labels.0, &labels.1);
            self.definitions(printer.take_definitions());
            match self.format {
                Format::Text => self.definition(&labels.0, &value),
                Format::Latex => self.definition(&labels.1, &value),
            }
        }
    }
}
