//! The model spec: what a user writes, as the macro parses it or as a TOML/JSON file holds it.
//!
//! Expressions and names keep their `syn` form, so every later error can point at a span.
//! In a file they are strings, parsed into `syn`'s tree on deserialization (a plain
//! expression by udk's own parser, `crate::plain`, any other by `syn`).

use proc_macro2::Span;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A constrained mechanical system as its user states it.
///
/// Exactly one of `lagrangian` and `hamiltonian` is set (checked by the derivation, which
/// reports the error). With n = `coordinates.len()`:
/// - `lagrangian`: L(q, q̇, t), with `dot(q)` for a generalized velocity;
/// - `hamiltonian`: H(q, p, t), with `momenta` naming the n generalized momenta p;
/// - `holonomic`: f(q, t) = 0, differentiated twice (review eqs 18–22);
/// - `nonholonomic`: φ(q, q̇, t) = 0, linear or not in q̇, differentiated once (review eqs 23–29);
/// - `constraints`: φ(q, p, t) = 0 of a Hamiltonian model (Udwadia 2016, eq 10);
/// - `forces`: n non-conservative generalized forces, added to Q;
/// - `nonideal`: n entries of the non-ideal constraint force C (Udwadia & Phohomsiri 2006, eq 2.14);
/// - `definitions`: named scalars, 3-vectors or 3×3 matrices, in order, each usable by the
///   later ones and by every expression (`let NAME = EXPR` in the macro);
/// - `inputs`: names of k run-time inputs u (torques, forces, commands), usable in `forces`,
///   `loads` and `nonideal` only;
/// - `loads`: `force(F, p)` and `torque(T, R)` entries, world-frame forces at points and
///   torques on bodies, added to Q as F·∂ṗ/∂q̇ and T·∂ω/∂q̇;
/// - `outputs`: named kinematic quantities (scalars or 3-vectors) to compute and plot;
/// - `speeds`, `kinematics`: generalized speeds u₁…uₙ (Kane's speeds, quasi-velocities) and
///   the kinematic differential equations q̇ᵢ = Kᵢ(q, u, t), one per coordinate in order, linear
///   in u: q̇ = N(q, t) u + c(q, t). M, Q, A, b and C are then taken with respect to u̇
///   (M_u = NᵀMN, Q_u = Nᵀ(Q − M(Ṅu + ċ)), A_u = AN, b_u = b − A(Ṅu + ċ), C_u = NᵀC; Kane &
///   Levinson 1985, ch. 2 and 6), and the state is (q, u). L stays L(q, q̇, t); `dot(q)`
///   elsewhere stands for Kᵢ;
/// - `servo`: servo (task) constraints, each `holonomic(e1, ...)` (e(q, t) = 0, differentiated
///   twice) or `nonholonomic(φ1, ...)` (φ(q, q̇, t) = 0, differentiated once), realized by the
///   inputs rather than by the environment (review paper, section 8.3; Udwadia 2003).
///
/// A Lagrangian model takes `holonomic`, `nonholonomic`, `forces`, `nonideal`, `inputs`,
/// `loads`, `outputs`, `servo`, `speeds` and `kinematics`; a Hamiltonian model takes `momenta`, `holonomic`, `constraints` and
/// `outputs` (its equations have no place for forces or C). Both take `definitions`.
/// [`derive`](crate::derive()) reports any other field that is set, at its span.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// The model's name, for example the struct's name.
    pub name: String,
    /// Generalized coordinates q₁…qₙ (given by the file in a URDF model).
    #[serde(default)]
    pub coordinates: Vec<Name>,
    /// Parameters, in order, with optional default values.
    #[serde(default)]
    pub parameters: Vec<Parameter>,
    /// The Lagrangian L(q, q̇, t).
    #[serde(default)]
    pub lagrangian: Option<Expression>,
    /// The Hamiltonian H(q, p, t).
    #[serde(default)]
    pub hamiltonian: Option<Expression>,
    /// Names of the generalized momenta p₁…pₙ (Hamiltonian models only).
    #[serde(default)]
    pub momenta: Vec<Name>,
    /// Holonomic constraints f(q, t) = 0.
    #[serde(default)]
    pub holonomic: Vec<Expression>,
    /// Nonholonomic constraints φ(q, q̇, t) = 0 (Lagrangian models).
    #[serde(default)]
    pub nonholonomic: Vec<Expression>,
    /// Constraints φ(q, p, t) = 0 (Hamiltonian models).
    #[serde(default)]
    pub constraints: Vec<Expression>,
    /// Non-conservative generalized forces, n entries or none.
    #[serde(default)]
    pub forces: Vec<Expression>,
    /// Non-ideal constraint force C, n entries or none.
    #[serde(default)]
    pub nonideal: Vec<Expression>,
    /// Named definitions, in order (`let NAME = EXPR`): scalars, 3-vectors or 3×3 matrices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<NamedExpression>,
    /// Names of the run-time inputs u₁…uₖ (Lagrangian models).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<Name>,
    /// Loads `force(F, p)` and `torque(T, R)` (Lagrangian models).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<Expression>,
    /// Named outputs: kinematic quantities of (q, q̇, u, t), scalars or 3-vectors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<NamedExpression>,
    /// Names of the generalized speeds u₁…uₙ (Lagrangian models), as many as the coordinates;
    /// empty for a model whose speeds are the velocities q̇.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speeds: Vec<Name>,
    /// The kinematic differential equations: q̇ᵢ = Kᵢ(q, u, t) for each coordinate, in order,
    /// linear in the speeds; given exactly when `speeds` is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinematics: Vec<Expression>,
    /// Blocks of entries repeated over an integer range (`for i in 0..6 { .. }` in the macro,
    /// `[[repeat]]` in a file), expanded before the derivation with the indexed names and
    /// sums of every expression ([`crate::repeat`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeat: Vec<crate::repeat::Repeat>,
    /// Servo constraints (Lagrangian models with inputs): each entry is `holonomic(e1, ...)`
    /// or `nonholonomic(φ1, ...)`, written as the physical constraints are; in a model file
    /// `servo = ["holonomic(x - 0.1 * t)", "nonholonomic(dot(q2) + dot(q4))"]`. They are
    /// kept apart from `holonomic` and `nonholonomic`: the motion satisfies them only under
    /// the inputs that `udk_runtime::servo` computes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servo: Vec<Expression>,
    /// The kinematic tree of a robot model (set by the URDF front end, never written by hand):
    /// the derivation then also forms M by the composite-rigid-body algorithm and Q by
    /// recursive Newton–Euler, and keeps the smallest form.
    #[serde(skip)]
    pub tree: Option<crate::tree::RigidBodyTree>,
    /// For each body of `tree`, in its order, the names of the definitions of its frame's world
    /// rotation and origin (set with `tree` by the URDF front end): the derivation gives the
    /// servo rows that use them the tree's velocities and bias accelerations.
    #[serde(skip)]
    pub tree_frames: Vec<(String, String)>,
    /// A robot description to build the model from: the URDF file and its options (see
    /// [`crate::urdf`]); [`crate::urdf::expand`] fills the other fields from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urdf: Option<crate::urdf::UrdfSource>,
    /// The coordinates' names as the model states them, when they are not Rust identifiers
    /// (URDF joint names, set by the URDF front end); empty means `coordinates`. The generated
    /// `COORDINATE_NAMES` holds these.
    #[serde(skip)]
    pub coordinate_names: Vec<String>,
    /// What a front end accepted with a remark (set by the URDF front end: an inertia tensor
    /// slightly indefinite or repaired, an ignored `<mimic>`), each naming the file and the
    /// element. [`crate::Derivation::warnings`] carries them on: the `udk` CLI prints them and
    /// the macro raises each as a compiler warning.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Initial conditions for a simulation (model files only; the derivation ignores them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<InitialState>,
    /// Events of a simulation: guards, their directions and actions (model files only; the
    /// derivation ignores them, `udk simulate` and `udk limit-cycle` run them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventSpec>,
    /// Unilateral contacts of a Lagrangian model (`contacts(..)` in the macro, `[[contacts]]`
    /// in a file): the derivation gives each its rows ([`crate::ContactEquations`]), apart
    /// from A q̈ = b; `udk_runtime::simulate::ContactSet` runs them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contacts: Vec<ContactSpec>,
    /// A PD law on the joints of a floating-base robot (`[joint_pd]` in a model file), which
    /// its simulations add to the joint efforts (model files only, like `initial`: the
    /// derivation and `udk eval` ignore it; a model without `floating_base = true` refuses it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_pd: Option<JointPd>,
}

