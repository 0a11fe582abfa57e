//! What the derivation produces: the equations of motion as DAG entries, ready for the emitters.

use crate::expr::{ExprId, Pool};
use crate::parse::Value;

/// A dense matrix of expressions, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprMatrix {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// rows × cols entries, row-major.
    pub entries: Vec<ExprId>,
}

impl ExprMatrix {
    /// Entry (i, j).
    pub fn get(&self, i: usize, j: usize) -> ExprId {
        self.entries[i * self.cols + j]
    }
}

/// The derived equations of a Lagrangian model with n coordinates and m constraints
/// (holonomic first, then nonholonomic).
#[derive(Clone, Debug)]
pub struct LagrangianEquations {
    /// Mass matrix M = ∂²L/∂q̇², n × n; depends on q and t only.
    pub mass_matrix: ExprMatrix,
    /// How M (and Q from it) were formed: the smaller of the ways in `mass_matrix_forms`.
    pub mass_matrix_form: MassMatrixForm,
    /// Each way of forming M that was tried, with the operations M and Q take together
    /// ([`Pool::operation_count`]).
    pub mass_matrix_forms: Vec<(MassMatrixForm, usize)>,
    /// Generalized force Q = ∂L/∂q − (∂²L/∂q̇∂q) q̇ − ∂²L/∂q̇∂t + forces, n entries.
    pub generalized_force: Vec<ExprId>,
    /// Constraint matrix A = ∂(constraint)/∂q̈, m × n: row r is ∂f̈ᵣ/∂q̈ for a holonomic
    /// constraint fᵣ(q, t) (differentiated twice) and ∂φ̇ᵣ/∂q̈ for a nonholonomic φᵣ(q, q̇, t)
    /// (differentiated once); review paper eqs 18–29.
    pub constraint_matrix: ExprMatrix,
    /// b = −(f̈ or φ̇ with q̈ = 0), m entries, so that A q̈ = b.
    pub constraint_rhs: Vec<ExprId>,
    /// Non-ideal constraint force C(q, q̇, t), n entries (zeros when none was given);
    /// Udwadia & Phohomsiri 2006, eq 2.14.
    pub nonideal_force: Vec<ExprId>,
    /// The part of Q that L does not give: the `forces` plus the generalized forces of the
    /// `loads`, n entries, or none when the model has neither.
    pub nonconservative_force: Vec<ExprId>,
    /// The O(n) path of a kinematic tree, when it applies: q̈₀ and M⁻¹Aᵀ by the
    /// articulated-body algorithm, for the factored fundamental equation. `None` for a model
    /// without [`crate::ModelSpec::tree`], or one where M is singular structurally (a
    /// massless subtree, a coordinate no joint moves) or where L holds inertia the tree does
    /// not: such a model takes the dense path.
    pub articulated: Option<ArticulatedEquations>,
    /// Jacobi integral h = q̇ᵀ ∂L/∂q̇ − L (conserved when L does not depend on t, there are no
    /// forces, and the constraints are ideal and do no work).
    pub energy: ExprId,
    /// The holonomic constraints f(q, t), as written.
    pub holonomic: Vec<ExprId>,
    /// Velocity-level constraints: ḟ for each holonomic one, then φ(q, q̇, t), m entries.
    pub velocity_constraints: Vec<ExprId>,
    /// The Jacobians of the residuals of the fundamental equation, for the exact derivative
    /// of q̈; `None` for a model beyond
    /// [`MAX_JACOBIAN_COST`](crate::limits::MAX_JACOBIAN_COST), for a model with generalized
    /// speeds, and until [`Derivation::derive_jacobians`] for a derivation made with
    /// [`Jacobians::OnDemand`](crate::derive::Jacobians::OnDemand).
    pub jacobians: Option<LagrangianJacobians>,
    /// The residual of a kinematic tree whose M is the composite-rigid-body one and whose
    /// rest of L is at most a potential, by inverse dynamics; `None` for other models, whose
    /// residual is formed with M and Q. What the Jacobians differentiate.
    pub tree_residual: Option<TreeResidual>,
    /// The servo constraints and the input matrix, for a model with `servo`; `None` without.
    pub servo: Option<ServoEquations>,
    /// The unilateral contacts ([`crate::ModelSpec::contacts`]), in order; not part of A q̈ = b:
    /// the simulator adds a contact's rows while it is closed (`udk_runtime::simulate::ContactSet`).
    pub contacts: Vec<ContactEquations>,
    /// The kinematic differential equations of a model with generalized speeds; `None` for a
    /// model whose second state is q̇. With them, every other field is in terms of (q, u, t)
    /// with the speeds u as `Symbol::Velocity`: M, Q, A, b, C are taken with respect to u̇
    /// (`crate::derive()` documents how), the acceleration is u̇, and
    /// [`LagrangianEquations::articulated`] and [`LagrangianEquations::jacobians`] are `None`.
    pub kinematics: Option<Kinematics>,
}

