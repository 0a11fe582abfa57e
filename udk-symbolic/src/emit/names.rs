//! Display names of the model quantities, for the LaTeX and plain-text printers.

use crate::derivation::Derivation;
use crate::expr::{ExprId, Node, Symbol};
use crate::parse::Value;
use rustc_hash::FxHashMap as HashMap;

/// The names under which the printers show each [`Symbol`].
///
/// Plain text shows a coordinate `x` as `x`, its velocity as `dot(x)` and its acceleration as
/// `ddot(x)`. LaTeX shows `theta1` as `\theta_{1}`, its velocity as `\dot{\theta}_{1}` and its
/// acceleration as `\ddot{\theta}_{1}`; Greek letter names become their LaTeX commands, other
/// names of several letters are set upright (`th` is θ) (`\mathrm{mass}`), and a trailing number or `_x`
/// becomes a subscript; a momentum named `p` + a coordinate's name, such as `px`, is `p_{x}`.
/// A quantity whose index has no name is shown as `q3`, `p3`, `c3` or `u3`
/// (1-based).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    /// Coordinate names, for `Symbol::Coordinate`, `Velocity` and `Acceleration`.
    pub coordinates: Vec<String>,
    /// Momentum names, for `Symbol::Momentum`.
    pub momenta: Vec<String>,
    /// Speed names of a model with kinematic differential equations q̇ = N(q, t) u + c(q, t)
    /// ([`crate::derivation::Kinematics`]), else empty: its `Symbol::Velocity(i)` is then the
    /// speed uᵢ, shown by its name, and `Symbol::Acceleration(i)` is u̇ᵢ.
    pub speeds: Vec<String>,
    /// Parameter names, for `Symbol::Parameter`.
    pub parameters: Vec<String>,
    /// Input names, for `Symbol::Input`.
    pub inputs: Vec<String>,
    /// Names of the definitions' components, (text, LaTeX, index of the definition), by node:
    /// an expression that contains one of these nodes prints the name in its place (`p.x`,
    /// `R[1,2]`, `d1`) where the name is the shorter.
    pub aliases: HashMap<ExprId, (String, String, usize)>,
    /// Only the aliases of definitions before this index are used (all by default), so that a
    /// definition is printed in terms of the ones before it.
    pub alias_limit: usize,
}

impl Names {
    /// The names of a derived model.
    pub fn of(d: &Derivation) -> Self {
        Names {
            coordinates: d.coordinates.clone(),
            momenta: d.momenta.clone(),
            speeds: d.speeds.clone(),
            parameters: d.parameters.clone(),
            inputs: d.inputs.clone(),
            aliases: aliases(d),
            alias_limit: usize::MAX,
        }
    }

    fn raw(&self, symbol: Symbol) -> (String, u8) {
        let pick = |list: &[String], i: usize, fallback: char| {
            list.get(i)
                .cloned()
                .unwrap_or_else(|| format!("{fallback}{}", i + 1))
        };
        match symbol {
            Symbol::Time => ("t".to_owned(), 0),
            Symbol::Coordinate(i) => (pick(&self.coordinates, i, 'q'), 0),
            Symbol::Velocity(i) | Symbol::Speed(i) if !self.speeds.is_empty() => {
                (pick(&self.speeds, i, 'u'), 0)
            }
            Symbol::Acceleration(i) if !self.speeds.is_empty() => (pick(&self.speeds, i, 'u'), 1),
            Symbol::Velocity(i) | Symbol::Speed(i) => (pick(&self.coordinates, i, 'q'), 1),
            Symbol::Acceleration(i) => (pick(&self.coordinates, i, 'q'), 2),
            Symbol::Momentum(i) => (pick(&self.momenta, i, 'p'), 0),
            Symbol::Parameter(i) => (pick(&self.parameters, i, 'c'), 0),
            Symbol::Input(i) => (pick(&self.inputs, i, 'u'), 0),
            Symbol::Multiplier(i) => (format!("lambda{}", i + 1), 0),
        }
    }