/// A proportional–derivative law on the n joints of a robot on a floating base (`[joint_pd]`
/// in a model file), the position servo of each joint's actuator:
/// τⱼ = K_p,j (q*ⱼ − qⱼ) − K_d,j q̇ⱼ, added to the joint efforts a simulation holds (`--u`) or
/// is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointPd {
    /// K_p ≥ 0: N·m/rad (N/m for a prismatic joint), one number for every joint or one per
    /// joint.
    pub stiffness: Gains,
    /// K_d ≥ 0: N·m·s/rad (N·s/m for a prismatic joint), one number or one per joint.
    pub damping: Gains,
    /// q*, the set point of each joint (rad or m), n entries in the order of the joints in q.
    pub posture: Vec<f64>,
}

impl JointPd {
    /// K_p, K_d and q* of each of `n` joints.
    ///
    /// # Errors
    /// A message naming the field: a list that does not have n entries, a gain that is
    /// negative or not finite, a set point that is not finite.
    pub fn per_joint(&self, n: usize) -> Result<[Vec<f64>; 3], String> {
        let gains = |what: &str, gains: &Gains| {
            let values = match gains {
                Gains::Uniform(k) => vec![*k; n],
                Gains::PerJoint(values) => values.clone(),
            };
            if values.len() != n {
                return Err(format!(
                    "`joint_pd.{what}` has {} entries; it needs one number, or one per joint ({n})",
                    values.len()
                ));
            }
            match values.iter().all(|k| k.is_finite() && *k >= 0.0) {
                true => Ok(values),
                false => Err(format!(
                    "`joint_pd.{what}` must be finite and non-negative: {values:?}"
                )),
            }
        };
        let (stiffness, damping) = (
            gains("stiffness", &self.stiffness)?,
            gains("damping", &self.damping)?,
        );
        if self.posture.len() != n {
            return Err(format!(
                "`joint_pd.posture` has {} entries; it needs one per joint ({n})",
                self.posture.len()
            ));
        }
        if !self.posture.iter().all(|q| q.is_finite()) {
            return Err(format!(
                "`joint_pd.posture` must be finite: {:?}",
                self.posture
            ));
        }
        Ok([stiffness, damping, self.posture.clone()])
    }
}