/// The residual r = M v − Q − C − Aᵀλ of a kinematic tree with n coordinates split as
/// (M v − Q₀) − (Q − Q₀ + C) − Aᵀλ, its first part by recursive Newton–Euler (Featherstone
/// 2008, Table 5.1): O(n) operations where the product M v takes O(n²), so that its Jacobians
/// cost O(n) per variable.
#[derive(Clone, Debug)]
pub struct TreeResidual {
    /// M v − Q₀ with the tree's bias force Q₀ and the accelerations v
    /// (`Symbol::Acceleration`), n entries.
    pub inertial: Vec<ExprId>,
    /// Q − Q₀: the joint forces besides the tree's bias (the forces, the loads and the
    /// Lagrangian Q of the rest of L), n entries.
    pub joint_forces: Vec<ExprId>,
    /// The tree's constants, from which the Jacobians form ∂(M v − Q₀)/∂q and ∂/∂q̇ by the
    /// analytic derivatives of recursive Newton–Euler.
    pub(crate) constants: crate::derive::tree::TreeConstants,
}

/// A unilateral contact of a Lagrangian model with n coordinates, derived: its gap φ(q, t) ≥ 0
/// and slip coordinate s(q, t), each with its row and the b of its second derivative, and its
/// coefficients as expressions of the parameters.
///
/// φ̈ = (∂φ/∂q) q̈ − `normal_rhs` and s̈ = (∂s/∂q) q̈ − `tangent_rhs`, so that a closed contact
/// adds the row ∂φ/∂q with right-hand side `normal_rhs` to A q̈ = b (review paper, eqs 18–22).
#[derive(Clone, Debug)]
pub struct ContactEquations {
    /// The contact's name: its forces are `<name>.normal` and `<name>.tangent`.
    pub name: String,
    /// The gap φ(q, t), positive apart.
    pub gap: ExprId,
    /// ∂φ/∂q, n entries.
    pub normal: Vec<ExprId>,
    /// ∂φ/∂t, the motion of the surface (0 for a fixed one): φ̇ = (∂φ/∂q) q̇ + ∂φ/∂t.
    pub normal_rate: ExprId,
    /// −(φ̈ at q̈ = 0), a function of (q, q̇, t).
    pub normal_rhs: ExprId,
    /// The slip coordinate s(q, t) (0 for a contact without one, which never slides).
    pub slip: ExprId,
    /// ∂s/∂q, n entries (zeros without a slip coordinate).
    pub tangent: Vec<ExprId>,
    /// ∂s/∂t: ṡ = (∂s/∂q) q̇ + ∂s/∂t is the slip relative to the surface (a conveyor belt
    /// s = x − v t has ∂s/∂t = −v).
    pub tangent_rate: ExprId,
    /// −(s̈ at q̈ = 0).
    pub tangent_rhs: ExprId,
    /// The restitution e ≥ 0, an expression of the parameters.
    pub restitution: ExprId,
    /// The Coulomb friction coefficient μ ≥ 0, an expression of the parameters.
    pub friction: ExprId,
    /// The rest speed (a touchdown slower than it after the rebound is plastic), an
    /// expression of the parameters.
    pub rest_speed: ExprId,
}