    /// The plain-text name of `symbol`.
    pub fn text(&self, symbol: Symbol) -> String {
        match self.raw(symbol) {
            (name, 0) => name,
            (name, 1) => format!("dot({name})"),
            (name, _) => format!("ddot({name})"),
        }
    }

    /// The LaTeX name of `symbol`.
    pub fn latex(&self, symbol: Symbol) -> String {
        let (name, dots) = self.raw(symbol);
        if let Symbol::Momentum(_) = symbol {
            // `px`, the momentum of coordinate `x`, is p_{x}.
            if let Some(c) = name
                .strip_prefix('p')
                .filter(|c| self.coordinates.iter().any(|q| q == c))
            {
                return format!("p_{{{}}}", latex_name(c, 0));
            }
        }
        latex_name(&name, dots)
    }
}

/// The names of the definitions' components that are not leaves, the first definition of a
/// node winning, by [`component_labels`].
fn aliases(d: &Derivation) -> HashMap<ExprId, (String, String, usize)> {
    let mut aliases = HashMap::default();
    for (index, definition) in d.definitions.iter().enumerate() {
        let labels = component_labels(&definition.name, &definition.value);
        for (&id, label) in definition.value.components().iter().zip(labels) {
            if !matches!(d.pool.get(id), Node::Number(_) | Node::Symbol(_)) {
                aliases.entry(id).or_insert((label.0, label.1, index));
            }
        }
    }
    aliases
}

/// The labels (text, LaTeX) of the components of a value named `name`: a scalar `d` is `d`, a
/// vector `p` is `p.x`, `p.y`, `p.z` (LaTeX p_{x}), a matrix `R` is `R[1,1]` … `R[3,3]`
/// (LaTeX R_{11}).
pub(super) fn component_labels(name: &str, value: &Value) -> Vec<(String, String)> {
    let base = latex_name(name, 0);
    match value {
        Value::Scalar(_) => vec![(name.to_owned(), base)],
        Value::Vector(_) => ["x", "y", "z"]
            .iter()
            .map(|c| (format!("{name}.{c}"), format!("{{{base}}}_{{{c}}}")))
            .collect(),
        Value::Matrix(_) => (0..9)
            .map(|k| {
                let (i, j) = (k / 3 + 1, k % 3 + 1);
                (format!("{name}[{i},{j}]"), format!("{{{base}}}_{{{i}{j}}}"))
            })
            .collect(),
    }
}

/// A name with `dots` dots over its base, in LaTeX.
pub(super) fn latex_name(name: &str, dots: u8) -> String {
    let (base, subscript) = split_subscript(name);
    let base = latex_base(base);
    let base = match dots {
        0 => base,
        1 => format!("\\dot{{{base}}}"),
        _ => format!("\\ddot{{{base}}}"),
    };
    match subscript {
        Some(s) => format!("{base}_{{{s}}}"),
        None => base,
    }
}

/// `theta1` → (`theta`, `1`), `x_tip` → (`x`, `tip`), `m` → (`m`, none).
fn split_subscript(name: &str) -> (&str, Option<&str>) {
    if let Some((base, sub)) = name.split_once('_') {
        if !base.is_empty() && !sub.is_empty() {
            return (base, Some(sub));
        }
    }
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && digits < name.len() {
        let (base, sub) = name.split_at(name.len() - digits);
        return (base, Some(sub));
    }
    (name, None)
}

const GREEK: [&str; 35] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi",
    "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi",
    "Omega", "varphi",
];

fn latex_base(base: &str) -> String {
    // `th` is the usual ASCII shorthand for θ.
    let base = if base == "th" { "theta" } else { base };
    if GREEK.contains(&base) {
        format!("\\{base}")
    } else if base.chars().count() == 1 {
        base.to_owned()
    } else {
        format!("\\mathrm{{{}}}", base.replace('_', "\\_"))
    }
}