/// The gains of a [`JointPd`]: one number for every joint, or one per joint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Gains {
    /// The same gain for every joint.
    Uniform(f64),
    /// One gain per joint, in the order of the joints in q.
    PerJoint(Vec<f64>),
}

/// A coefficient of a contact or event (a restitution, a friction coefficient): a number, or
/// an expression of the parameters, so that `--set` (or the struct's fields) reach it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Coefficient {
    /// A number.
    Number(f64),
    /// An expression of the parameters, such as `"mu"`.
    Expression(Box<Expression>),
}

impl Default for Coefficient {
    fn default() -> Self {
        Coefficient::Number(0.0)
    }
}

/// A unilateral contact (`[[contacts]]` in a model file, `contacts(NAME(gap = ..), ..)` in the
/// macro): a gap φ(q, t) ≥ 0 and, for friction,
/// a slip coordinate s(q, t) along the surface, with a restitution e and a Coulomb friction
/// coefficient μ. Closed, it adds φ = 0 (and ṡ = 0 while sticking) to the constraints; sliding,
/// the friction force −μ|λₙ| sgn(ṡ) ∂s/∂q.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSpec {
    /// The contact's name: its forces are `<name>.normal` and `<name>.tangent`.
    pub name: String,
    /// The gap φ(q, t), positive apart (m).
    pub gap: Expression,
    /// The slip coordinate s(q, t) along the surface; without it the contact has no friction
    /// direction and never slides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slip: Option<Expression>,
    /// The coefficient of restitution e ≥ 0 of a touchdown (0: plastic, the contact closes).
    #[serde(default)]
    pub restitution: Coefficient,
    /// The Coulomb friction coefficient μ ≥ 0.
    #[serde(default)]
    pub friction: Coefficient,
    /// A touchdown that would rebound slower than this (m/s) is plastic and closes the
    /// contact, so that a bouncing body comes to rest; 0 by default.
    #[serde(default)]
    pub rest_speed: Coefficient,
}