impl ContactEquations {
    /// The geometry in the order of `udk_runtime::simulate::ContactGeometry`: φ, ∂φ/∂q (n),
    /// ∂φ/∂t and its b, then s, ∂s/∂q (n), ∂s/∂t and its b; 2n + 6 entries.
    pub fn geometry(&self) -> Vec<ExprId> {
        let mut ids = Vec::with_capacity(2 * self.normal.len() + 6);
        ids.push(self.gap);
        ids.extend(&self.normal);
        ids.extend([self.normal_rate, self.normal_rhs, self.slip]);
        ids.extend(&self.tangent);
        ids.extend([self.tangent_rate, self.tangent_rhs]);
        ids
    }

    /// The coefficients e, μ and the rest speed.
    pub fn coefficients(&self) -> [ExprId; 3] {
        [self.restitution, self.friction, self.rest_speed]
    }
}

/// The kinematic differential equations q̇ = K(q, u, t) = N(q, t) u + c(q, t) of a model with
/// n coordinates and n generalized speeds u (Kane & Levinson 1985, ch. 2: Kane's speeds,
/// quasi-velocities), the speeds as `Symbol::Velocity`.
#[derive(Clone, Debug)]
pub struct Kinematics {
    /// q̇ = K(q, u, t), n entries: what the simulator integrates q by.
    pub rates: Vec<ExprId>,
    /// N = ∂K/∂u, n × n.
    pub matrix: ExprMatrix,
}

/// The servo (task) constraints of a Lagrangian model with n coordinates, k inputs and s
/// servo rows (holonomic first), and what the controller of `udk_runtime::servo` needs to
/// realize them through the inputs (review paper, section 8.3; Udwadia 2003).
///
/// The inputs enter Q + C affinely, Q + C = (Q + C)|u=0 + B u; the derivation checks it.
#[derive(Clone, Debug)]
pub struct ServoEquations {
    /// A_s = ∂(servo constraint, differentiated)/∂q̈, s × n, as
    /// [`LagrangianEquations::constraint_matrix`]. For rows of a URDF tree's link frames, with
    /// b_s and the velocity constraints, from the tree's kinematics where that form agrees and
    /// is smaller (the geometric Jacobian and the bias acceleration of the forward recursion;
    /// Featherstone 2008, §2.11 and §5.3).
    pub constraint_matrix: ExprMatrix,
    /// b_s, s entries, so that the servo constraints hold when A_s q̈ = b_s.
    pub constraint_rhs: Vec<ExprId>,
    /// The holonomic servo constraints e(q, t) as written (the first servo rows).
    pub holonomic: Vec<ExprId>,
    /// The holonomic residuals of all m + s rows, physical then servo: f(q, t) and e(q, t) in
    /// the holonomic rows, 0 in the nonholonomic ones.
    pub position_residual: Vec<ExprId>,
    /// The servo constraints at velocity level, s entries: ė for each holonomic one, then
    /// φ(q, q̇, t); the error β of the review paper, eq 72.
    pub velocity_constraints: Vec<ExprId>,
    /// The input matrix B = ∂(Q + C)/∂u, n × k, free of u.
    pub input_matrix: ExprMatrix,
    /// Q at u = 0, n entries.
    pub generalized_force: Vec<ExprId>,
    /// C at u = 0, n entries.
    pub nonideal_force: Vec<ExprId>,
    /// The inverse dynamics at u = 0, M v − Q − C with the accelerations v
    /// (`Symbol::Acceleration`), n entries: the generalized force the inputs must add for the
    /// motion v. For a kinematic tree by recursive Newton–Euler (Featherstone 2008, Table
    /// 5.1), O(n) operations, M never formed; else the product M v. The controller's path
    /// without M (`udk_runtime::servo::control_by_inverse_dynamics`) evaluates it at q̈*.
    pub inverse_dynamics: Vec<ExprId>,
}

