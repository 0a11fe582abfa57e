//! The derived equations of a model printed as plain text or LaTeX, entry by entry.

use super::latex::{latex, text, Printer};
use super::names::{self, Names};
use crate::derivation::{Derivation, Equations, ExprMatrix};
use crate::expr::{ExprId, Pool};
use crate::parse::Value;

/// The equations of `d` as plain text: the model's name and kind, n and m, how M and Q were
/// formed (Lagrangian models: [`crate::MassMatrixForm::describe`]), then every
/// nonzero entry of M, Q, A, b and C (Lagrangian models) or of H_p, H_q, H_pp, A_p and b_p
/// (Hamiltonian models), 1-based, one per line, in the syntax of [`text`]. A block whose
/// entries are all 0 says so, and so does an empty one (m = 0); entries not listed are 0.
pub fn equations_text(d: &Derivation) -> String {
    Sheet::new(d, Format::Text).write(d)
}

/// The equations of `d` as LaTeX: a comment naming the model and how M and Q were formed, then
/// one `aligned` environment (math mode) with n, m and every
/// nonzero entry of the blocks listed at [`equations_text`], e.g. `M_{1,1} &= m \\`; a block
/// of zeros is one row `C &= 0`, an empty block (m = 0) none.
pub fn equations_latex(d: &Derivation) -> String {
    Sheet::new(d, Format::Latex).write(d)
}

/// A value of `d` in plain text: a scalar as [`text`], a vector as `vec3(x, y, z)`, a matrix as
/// `mat3(a11, …, a33)`, with the definitions' names where they occur.
pub fn value_text(d: &Derivation, value: &Value) -> String {
    Sheet::new(d, Format::Text).value(&d.pool, value)
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
                ],
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
                if let Some(form) = form {
                    self.line(format!("% M and Q by {form}"));
                }
                if let Some(path) = path {
                    self.line(format!("% acceleration: {path}"));
                }
                self.line("\\begin{aligned}".to_owned());
                self.line(format!("n &= {n}, \\quad m = {m} \\\\"));
            }
        }
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
                let value = self.value(&d.pool, &v.value);
                let line = match self.format {
                    Format::Text => format!("  {} = {value}", v.name),
                    Format::Latex => format!("{} &= {value} \\\\", names::latex_name(&v.name, 0)),
                };
                self.line(line);
            }
        }
        self.names.alias_limit = usize::MAX;
        let names = self.names.clone();
        let mut printer = match self.format {
            Format::Text => Printer::text(&d.pool, &names),
            Format::Latex => Printer::latex(&d.pool, &names),
        };
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
    /// `names.alias_limit`.
    fn value(&self, pool: &Pool, value: &Value) -> String {
        let print = |id| match self.format {
            Format::Text => text(pool, id, &self.names),
            Format::Latex => latex(pool, id, &self.names),
        };
        let parts: Vec<String> = value.components().iter().map(|&id| print(id)).collect();
        match (value, self.format) {
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
            match self.format {
                Format::Text => {
                    let value = printer.string(e);
                    self.line(format!("  {}[{index}] = {value}", b.text));
                }
                Format::Latex => {
                    let value = printer.string(e);
                    let symbol = if b.latex.contains('_') {
                        format!("\\left({}\\right)", b.latex)
                    } else {
                        b.latex.to_owned()
                    };
                    self.line(format!("{symbol}_{{{index}}} &= {value} \\\\"));
                }
            }
        }
    }
}