/// An event of a model file's simulation (`[[events]]`): a guard g(t, q, q̇) whose zero
/// crossings in `direction` fire it where `when` (if given) is positive, and what it does.
///
/// A reset applies, in order: the impact (when `impact` is not empty) of the rows `impact`
/// (gap functions φ(q, t), their rows ∂φ/∂q, or model rows named `holonomic[i]` or
/// `nonholonomic[i]`) with restitution `restitution`, together with the model's other
/// constraint rows except those named in `release` (Udwadia & Kalaba 1993, eq 17 at velocity
/// level); then the map `q` of the coordinates, q⁺ = R(t, q), with q̇⁺ = `qd` when given, else
/// q̇⁺ = (∂R/∂q) q̇ (a change of coordinates, such as a swap of legs).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// The event's name, for the event log and messages.
    pub name: String,
    /// The guard g(t, q, q̇); it must depend on q or q̇.
    pub guard: Expression,
    /// Which crossings fire it: `rising`, `falling` or `both` (the default).
    #[serde(default)]
    pub direction: EventDirection,
    /// A condition c(t, q, q̇): the event fires only at crossings where c > 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Expression>,
    /// `stop`, `record` or `reset`; by default `reset` when a reset is given, else `record`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<EventAction>,
    /// The impacting rows: gap functions φ(q, t), or `holonomic[i]` / `nonholonomic[i]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub impact: Vec<Expression>,
    /// The coefficient of restitution e ≥ 0 of the impacting rows (0: plastic).
    #[serde(default)]
    pub restitution: Coefficient,
    /// Model rows (`holonomic[i]`, `nonholonomic[i]`) that do not persist through the impact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub release: Vec<String>,
    /// The map of the coordinates q⁺ = R(t, q), n entries or none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub q: Vec<Expression>,
    /// The velocities after the reset q̇⁺(t, q, q̇) (of the state after the impact, before the
    /// map), n entries or none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qd: Vec<Expression>,
}

/// Which zero crossings of a guard fire its event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventDirection {
    /// From negative to zero or positive.
    Rising,
    /// From positive to zero or negative.
    Falling,
    /// Either.
    #[default]
    Both,
}

/// What an event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventAction {
    /// End the run.
    Stop,
    /// Log the event and go on.
    Record,
    /// Apply the reset and go on.
    Reset,
}

/// The initial state of a model file's simulation: t₀, q₀ and q̇₀ (Lagrangian models) or p₀
/// (Hamiltonian models). The `udk` command line checks the lengths (n each) and that the state
/// satisfies the constraints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialState {
    /// Initial time t₀ (s); 0 when not given.
    #[serde(default)]
    pub t0: f64,
    /// Initial generalized coordinates q₀, n entries.
    pub q0: Vec<f64>,
    /// Initial generalized velocities q̇₀, n entries (Lagrangian models).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qd0: Vec<f64>,
    /// Initial generalized momenta p₀, n entries (Hamiltonian models).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub p0: Vec<f64>,
}

/// A name bound to an expression: a definition (`let NAME = EXPR`) or an output
/// (`outputs(NAME = EXPR)`); in a model file `{ name = "NAME", value = "EXPR" }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedExpression {
    /// The name, as later expressions (definitions) or the generated API (outputs) use it.
    pub name: Name,
    /// Its value.
    pub value: Expression,
}