/// The constraint rows of a servo controller's terms, for a Lagrangian model with n
/// coordinates, m physical and s servo rows: the physical rows first, then the servo ones
/// (r = m + s), as `udk_runtime::servo::GenericServoTerms` holds them.
#[derive(Clone, Debug)]
pub struct ServoRows {
    /// [A; A_s], r × n.
    pub constraint_matrix: ExprMatrix,
    /// [b; b_s], r entries.
    pub constraint_rhs: Vec<ExprId>,
    /// The r rows at velocity level: ḟ or φ, then ė or φ_s (the error β of the review paper,
    /// eq 72, in the servo rows).
    pub velocity_residual: Vec<ExprId>,
}

impl LagrangianEquations {
    /// The outputs of the articulated-body program, concatenated (matrices row-major): q̈₀
    /// (n), W = M⁻¹Aᵀ (n × m), A (m × n), b (m), the pivots (one per body) and C (n), the
    /// order in which `udk::Model` compiles them. `None` for a model that is not a kinematic
    /// tree ([`LagrangianEquations::articulated`]).
    pub fn articulated_outputs(&self) -> Option<Vec<ExprId>> {
        let art = self.articulated.as_ref()?;
        Some(
            [
                &art.unconstrained_acceleration[..],
                &art.inverse_mass_constraint.entries,
                &self.constraint_matrix.entries,
                &self.constraint_rhs,
                &art.pivots,
                &self.nonideal_force,
            ]
            .concat(),
        )
    }

    /// The physical and servo rows stacked, for the servo controller; `None` for a model
    /// without servo constraints.
    pub fn servo_rows(&self) -> Option<ServoRows> {
        let servo = self.servo.as_ref()?;
        let concat = |a: &[ExprId], b: &[ExprId]| [a, b].concat();
        Some(ServoRows {
            constraint_matrix: ExprMatrix {
                rows: self.constraint_rhs.len() + servo.constraint_rhs.len(),
                cols: self.mass_matrix.cols,
                entries: concat(
                    &self.constraint_matrix.entries,
                    &servo.constraint_matrix.entries,
                ),
            },
            constraint_rhs: concat(&self.constraint_rhs, &servo.constraint_rhs),
            velocity_residual: concat(&self.velocity_constraints, &servo.velocity_constraints),
        })
    }

    /// Whether the servo rows alone determine the motion and the inputs are the generalized
    /// forces: servo constraints, no physical rows, as many servo rows as coordinates and an
    /// input matrix B that is the identity exactly (entries of `pool`). Then the controller
    /// may take the path by inverse dynamics (`udk_runtime::servo::control_by_inverse_dynamics`:
    /// q̈* = A_s⁻¹b*, then u = M q̈* − Q − C from [`ServoEquations::inverse_dynamics`], M never
    /// formed).
    pub fn servo_by_inverse_dynamics(&self, pool: &Pool) -> bool {
        let Some(servo) = &self.servo else {
            return false;
        };
        let (n, input) = (self.mass_matrix.rows, &servo.input_matrix);
        self.constraint_rhs.is_empty()
            && servo.constraint_rhs.len() == n
            && input.rows == n
            && input.cols == n
            && (0..n).all(|i| {
                (0..n).all(|j| match i == j {
                    true => pool.is_one(input.get(i, j)),
                    false => pool.is_zero(input.get(i, j)),
                })
            })
    }
}

/// The Jacobians of the two residuals of a Lagrangian model with n coordinates, m
/// constraints and k inputs, whose zeros define the motion:
///
/// - r(q, q̇, u, t; v, λ) = M v − Q − C − Aᵀλ, n entries, and
/// - g(q, q̇, u, t; v) = A v − b, m entries,
///
/// with the acceleration v (`Symbol::Acceleration`) and the multipliers λ
/// (`Symbol::Multiplier`) held fixed, so that ∂M/∂q enters only contracted with v. The
/// runtime turns them into ∂q̈/∂(q, q̇, u) (`udk_runtime::jacobian`). Each block is
/// rows × columns, entry (i, j) = ∂(residual i)/∂(variable j).
#[derive(Clone, Debug)]
pub struct LagrangianJacobians {
    /// ∂r/∂q, n × n.
    pub r_q: ExprMatrix,
    /// ∂r/∂q̇, n × n.
    pub r_qd: ExprMatrix,
    /// ∂r/∂u, n × k.
    pub r_u: ExprMatrix,
    /// ∂g/∂q, m × n.
    pub g_q: ExprMatrix,
    /// ∂g/∂q̇, m × n.
    pub g_qd: ExprMatrix,
    /// ∂g/∂u, m × k (zero: constraints hold no input).
    pub g_u: ExprMatrix,
    /// ∂(velocity-level constraints)/∂q, m × n (their ∂/∂q̇ is A).
    pub velocity_constraints_q: ExprMatrix,
}

impl LagrangianJacobians {
    /// The blocks r_q, r_qd, r_u, g_q, g_qd, g_u with their names, in that order.
    pub fn residual_blocks(&self) -> [(&'static str, &ExprMatrix); 6] {
        [
            ("r_q", &self.r_q),
            ("r_qd", &self.r_qd),
            ("r_u", &self.r_u),
            ("g_q", &self.g_q),
            ("g_qd", &self.g_qd),
            ("g_u", &self.g_u),
        ]
    }
}

/// The Jacobians of a Hamiltonian model with n coordinates and momenta and m constraints for
/// the exact derivative of (q̇, ṗ): ∂H_p/∂q and the Jacobians of the residuals of Udwadia 2016,
/// eq 36, written as a fundamental equation with mass matrix H_pp:
///
/// - r(q, p, t; w, μ) = H_pp (w + H_q) − A_pᵀμ, n entries, and
/// - g(q, p, t; w) = A_p w − b_p, m entries,
///
/// with the momentum rate w (`Symbol::Acceleration`) and the multipliers μ
/// (`Symbol::Multiplier`) held fixed.
#[derive(Clone, Debug)]
pub struct HamiltonianJacobians {
    /// ∂H_p/∂q, n × n.
    pub h_p_q: ExprMatrix,
    /// ∂r/∂q, n × n.
    pub r_q: ExprMatrix,
    /// ∂r/∂p, n × n.
    pub r_p: ExprMatrix,
    /// ∂g/∂q, m × n.
    pub g_q: ExprMatrix,
    /// ∂g/∂p, m × n.
    pub g_p: ExprMatrix,
}

impl HamiltonianJacobians {
    /// The blocks h_p_q, r_q, r_p, g_q, g_p with their names, in that order.
    pub fn blocks(&self) -> [(&'static str, &ExprMatrix); 5] {
        [
            ("h_p_q", &self.h_p_q),
            ("r_q", &self.r_q),
            ("r_p", &self.r_p),
            ("g_q", &self.g_q),
            ("g_p", &self.g_p),
        ]
    }
}

/// M⁻¹ applied by the articulated-body algorithm (Featherstone 2008, Table 7.1), for the
/// factored fundamental equation q̈ = q̈₀ + W (A W)⁺ (b − A q̈₀) (Udwadia & Kalaba 1993,
/// eq 17): O(n) operations per solve for a chain, instead of the O(n³) factorization of M.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArticulatedEquations {
    /// q̈₀ = M⁻¹(Q + C), n entries: the acceleration under the generalized force Q (forces and
    /// the part of L the tree does not hold included) and the non-ideal force C.
    pub unconstrained_acceleration: Vec<ExprId>,
    /// W = M⁻¹Aᵀ, n × m, one articulated-body solve per constraint.
    pub inverse_mass_constraint: ExprMatrix,
    /// The articulated pivots Dᵢ = Sᵢᵀ Iᴬᵢ Sᵢ, one per body of the tree (kg·m² for a revolute
    /// joint, kg for a prismatic one); generated code falls back to the dense kernel unless
    /// all are positive and finite.
    pub pivots: Vec<ExprId>,
}

/// How the mass matrix was formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MassMatrixForm {
    /// M = ∂²L/∂q̇² of the whole Lagrangian.
    Lagrangian,
    /// M = Σ (m Jᵥᵀ Jᵥ + J_Ωᵀ I J_Ω) over the `kinetic_energy` terms of L, from their partial
    /// velocities, plus ∂²L_rest/∂q̇² of the other terms (Kane & Levinson 1985).
    PartialVelocities,
    /// M from partial velocities as [`MassMatrixForm::PartialVelocities`], and the bodies' part
    /// of Q from Kane's generalized inertia forces at q̈ = 0,
    /// Q₀ = −Σ [m Jᵥᵀ a₀ + J_Ωᵀ (I Ω̇₀ + Ω × I Ω)], plus the Lagrangian Q of the other terms
    /// (Kane & Levinson 1985, ch. 6).
    Kane,
    /// M by the composite-rigid-body algorithm and Q = Q₀ + forces with the bias Q₀ by
    /// recursive Newton–Euler, run symbolically on the model's kinematic tree
    /// ([`crate::ModelSpec::tree`]; Featherstone 2008, Tables 6.2 and 5.1), plus the M and Q
    /// of any part of L the tree does not hold.
    CompositeRigidBody,
}