/// A named parameter of a model, with an optional default value.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// The parameter's name, as used in expressions.
    pub name: Name,
    /// Its value when the model is evaluated without one being given.
    #[serde(default)]
    pub value: Option<f64>,
}

/// An identifier with its span: a coordinate, momentum or parameter name.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Name(pub syn::Ident);

impl Name {
    /// The name as a string.
    pub fn as_string(&self) -> String {
        self.0.to_string()
    }
    /// Where the name was written.
    pub fn span(&self) -> Span {
        self.0.span()
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::str::FromStr for Name {
    type Err = syn::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        syn::parse_str::<syn::Ident>(s).map(Name)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse()
            .map_err(|e| serde::de::Error::custom(format!("`{s}` is not a name: {e}")))
    }
}

/// An expression in udk's syntax (a Rust expression: see the crate docs), with its spans.
///
/// `syn`'s trees are recursive, and a chain `a + b + c + …` is as deep as it is long, so
/// `Expression` parses, clones, prints and drops its tree on a stack sized to the tree's
/// depth: the current one when it has room, else a new one
/// (at least [`STACK_BYTES`](crate::limits::STACK_BYTES)). Any thread can hold a model's
/// expressions within [`crate::limits`], a sum of 100,000 terms or parentheses 4096 deep.
pub struct Expression(pub syn::Expr);

impl Clone for Expression {
    fn clone(&self) -> Self {
        let needed = crate::stack::for_tree(&self.0, crate::stack::WALK_BYTES_PER_LEVEL);
        Expression(crate::stack::with(needed, || self.0.clone()))
    }
}

impl fmt::Debug for Expression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let needed = crate::stack::for_tree(&self.0, crate::stack::WALK_BYTES_PER_LEVEL);
        crate::stack::with(needed, || {
            f.debug_tuple("Expression").field(&self.0).finish()
        })
    }
}

impl Drop for Expression {
    fn drop(&mut self) {
        let empty = syn::Expr::Verbatim(proc_macro2::TokenStream::new());
        let tree = std::mem::replace(&mut self.0, empty);
        let needed = crate::stack::for_tree(&tree, crate::stack::DROP_BYTES_PER_LEVEL);
        crate::stack::with(needed, move || drop(tree));
    }
}

impl Expression {
    /// The span of the whole expression.
    pub fn span(&self) -> Span {
        syn::spanned::Spanned::span(&self.0)
    }
}

impl fmt::Display for Expression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let needed = crate::stack::for_tree(&self.0, crate::stack::WALK_BYTES_PER_LEVEL);
        // The tokens' groups are printed and dropped recursively too.
        let text = crate::stack::with(needed, || {
            quote::ToTokens::to_token_stream(&self.0).to_string()
        });
        f.write_str(&text)
    }
}

impl std::str::FromStr for Expression {
    type Err = syn::Error;
    /// Parses `s` as an expression, after checking its length, size and nesting against
    /// [`crate::limits`], on a stack sized to its nesting: a plain expression by udk's own
    /// parser (`crate::plain`), any other by `syn` (the same tree either way).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::limits::check_text(s)
            .map_err(|message| syn::Error::new(proc_macro2::Span::call_site(), message))?;
        let tokens: proc_macro2::TokenStream = s.parse()?;
        let nesting =
            crate::limits::check_tokens(&tokens).map_err(|e| syn::Error::new(e.span, e.message))?;
        // The plain parser takes the tokens; `syn` lexes again what it hands back.
        crate::stack::with(
            crate::stack::for_parsing(nesting),
            || match crate::plain::parse(tokens) {
                Some(expression) => Ok(Expression(expression)),
                None => syn::parse_str::<syn::Expr>(s).map(Expression),
            },
        )
    }
}

impl Serialize for Expression {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Expression {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(|e| {
            serde::de::Error::custom(format!("`{}` is not an expression: {e}", excerpt(&s)))
        })
    }
}

/// `s`, or its first 60 characters and `…` when it is longer, for messages.
fn excerpt(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_owned(),
    }
}