impl MassMatrixForm {
    /// How reports name the form.
    pub fn describe(self) -> &'static str {
        match self {
            MassMatrixForm::Lagrangian => "∂²L/∂q̇²",
            MassMatrixForm::PartialVelocities => "partial velocities",
            MassMatrixForm::Kane => "partial velocities + Kane's inertia forces",
            MassMatrixForm::CompositeRigidBody => "composite rigid body + recursive Newton–Euler",
        }
    }
}

/// The derived equations of a Hamiltonian model with n coordinates, n momenta and m
/// constraints φ(q, p, t) (Udwadia 2016, eqs 9–12, 35–36).
#[derive(Clone, Debug)]
pub struct HamiltonianEquations {
    /// H(q, p, t).
    pub hamiltonian: ExprId,
    /// H_p = ∂H/∂p, n entries (= q̇).
    pub h_p: Vec<ExprId>,
    /// H_q = ∂H/∂q, n entries.
    pub h_q: Vec<ExprId>,
    /// H_pp = ∂²H/∂p², n × n.
    pub h_pp: ExprMatrix,
    /// A_p = ∂φ/∂p, m × n.
    pub a_p: ExprMatrix,
    /// b_p = −(∂φ/∂q) H_p − ∂φ/∂t, m entries, so that A_p ṗ = b_p (eq 11).
    pub b_p: Vec<ExprId>,
    /// The constraints φ(q, p, t), m entries: first each holonomic f(q, t) turned into
    /// φ = (∂f/∂q) H_p + ∂f/∂t through q̇ = H_p (eq 9), then the given φ(q, p, t).
    pub constraints: Vec<ExprId>,
    /// The holonomic constraints f(q, t) as written, if any.
    pub holonomic: Vec<ExprId>,
    /// The Jacobians for the exact derivative of (q̇, ṗ); `None` for a model beyond
    /// [`MAX_JACOBIAN_COST`](crate::limits::MAX_JACOBIAN_COST), and until
    /// [`Derivation::derive_jacobians`] for a derivation made with
    /// [`Jacobians::OnDemand`](crate::derive::Jacobians::OnDemand).
    pub jacobians: Option<HamiltonianJacobians>,
}

/// The equations of either kind of model.
// One value per derived model, always held by its `Derivation`: boxing the larger variant
// would save nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Equations {
    /// From a Lagrangian.
    Lagrangian(LagrangianEquations),
    /// From a Hamiltonian.
    Hamiltonian(HamiltonianEquations),
}

impl Equations {
    /// The terms the kernels need, concatenated (matrices row-major): M, Q, A, b, C of a
    /// Lagrangian model, H_p, H_q, H_pp, A_p, b_p of a Hamiltonian one. The outputs of the
    /// model tapes, in this order.
    pub fn outputs(&self) -> Vec<ExprId> {
        match self {
            Equations::Lagrangian(e) => [
                &e.mass_matrix.entries[..],
                &e.generalized_force,
                &e.constraint_matrix.entries,
                &e.constraint_rhs,
                &e.nonideal_force,
            ]
            .concat(),
            Equations::Hamiltonian(e) => {
                [&e.h_p[..], &e.h_q, &e.h_pp.entries, &e.a_p.entries, &e.b_p].concat()
            }
        }
    }
}

/// A name with its scalarized value: a definition or an output.
#[derive(Clone, Debug)]
pub struct NamedValue {
    /// The name as written.
    pub name: String,
    /// The value.
    pub value: Value,
}

impl Derivation {
    /// The names of the m rows of A q̈ = b (or A_p ṗ = b_p), in order: `holonomic[i]` for the
    /// i-th holonomic row, then `nonholonomic[i]` (Lagrangian) or `constraints[i]`
    /// (Hamiltonian) for the others, as model files name them in `[[events]]`. A 3-vector
    /// constraint gives three rows. They name the multipliers λ
    /// (`udk_runtime::constraint_multipliers`).
    pub fn constraint_names(&self) -> Vec<String> {
        let (rows, holonomic, others) = match &self.equations {
            Equations::Lagrangian(e) => (e.constraint_rhs.len(), e.holonomic.len(), "nonholonomic"),
            Equations::Hamiltonian(e) => (e.b_p.len(), e.holonomic.len(), "constraints"),
        };
        (0..rows)
            .map(|i| match i < holonomic {
                true => format!("holonomic[{i}]"),
                false => format!("{others}[{}]", i - holonomic),
            })
            .collect()
    }

    /// The columns of the model's outputs, in order: `name` for a scalar output, `name.x`,
    /// `name.y`, `name.z` for a vector one (the generated `OUTPUT_COLUMNS`, the CSV columns).
    pub fn output_columns(&self) -> Vec<String> {
        (self.outputs.iter())
            .flat_map(|o| match o.value {
                Value::Scalar(_) => vec![o.name.clone()],
                _ => ["x", "y", "z"].map(|c| format!("{}.{c}", o.name)).to_vec(),
            })
            .collect()
    }
}

/// A derived model: names, the pool that owns every expression, and the equations.
#[derive(Clone, Debug)]
pub struct Derivation {
    /// The model's name.
    pub name: String,
    /// Coordinate names, n of them (Rust identifiers).
    pub coordinates: Vec<String>,
    /// The coordinates' names as the model states them (`ModelSpec::coordinate_names`, such
    /// as a URDF's joint names), n of them; equal to `coordinates` unless the spec says so.
    pub coordinate_names: Vec<String>,
    /// Momentum names (Hamiltonian models), n of them, else empty.
    pub momenta: Vec<String>,
    /// Speed names of a model with kinematic differential equations
    /// ([`LagrangianEquations::kinematics`]), n of them, else empty.
    pub speeds: Vec<String>,
    /// Parameter names, in order; `Symbol::Parameter(i)` is `parameters[i]`.
    pub parameters: Vec<String>,
    /// Input names, in order; `Symbol::Input(i)` is `inputs[i]`.
    pub inputs: Vec<String>,
    /// The definitions, in order, with their scalarized values.
    pub definitions: Vec<NamedValue>,
    /// The outputs, in order: scalars or 3-vectors of (q, q̇, u, t) or (q, p, t).
    pub outputs: Vec<NamedValue>,
    /// The DAG.
    pub pool: Pool,
    /// The equations.
    pub equations: Equations,
    /// The front end's warnings ([`crate::ModelSpec::warnings`]), in order.
    pub warnings: Vec<String>,
}
