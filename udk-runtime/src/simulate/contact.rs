//! Unilateral contacts with Coulomb friction on a system of run-time size ([`ContactSet`]).

use super::dynamic::{DynamicLagrangianSystem, DynamicLagrangianTerms};
use super::events::{Action, Direction, Event};
use crate::{
    constraint_multipliers_dyn, rheonomic_impact, sliding_impact, Error, LagrangianView, Options,
    SlidingFriction,
};
use nalgebra::{DMatrix, DVector, RowDVector, SVector};
use std::cell::RefCell;

/// The geometry of one contact at a state, n coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactGeometry {
    /// The gap φ(q, t) (m), positive apart.
    pub gap: f64,
    /// The normal row of φ: φ̇ = ∂φ/∂q · q̇ + ∂φ/∂t.
    pub normal: ContactRow,
    /// The tangent row of the slip coordinate s(q, t) along the surface: ṡ, relative to a
    /// moving surface, is ∂s/∂q · q̇ + ∂s/∂t (a zero gradient for a contact without one).
    pub tangent: ContactRow,
    /// For a contact in space, the row of a second slip coordinate across the first (the
    /// friction then acts in the tangent plane, in a circular cone); `None` in the plane.
    pub lateral: Option<ContactRow>,
}

/// One row of a contact's geometry at a state: the derivatives of a function f(q, t) of the
/// contact (the gap φ or a slip coordinate s), for n coordinates. A moving surface (a rising
/// platform, a conveyor belt) has ∂f/∂t ≠ 0.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactRow {
    /// ∂f/∂q (n entries).
    pub gradient: DVector<f64>,
    /// ∂f/∂t (m/s for f in metres), so that ḟ = ∂f/∂q · q̇ + ∂f/∂t; 0 for a fixed surface.
    pub rate: f64,
    /// b of f̈ = ∂f/∂q · q̈ − b (everything of f̈ but the q̈ term, negated).
    pub rhs: f64,
}

impl ContactRow {
    /// ḟ = ∂f/∂q · q̇ + ∂f/∂t at q̇ (`qd`, n entries): the gap's speed, or the slip relative to
    /// the surface.
    pub fn speed(&self, qd: &[f64]) -> f64 {
        let along: f64 = self.gradient.iter().zip(qd).map(|(g, v)| g * v).sum();
        along + self.rate
    }

    /// f̈ = ∂f/∂q · q̈ − b at q̈ (`qdd`, n entries), and the size of its terms,
    /// Σⱼ |∂f/∂qⱼ q̈ⱼ| + |b|, against which its round-off is measured.
    fn acceleration(&self, qdd: &DVector<f64>) -> (f64, f64) {
        let terms = self.gradient.iter().zip(qdd).map(|(g, a)| g * a);
        let size = terms.clone().map(f64::abs).sum::<f64>() + self.rhs.abs();
        (terms.sum::<f64>() - self.rhs, size)
    }
}

/// The geometry of a contact at (q, q̇, t) (slices of n entries).
pub type Geometry<'a> = dyn Fn(&[f64], &[f64], f64) -> ContactGeometry + 'a;

/// One unilateral contact: a name, its geometry, restitution e ≥ 0 and friction μ ≥ 0.
pub struct Contact<'a> {
    name: String,
    geometry: Box<Geometry<'a>>,
    restitution: f64,
    friction: f64,
    rest_speed: f64,
}

impl<'a> Contact<'a> {
    /// A contact named `name` with restitution `restitution` and friction coefficient
    /// `friction`, whose gap, normal and tangent rows at (q, q̇, t) `geometry` gives.
    pub fn new(
        name: impl Into<String>,
        restitution: f64,
        friction: f64,
        geometry: impl Fn(&[f64], &[f64], f64) -> ContactGeometry + 'a,
    ) -> Self {
        Self {
            name: name.into(),
            geometry: Box::new(geometry),
            restitution,
            friction,
            rest_speed: 0.0,
        }
    }

    /// The same contact, coming to rest (a plastic touchdown that closes it) when the speed
    /// it would rebound with, e|φ̇⁻|, is below `speed` (m/s for a gap in metres): a bouncing
    /// body then rests at the accumulation of its impacts instead of ending the run as Zeno.
    pub fn resting_below(self, speed: f64) -> Self {
        Self {
            rest_speed: speed,
            ..self
        }
    }
}

/// The mode of a contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ContactMode {
    /// Apart: no row.
    Open,
    /// Closed and sticking: the normal and tangential rows.
    Sticking,
    /// Closed and sliding with ṡ of this sign (±1): the normal row and C.
    Sliding(f64),
}

/// The force of one contact row, by name: `"<contact>.normal"` (λₙ, N for a gap in metres,
/// compressive positive), `"<contact>.tangent"` (λₜ along +s: the sticking multiplier, or
/// the sliding friction −μλₙ sgn ṡ) and, for a contact with a lateral slip coordinate,
/// `"<contact>.lateral"` (the same along it; sliding, the friction −μλₙ ŝ with ŝ the unit
/// slip velocity in the tangent plane).
#[derive(Clone, Debug, PartialEq)]
pub struct ContactForce {
    /// `<contact>.normal` or `<contact>.tangent`.
    pub name: String,
    /// The force (N for rows in metres).
    pub value: f64,
}

/// Unilateral contacts with Coulomb friction on a system of run-time size: gaps φ(q, t) ≥ 0,
/// each with a restitution e and a friction coefficient μ, run by the one simulator as a
/// [`DynamicLagrangianSystem`] whose constraint set follows the contacts' modes, and the events
/// that switch the modes.
///
/// - A closed contact adds φ = 0 to A q̈ = b (its row ∂φ/∂q); a sticking one also adds its
///   tangential row, ṡ = 0 for its slip coordinate s(q, t).
/// - The surface may move: φ and s depend on t, and every velocity of a contact is relative to
///   its surface, φ̇ = ∂φ/∂q · q̇ + ∂φ/∂t and ṡ = ∂s/∂q · q̇ + ∂s/∂t ([`ContactRow::speed`]): the
///   touchdown's impact law, the rest speed, [`ContactSet::settle`], sticking, the stick and
///   slip events and the direction of sliding friction (a block dropped on a conveyor belt,
///   s = x − v t, is dragged along until it moves with the belt).
/// - A sliding contact adds the non-ideal constraint force C = −μλₙ sgn(ṡ) (∂s/∂q)ᵀ (Udwadia
///   & Kalaba 1993; Udwadia & Phohomsiri 2006, eq 2.14, with the sliding friction of Coulomb's
///   law), λₙ ≥ 0 the contact's normal multiplier. λₙ depends on C linearly, so the sliding
///   contacts' λₙ solve one k × k linear system, exactly. Where that system is singular
///   (Painlevé's paradox) the run ends with [`Error::IndeterminateFriction`].
/// - Touchdown (φ falls through 0 while open) is an impact on the normal row, φ̇⁺ = −e φ̇⁻, with
///   the persistent rows (the system's, the other closed contacts') keeping their φ̇ = 0, by
///   [`crate::rheonomic_impact()`]; a plastic one (e = 0, or a rebound slower than the
///   contact's rest speed) closes the contact. With
///   friction μ > 0 and a slip coordinate, the impact sticks (the slip rows join it with
///   e = 0, as a 3D point contact's impulse in Pinocchio's `impulseDynamics`) when the
///   tangential impulse that needs lies in the friction cone, |λₜ| ≤ μλₙ, and otherwise
///   slides through it with the tangential impulse μλₙ along the sticking one
///   ([`crate::sliding_impact()`]). Without friction it is frictionless.
/// - Lift-off: a closed contact opens when λₙ falls through 0 (it would become tensile). A
///   sliding contact whose λₙ turns negative where opening would make it sink into its surface
///   (the gap's acceleration with the contact open is negative: Painlevé's paradox, where the
///   friction's feedback on λₙ has passed a gain of 1) instead takes a tangential impact, the
///   paradox's resolution ("impact without collision", Génot & Brogliato 1999): the sticking
///   impulse of a plastic touchdown (below), which brings it to stick when the friction cone
///   holds that impulse, or else slides through it.
/// - Stick to slip: μ|λₙ| − |λₜ| falls through 0; the contact slides against λₜ.
/// - Slip to stick: ṡ reaches 0; the contact sticks where μ|λₙ| ≥ |λₜ| holds there, else it
///   slides back.
/// - A frictionless contact (μ = 0) with a slip coordinate never sticks: closed, it slides
///   with C = 0, whatever ṡ, so that any tangential force moves it.
///
/// A contact in space ([`ContactGeometry::lateral`]) has two slip coordinates: sticking adds
/// both rows, λₜ above is the 2-vector of their multipliers (a circular friction cone),
/// sliding friction opposes the slip velocity ṡ (2-vector), and the slide ends when ṡ·d falls
/// through 0, d a unit reference direction of the slide: the direction it started in, renewed
/// to that of ṡ whenever ṡ has turned by 60° from it (a `<name> turn` event, which changes
/// neither the state nor the mode; not where ṡ is within 1e-6 of its scale, as the slip stops
/// and its direction is the integrator's error). So ṡ·d falls through 0 only where the slip stops, not where
/// a slide curves past a right angle (a foot pushed sideways while it slides).
///
/// The rows of A come in the order: the system's holonomic rows, each closed contact's normal
/// row, the system's nonholonomic rows, then each sticking contact's tangential (and lateral)
/// rows. A closed contact's φ = 0 is a holonomic row like the system's own, so the simulator's
/// Baumgarte stabilization and projection hold its gap at position level (φ does not drift);
/// the tangential rows ṡ = 0 are held at velocity level. The multipliers are λ = (Aᵀ)⁺ Qᶜ of
/// the ideal constraint force Qᶜ − C = Aᵀλ ([`crate::constraint_multipliers_dyn`]; the
/// minimum-norm λ when rows are redundant).
///
/// The set owns its system: pass `&system` to keep it, or a
/// [`StaticSystem`](super::StaticSystem) over a generated model.
pub struct ContactSet<'a, S> {
    system: S,
    contacts: Vec<Contact<'a>>,
    modes: RefCell<Vec<ContactMode>>,
    /// Per contact, the reference direction of its slide and the slide's peak slip speed.
    slides: RefCell<Vec<Slide>>,
    kernel: Options,
    /// The forces of the last state the force guards were evaluated at.
    guard_forces: RefCell<Option<GuardForces>>,
}

/// The contacts' forces at one state, for the lift-off and slip guards: the event detector
/// evaluates every guard at the end of each step, so that the guards of all closed contacts
/// (two each) would otherwise solve the same system once each. Kept with the bits of all that a
/// solve reads besides the system ([`ContactSet::solve_key`]), so that a hit gives exactly what
/// a new solve would.
struct GuardForces {
    key: Vec<u64>,
    /// Per contact, λₙ and the magnitude of the tangential force ((0, 0) for an open contact).
    forces: Vec<(f64, f64)>,
}

/// The terms of a contact set at one state, and its multipliers.
struct Solved {
    terms: DynamicLagrangianTerms,
    geometry: Vec<ContactGeometry>,
    /// λ of every row, in the order of the rows of A.
    lambda: DVector<f64>,
    /// For each contact, the index in `lambda` of its normal, tangential and lateral rows.
    rows: Vec<ContactRows>,
}

/// The indices of one contact's normal, tangential and lateral rows among the rows of A
/// (`None` for a row not held).
type ContactRows = [Option<usize>; 3];

impl Solved {
    /// The multipliers of closed contact i: λₙ of its normal row, and λₜ of its tangential
    /// and lateral rows (0 for a row not held); `None` for an open contact.
    fn contact(&self, i: usize) -> Option<(f64, [f64; 2])> {
        let [normal, tangent, lateral] = self.rows[i];
        let at = |row: Option<usize>| row.map_or(0.0, |r| self.lambda[r]);
        normal.map(|r| (self.lambda[r], [at(tangent), at(lateral)]))
    }
}

/// Whether the contact of `mode` is closed.
fn closed(mode: ContactMode) -> bool {
    mode != ContactMode::Open
}

impl<'a, S: DynamicLagrangianSystem> ContactSet<'a, S> {
    /// `system` with `contacts`, all open.
    ///
    /// # Errors
    /// `InvalidOption` for a negative or non-finite restitution or friction.
    pub fn new(system: S, contacts: Vec<Contact<'a>>) -> Result<Self, Error> {
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        let contact =
            |c: &Contact| valid(c.restitution) && valid(c.friction) && valid(c.rest_speed);
        if !contacts.iter().all(contact) {
            return Err(Error::InvalidOption {
                what: "every contact's restitution, friction and rest speed must be finite and \
                       non-negative",
            });
        }
        let modes = RefCell::new(vec![ContactMode::Open; contacts.len()]);
        let slides = RefCell::new(vec![Slide::default(); contacts.len()]);
        Ok(Self {
            system,
            contacts,
            modes,
            slides,
            kernel: Options::default(),
            guard_forces: RefCell::new(None),
        })
    }

    /// The system the contacts act on.
    pub(crate) fn system(&self) -> &S {
        &self.system
    }

    /// The modes of the contacts, in order.
    pub fn modes(&self) -> Vec<ContactMode> {
        self.modes.borrow().clone()
    }

    /// Closes the contacts whose gap φ and its rate φ̇ (relative to the surface, which may move)
    /// are within `tolerance` of 0 at (q, q̇, t), each sliding or sticking as its slip velocity
    /// relative to the surface and its forces say; opens the others. For a start at rest on a
    /// surface (or carried by it). A touching contact whose normal force would pull opens, as
    /// after every switch of a mode.
    ///
    /// # Errors
    /// A failed solve of the fundamental equation; `IndeterminateFriction` where the sliding
    /// contacts' forces are indeterminate, or where a contact slides with a force that would
    /// pull and would sink if it opened (Painlevé's paradox, which a run resolves by a
    /// tangential impact, but a start cannot take an impulse).
    pub fn settle(&self, q: &[f64], qd: &[f64], t: f64, tolerance: f64) -> Result<(), Error> {
        for (i, contact) in self.contacts.iter().enumerate() {
            let geometry = (contact.geometry)(q, qd, t);
            let touching =
                geometry.gap.abs() <= tolerance && geometry.normal.speed(qd).abs() <= tolerance;
            self.modes.borrow_mut()[i] = match touching {
                true => ContactMode::Sticking,
                false => ContactMode::Open,
            };
        }
        for i in 0..self.contacts.len() {
            if closed(self.modes.borrow()[i]) {
                let slip = self.contact_rates(q, qd, t, i);
                let mode = match slip[0].hypot(slip[1]) > tolerance {
                    true => self.slide(i, slip),
                    false => self.stick_or_slide(q, qd, t, i)?,
                };
                self.modes.borrow_mut()[i] = mode;
            }
        }
        self.reconcile((q, &mut DVector::from_column_slice(qd), t), false)
    }

    /// The forces of the closed contacts at (q, q̇, t), by name.
    ///
    /// # Errors
    /// A failed solve of the fundamental equation.
    pub fn forces(&self, q: &[f64], qd: &[f64], t: f64) -> Result<Vec<ContactForce>, Error> {
        let solved = self.solve((q, qd, t), &self.modes(), true)?;
        let modes = self.modes();
        let mut forces = Vec::new();
        for (i, contact) in self.contacts.iter().enumerate() {
            let Some((lambda_n, lambda_t)) = solved.contact(i) else {
                continue;
            };
            let tangential = match modes[i] {
                ContactMode::Sliding(sign) => {
                    let d = self.friction_direction(i, &solved.geometry[i], qd, sign);
                    d.map(|d| -contact.friction * lambda_n * d)
                }
                _ => lambda_t,
            };
            let mut named = vec![("normal", lambda_n), ("tangent", tangential[0])];
            if solved.geometry[i].lateral.is_some() {
                named.push(("lateral", tangential[1]));
            }
            for (kind, value) in named {
                forces.push(ContactForce {
                    name: format!("{}.{kind}", contact.name),
                    value,
                });
            }
        }
        Ok(forces)
    }

    /// ṡ of contact i at (q, q̇, t), relative to its surface: along the tangent, then along
    /// the lateral slip coordinate (0 without one).
    fn contact_rates(&self, q: &[f64], qd: &[f64], t: f64, i: usize) -> [f64; 2] {
        slip_rates(&(self.contacts[i].geometry)(q, qd, t), qd)
    }

    /// The sliding mode of contact i starting along `slip` (nonzero), its direction kept as
    /// the slide's reference direction.
    fn slide(&self, i: usize, slip: [f64; 2]) -> ContactMode {
        let norm = slip[0].hypot(slip[1]);
        self.slides.borrow_mut()[i] = Slide {
            direction: slip.map(|s| s / norm),
            peak: 0.0,
        };
        ContactMode::Sliding(slip[0].signum())
    }

    /// The unit direction of the slip of sliding contact i (mode `Sliding(sign)`) with
    /// `geometry` at q̇, which its friction opposes: (sign, 0) in the plane; in space the
    /// slip velocity's direction, or the direction d the slide started in while the slip
    /// velocity does not yet go along d (ṡ·d ≤ 0, as at the start of a slide from sticking)
    /// or, at the start of the slide (its peak slip speed still as small), is within
    /// [`STOPPED`] of its scale ([`slip_scale`]): a direction taken from round-off there would
    /// turn the friction at random.
    fn friction_direction(
        &self,
        i: usize,
        geometry: &ContactGeometry,
        qd: &[f64],
        sign: f64,
    ) -> [f64; 2] {
        if geometry.lateral.is_none() {
            return [sign, 0.0];
        }
        let slip = slip_rates(geometry, qd);
        let norm = slip[0].hypot(slip[1]);
        let Slide { direction, peak } = self.slides.borrow()[i];
        let round_off = STOPPED * slip_scale(geometry, qd);
        let starting = norm <= round_off && peak <= round_off;
        match slip[0] * direction[0] + slip[1] * direction[1] > 0.0 && !starting {
            true => slip.map(|s| s / norm),
            false => direction,
        }
    }

    /// The system's terms with the rows and friction of `modes`, and the multipliers (zeros
    /// unless `multipliers` or a contact slides).
    fn solve(
        &self,
        (q, qd, t): (&[f64], &[f64], f64),
        modes: &[ContactMode],
        multipliers: bool,
    ) -> Result<Solved, Error> {
        let base = self.system.terms(q, qd, t);
        let n = qd.len();
        let geometry: Vec<ContactGeometry> = (self.contacts.iter())
            .map(|c| (c.geometry)(q, qd, t))
            .collect();
        let own = |r: usize| {
            let row = base.constraint_matrix.row(r).transpose();
            (row, base.constraint_rhs[r])
        };
        let holonomic = self.system.num_holonomic();
        let mut rows: Vec<(DVector<f64>, f64)> = (0..holonomic).map(own).collect();
        let mut indices = vec![[None; 3]; modes.len()];
        for (i, (mode, g)) in modes.iter().zip(&geometry).enumerate() {
            if closed(*mode) {
                rows.push((g.normal.gradient.clone(), g.normal.rhs));
                indices[i][0] = Some(rows.len() - 1);
            }
        }
        rows.extend((holonomic..base.constraint_rhs.len()).map(own));
        for (i, (mode, g)) in modes.iter().zip(&geometry).enumerate() {
            if *mode == ContactMode::Sticking {
                rows.push((g.tangent.gradient.clone(), g.tangent.rhs));
                indices[i][1] = Some(rows.len() - 1);
                if let Some(lateral) = &g.lateral {
                    rows.push((lateral.gradient.clone(), lateral.rhs));
                    indices[i][2] = Some(rows.len() - 1);
                }
            }
        }
        let a = DMatrix::from_fn(rows.len(), n, |i, j| rows[i].0[j]);
        let b = DVector::from_fn(rows.len(), |i, _| rows[i].1);
        let sliding = (modes.iter().enumerate()).any(|(i, m)| self.slides_with_friction(i, *m));
        let mut terms = DynamicLagrangianTerms {
            constraint_matrix: a,
            constraint_rhs: b,
            ..base
        };
        let mut lambda = match sliding || multipliers {
            true => constraint_multipliers_dyn(terms.view(), &self.kernel)?,
            false => DVector::zeros(rows.len()),
        };
        if sliding {
            let rows = (modes, geometry.as_slice(), indices.as_slice());
            terms.nonideal_force = Some(self.sliding_friction(&terms, rows, qd, &mut lambda)?);
        }
        Ok(Solved {
            terms,
            geometry,
            lambda,
            rows: indices,
        })
    }

    /// Whether contact i in `mode` slides with friction (μ > 0): its friction −μλₙ d then
    /// enters C.
    fn slides_with_friction(&self, i: usize, mode: ContactMode) -> bool {
        matches!(mode, ContactMode::Sliding(_)) && self.contacts[i].friction > 0.0
    }

    /// The sliding friction of contact i (mode `Sliding(sign)`, `geometry` at q̇) per unit
    /// λₙ: −μ (d₀ ∂s/∂q + d₁ ∂r/∂q)ᵀ (n entries, N per N of λₙ), d the unit slip direction
    /// ([`Self::friction_direction`]) and r the lateral slip coordinate, if any.
    fn unit_friction(
        &self,
        i: usize,
        geometry: &ContactGeometry,
        qd: &[f64],
        sign: f64,
    ) -> DVector<f64> {
        let mu = self.contacts[i].friction;
        let d = self.friction_direction(i, geometry, qd, sign);
        let mut unit = &geometry.tangent.gradient * (-mu * d[0]);
        if let Some(lateral) = &geometry.lateral {
            unit -= &lateral.gradient * (mu * d[1]);
        }
        unit
    }

    /// The non-ideal force C of `terms` (n entries) with the friction −μλₙ d of the contacts
    /// sliding in `modes` (their rows at `indices` of `terms`, their `geometry`) added
    /// ([`Self::unit_friction`] per unit λₙ), and `lambda` (the multipliers of `terms` without
    /// it) made those of `terms` with it.
    ///
    /// λ is affine in C (the multipliers are linear in Q, b and C), so with rⱼ the multipliers
    /// of the friction of sliding contact j at λₙⱼ = 1 alone (Q = 0, b = 0, C = −μⱼdⱼ), the k
    /// sliding contacts' normal multipliers solve the k × k system (I − R) λₙ = λₙ⁰, Rᵢⱼ the
    /// entry of rⱼ at contact i's normal row and λₙ⁰ those without the friction: exact, where
    /// fixed-point passes diverge once the friction's feedback on λₙ has a gain above 1.
    ///
    /// # Errors
    /// A failed solve of the fundamental equation; `IndeterminateFriction` when I − R is
    /// singular (Painlevé's paradox: the sliding forces have no solution or more than one).
    fn sliding_friction(
        &self,
        terms: &DynamicLagrangianTerms,
        (modes, geometry, indices): (&[ContactMode], &[ContactGeometry], &[ContactRows]),
        qd: &[f64],
        lambda: &mut DVector<f64>,
    ) -> Result<DVector<f64>, Error> {
        let n = qd.len();
        // (contact, its normal row, its friction at λₙ = 1)
        let sliding: Vec<(usize, usize, DVector<f64>)> = (0..self.contacts.len())
            .filter_map(|i| match (modes[i], indices[i][0]) {
                (ContactMode::Sliding(sign), Some(normal))
                    if self.slides_with_friction(i, modes[i]) =>
                {
                    Some((i, normal, self.unit_friction(i, &geometry[i], qd, sign)))
                }
                _ => None,
            })
            .collect();
        let (no_force, no_rhs) = (DVector::zeros(n), DVector::zeros(lambda.len()));
        let responses = (sliding.iter())
            .map(|(_, _, unit)| {
                let alone = LagrangianView {
                    generalized_force: &no_force,
                    constraint_rhs: &no_rhs,
                    nonideal_force: Some(unit),
                    ..terms.view()
                };
                constraint_multipliers_dyn(alone, &self.kernel)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let k = sliding.len();
        let system = DMatrix::from_fn(k, k, |r, c| {
            f64::from(u8::from(r == c)) - responses[c][sliding[r].1]
        });
        let free = DVector::from_fn(k, |r, _| lambda[sliding[r].1]);
        let normal = (system.lu().solve(&free))
            .filter(|x| x.iter().all(|v| v.is_finite()))
            .ok_or_else(|| Error::IndeterminateFriction {
                contacts: (sliding.iter())
                    .map(|(i, ..)| self.contacts[*i].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                reason: "the sliding contacts' normal forces solve a singular system",
            })?;
        let mut friction = (terms.nonideal_force.clone()).unwrap_or_else(|| DVector::zeros(n));
        for (c, (_, _, unit)) in sliding.iter().enumerate() {
            friction += unit * normal[c];
            *lambda += &responses[c] * normal[c];
        }
        Ok(friction)
    }

    /// The mode of closed contact i at a state where ṡ = 0: sticking where the friction cone
    /// holds it, else sliding against its sticking force. In space the slide's direction d is
    /// then that of the slip acceleration s̈ under the friction −μλₙ d, found by fixed-point
    /// passes from d = −λₜ/|λₜ| (the slip starts along d, so that ṡ·d rises from 0). A
    /// frictionless contact (μ = 0) with a slip coordinate always slides: no tangential force
    /// holds it, however small.
    fn stick_or_slide(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        i: usize,
    ) -> Result<ContactMode, Error> {
        let contact = &self.contacts[i];
        let slips = || {
            (contact.geometry)(q, qd, t)
                .tangent
                .gradient
                .iter()
                .any(|x| *x != 0.0)
        };
        if contact.friction == 0.0 && slips() {
            return Ok(ContactMode::Sliding(1.0));
        }
        let mut modes = self.modes();
        modes[i] = ContactMode::Sticking;
        let solved = self.solve((q, qd, t), &modes, true)?;
        let [Some(normal), Some(tangent), lateral] = solved.rows[i] else {
            return Ok(ContactMode::Sticking);
        };
        let lambda_n = solved.lambda[normal];
        let lambda_t = [
            solved.lambda[tangent],
            lateral.map_or(0.0, |r| solved.lambda[r]),
        ];
        if self.contacts[i].friction * lambda_n.abs() >= lambda_t[0].hypot(lambda_t[1]) {
            return Ok(ContactMode::Sticking);
        }
        let mut mode = self.slide(i, lambda_t.map(|l| -l));
        let Some(lateral) = &solved.geometry[i].lateral else {
            return Ok(mode);
        };
        let tangent = &solved.geometry[i].tangent;
        for _ in 0..3 {
            modes[i] = mode;
            let sliding = self.solve((q, qd, t), &modes, false)?;
            let a = crate::acceleration_dyn(sliding.terms.view(), &self.kernel)?;
            let [(along, scale), (across, lateral_scale)] =
                [tangent, lateral].map(|row| row.acceleration(&a));
            // A slip acceleration at round-off leaves the direction as it is.
            if along.hypot(across) <= STOPPED * scale.max(lateral_scale) {
                break;
            }
            mode = self.slide(i, [along, across]);
        }
        Ok(mode)
    }

    /// The guard of event `kind` of contact i at (q, q̇, t): 1 where the contact's mode does
    /// not watch it.
    fn guard(&self, kind: Switch, i: usize, q: &[f64], qd: &[f64], t: f64) -> f64 {
        let mode = self.modes.borrow()[i];
        let forces = || self.guard_forces(i, q, qd, t);
        match (kind, mode) {
            (Switch::Touchdown, ContactMode::Open) => (self.contacts[i].geometry)(q, qd, t).gap,
            (Switch::LiftOff, m) if closed(m) => forces().map_or(f64::NAN, |(n, _)| n),
            (Switch::Slip, ContactMode::Sticking) => forces()
                .map_or(f64::NAN, |(n, tangential)| {
                    self.contacts[i].friction * n.abs() - tangential.abs()
                }),
            (Switch::Turn, ContactMode::Sliding(_)) if self.contacts[i].friction > 0.0 => {
                let geometry = (self.contacts[i].geometry)(q, qd, t);
                if geometry.lateral.is_none() {
                    return 1.0;
                }
                let slip = slip_rates(&geometry, qd);
                let speed = slip[0].hypot(slip[1]);
                let slide = &mut self.slides.borrow_mut()[i];
                slide.peak = slide.peak.max(speed);
                let d = slide.direction;
                d[0] * slip[0] + d[1] * slip[1] - TURN.cos() * speed
            }
            (Switch::Stick, ContactMode::Sliding(sign)) if self.contacts[i].friction > 0.0 => {
                let geometry = (self.contacts[i].geometry)(q, qd, t);
                let slip = slip_rates(&geometry, qd);
                match geometry.lateral {
                    Some(_) => {
                        let d = self.slides.borrow()[i].direction;
                        d[0] * slip[0] + d[1] * slip[1]
                    }
                    None => sign * slip[0],
                }
            }
            _ => 1.0,
        }
    }

    /// λₙ and the magnitude of the tangential force of contact i at (q, q̇, t) in the current
    /// modes ((0, 0) for an open contact), from one solve per state for the guards of all
    /// contacts ([`GuardForces`]).
    fn guard_forces(&self, i: usize, q: &[f64], qd: &[f64], t: f64) -> Result<(f64, f64), Error> {
        let key = self.solve_key(q, qd, t);
        if let Some(memo) = self.guard_forces.borrow().as_ref() {
            if memo.key == key {
                return Ok(memo.forces[i]);
            }
        }
        let solved = self.solve((q, qd, t), &self.modes(), true)?;
        let forces: Vec<(f64, f64)> = (0..self.contacts.len())
            .map(|j| {
                solved.contact(j).map_or((0.0, 0.0), |(n, tangential)| {
                    (n, tangential[0].hypot(tangential[1]))
                })
            })
            .collect();
        let force = forces[i];
        *self.guard_forces.borrow_mut() = Some(GuardForces { key, forces });
        Ok(force)
    }

    /// The bits of all that a solve at (q, q̇, t) reads besides the system (which the
    /// simulator takes to be a function of its arguments): the state, the modes and the slides.
    fn solve_key(&self, q: &[f64], qd: &[f64], t: f64) -> Vec<u64> {
        let mode = |mode: &ContactMode| match *mode {
            ContactMode::Open => [0, 0],
            ContactMode::Sticking => [1, 0],
            ContactMode::Sliding(sign) => [2, sign.to_bits()],
        };
        let slide = |s: &Slide| [s.direction[0], s.direction[1], s.peak].map(f64::to_bits);
        let mut key: Vec<u64> = q
            .iter()
            .chain(qd)
            .chain([&t])
            .map(|x| x.to_bits())
            .collect();
        key.extend(self.modes.borrow().iter().flat_map(mode));
        key.extend(self.slides.borrow().iter().flat_map(slide));
        key
    }

    /// The new state and modes after event `kind` of contact i at (t, q, q̇).
    fn switch(
        &self,
        kind: Switch,
        i: usize,
        t: f64,
        q: &[f64],
        qd: &[f64],
    ) -> Result<DVector<f64>, Error> {
        let mut velocity = DVector::from_column_slice(qd);
        let mode = match kind {
            Switch::Touchdown => {
                let contact = &self.contacts[i];
                let approach = (contact.geometry)(q, qd, t).normal.speed(qd).abs();
                let rests = contact.restitution * approach < contact.rest_speed;
                let restitution = if rests { 0.0 } else { contact.restitution };
                self.impact((q, &mut velocity, t), i, restitution)?
            }
            Switch::LiftOff => self.lift_off((q, &mut velocity, t), i)?,
            Switch::Slip => {
                let solved = self.solve((q, qd, t), &self.modes(), true)?;
                let lambda_t = solved.contact(i).map_or([0.0; 2], |(_, t)| t);
                self.slide(i, lambda_t.map(|l| -l))
            }
            Switch::Stick => self.stick_or_slide(q, qd, t, i)?,
            Switch::Turn => {
                let slip = self.contact_rates(q, qd, t, i);
                let speed = slip[0].hypot(slip[1]);
                if speed > 0.0 {
                    self.slides.borrow_mut()[i].direction = slip.map(|s| s / speed);
                }
                return Ok(velocity);
            }
        };
        self.modes.borrow_mut()[i] = mode;
        self.reconcile((q, &mut velocity, t), true)?;
        Ok(velocity)
    }

    /// The impact of contact i at (q, q̇⁻, t) with restitution `restitution` on its normal
    /// row, the other rows persisting ([`Self::touchdown_impulse`]): `velocity` becomes q̇⁺,
    /// and the contact's mode after it is returned (open after a rebound; closed after a
    /// plastic impact, sticking or sliding as its slip and forces say). The contact is open
    /// while the impact is taken; the caller sets the mode returned.
    ///
    /// # Errors
    /// A failed solve of the fundamental equation or of the impact.
    fn impact(
        &self,
        (q, velocity, t): (&[f64], &mut DVector<f64>, f64),
        i: usize,
        restitution: f64,
    ) -> Result<ContactMode, Error> {
        self.modes.borrow_mut()[i] = ContactMode::Open;
        let qd = velocity.clone();
        let solved = self.solve((q, qd.as_slice(), t), &self.modes(), false)?;
        // The persistent rows' rates ∂/∂t: their residuals φ̇ at q̇⁻ less A q̇⁻.
        let rates =
            self.velocity_residual(q, qd.as_slice(), t) - &solved.terms.constraint_matrix * &qd;
        let (after, sticks) = self.touchdown_impulse((&solved, &rates), i, restitution, &qd)?;
        *velocity = after;
        let slip = slip_rates(&solved.geometry[i], velocity.as_slice());
        Ok(match (restitution == 0.0, sticks || slip == [0.0, 0.0]) {
            (true, true) => self.stick_or_slide(q, velocity.as_slice(), t, i)?,
            (true, false) => self.slide(i, slip),
            (false, _) => ContactMode::Open,
        })
    }

    /// The mode of closed contact i after its lift-off at (q, q̇, t): open, or, where it
    /// slides and opening would make it sink ([`Self::sinks`]: Painlevé's paradox), closed
    /// after the tangential impact that resolves the paradox (Génot & Brogliato 1999), the
    /// plastic sticking impulse of [`Self::impact`], which changes `velocity`.
    ///
    /// # Errors
    /// A failed solve of the fundamental equation or of the impact.
    fn lift_off(
        &self,
        (q, velocity, t): (&[f64], &mut DVector<f64>, f64),
        i: usize,
    ) -> Result<ContactMode, Error> {
        match self.sinks(q, velocity.as_slice(), t, i)? {
            true => self.impact((q, velocity, t), i, 0.0),
            false => Ok(ContactMode::Open),
        }
    }

    /// Whether closed contact i, sliding with friction, is in Painlevé's paradox at
    /// (q, q̇, t): a push along its normal with its sliding friction, (∂φ/∂q − μ dᵀ ∂s/∂q)ᵀ
    /// per unit λₙ, does not accelerate its gap away from the surface (φ̈ responds to λₙ with
    /// a gain w ≤ 0, the other contacts in their modes and their sliding friction answering
    /// it). Then where its λₙ falls through 0, opening would make it sink (φ̈ = −w λₙ < 0),
    /// and neither mode is consistent. The gain, not the sign of φ̈ with the contact open, is
    /// taken because both φ̈ and λₙ are 0 at the lift-off itself.
    ///
    /// # Errors
    /// A failed solve of the fundamental equation.
    fn sinks(&self, q: &[f64], qd: &[f64], t: f64, i: usize) -> Result<bool, Error> {
        let mut modes = self.modes();
        let ContactMode::Sliding(sign) = modes[i] else {
            return Ok(false);
        };
        if !self.slides_with_friction(i, modes[i]) {
            return Ok(false);
        }
        modes[i] = ContactMode::Open;
        let Solved {
            terms,
            geometry,
            rows,
            ..
        } = self.solve((q, qd, t), &modes, false)?;
        let contact = &geometry[i];
        let push = &contact.normal.gradient + self.unit_friction(i, contact, qd, sign);
        let mut pushed = DynamicLagrangianTerms {
            generalized_force: push,
            constraint_rhs: DVector::zeros(terms.constraint_rhs.len()),
            nonideal_force: None,
            ..terms
        };
        let others_slide =
            (modes.iter().enumerate()).any(|(k, m)| self.slides_with_friction(k, *m));
        if others_slide {
            let mut lambda = constraint_multipliers_dyn(pushed.view(), &self.kernel)?;
            let rows = (modes.as_slice(), geometry.as_slice(), rows.as_slice());
            pushed.nonideal_force = Some(self.sliding_friction(&pushed, rows, qd, &mut lambda)?);
        }
        let a = crate::acceleration_dyn(pushed.view(), &self.kernel)?;
        Ok(contact.normal.gradient.dot(&a) <= 0.0)
    }

    /// Makes the other contacts' modes agree with their forces after a switch at (q, q̇⁺, t):
    /// a switch (a touchdown, a foot sliding) can make the force of another closed contact
    /// pull (λₙ < 0) or leave its friction cone at once, where its own guard, already past 0,
    /// would never cross. The contact most in violation opens (lift-off) or slides against
    /// its sticking force, and the forces are taken again, until none is in violation; at
    /// most two changes a contact, so the loop is bounded. A violation counts beyond a
    /// round-off of 1e-9 times the largest multiplier.
    ///
    /// A sliding contact that would pull where opening would make it sink (Painlevé's
    /// paradox, [`Self::sinks`]) takes the tangential impact of [`Self::lift_off`], which
    /// changes `velocity`, where `impulses` allows it.
    ///
    /// # Errors
    /// A failed solve of the fundamental equation or of an impact; `IndeterminateFriction`
    /// where a contact needs the tangential impact and `impulses` is false (a start).
    fn reconcile(
        &self,
        (q, velocity, t): (&[f64], &mut DVector<f64>, f64),
        impulses: bool,
    ) -> Result<(), Error> {
        for _ in 0..2 * self.contacts.len() {
            let modes = self.modes();
            if !modes.iter().copied().any(closed) {
                return Ok(());
            }
            let solved = self.solve((q, velocity.as_slice(), t), &modes, true)?;
            let tolerance = 1e-9 * solved.lambda.amax();
            // The contact most in violation: (excess, index, the slip to slide along, or
            // None to open).
            let mut worst: Option<(f64, usize, Option<[f64; 2]>)> = None;
            for (i, mode) in modes.iter().enumerate() {
                let Some((lambda_n, lambda_t)) = solved.contact(i) else {
                    continue;
                };
                let (excess, slip) = match *mode {
                    _ if lambda_n < -tolerance => (-lambda_n, None),
                    ContactMode::Sticking => (
                        lambda_t[0].hypot(lambda_t[1]) - self.contacts[i].friction * lambda_n,
                        Some(lambda_t.map(|l| -l)),
                    ),
                    _ => continue,
                };
                if excess > tolerance && worst.is_none_or(|(w, ..)| excess > w) {
                    worst = Some((excess, i, slip));
                }
            }
            let (i, mode) = match worst {
                None => return Ok(()),
                Some((_, i, Some(slip))) => (i, self.slide(i, slip)),
                Some((_, i, None)) if impulses => (i, self.lift_off((q, velocity, t), i)?),
                Some((_, i, None)) => match self.sinks(q, velocity.as_slice(), t, i)? {
                    true => {
                        return Err(Error::IndeterminateFriction {
                            contacts: self.contacts[i].name.clone(),
                            reason: "the contact slides at the start with a force that would \
                                     pull, and would sink if it opened; only a tangential \
                                     impact, which a start cannot take, resolves that",
                        })
                    }
                    false => (i, ContactMode::Open),
                },
            };
            self.modes.borrow_mut()[i] = mode;
        }
        Ok(())
    }

    /// The velocities after the touchdown of contact i (restitution `restitution` on its
    /// normal row, the rows of `solved` persisting with their rates ∂/∂t `rates`), and whether
    /// it stuck. Newton's law holds on φ̇, relative to the surface: φ̇⁺ = −e φ̇⁻
    /// ([`crate::rheonomic_impact`]). With a slip coordinate and friction μ, the touchdown first
    /// tries a sticking impact: its tangential rows join the impact with e = 0, so that the
    /// slip relative to the surface stops (ṡ⁺ = 0) with the normal restitution. It sticks when
    /// the tangential impulse that needs lies in the friction cone, |λₜ| ≤ μ λₙ; otherwise it
    /// slides through the impact with the friction impulse μ λₙ along the sticking impulse's
    /// direction ([`crate::sliding_impact`]). Without a slip coordinate, or with μ = 0, the
    /// impact is frictionless.
    fn touchdown_impulse(
        &self,
        (solved, rates): (&Solved, &DVector<f64>),
        i: usize,
        restitution: f64,
        velocity: &DVector<f64>,
    ) -> Result<(DVector<f64>, bool), Error> {
        let geometry = &solved.geometry[i];
        let mass_matrix = &solved.terms.mass_matrix;
        let persistent: Vec<(RowDVector<f64>, f64)> = (solved.terms.constraint_matrix.row_iter())
            .map(|row| row.into_owned())
            .zip(rates.iter().copied())
            .collect();
        let normal = (geometry.normal.gradient.transpose(), geometry.normal.rate);
        // The rows (gradient, rate) with restitution e on the first and 0 on the others.
        let rows_and_rates = |rows: Vec<(RowDVector<f64>, f64)>| {
            let (rows, rates): (Vec<_>, Vec<f64>) = rows.into_iter().unzip();
            let e = DVector::from_fn(rows.len(), |r, _| if r == 0 { restitution } else { 0.0 });
            (DMatrix::from_rows(&rows), DVector::from_vec(rates), e)
        };
        let frictionless = |rows| {
            let (rows, rates, e) = rows_and_rates(rows);
            rheonomic_impact(mass_matrix, &rows, &rates, &e, velocity, &self.kernel)
        };
        let with_normal = || std::iter::once(normal.clone()).chain(persistent.iter().cloned());
        let mu = self.contacts[i].friction;
        if mu == 0.0 || geometry.tangent.gradient.iter().all(|x| *x == 0.0) {
            return Ok((frictionless(with_normal().collect())?.velocity, false));
        }
        let slip: Vec<&ContactRow> = std::iter::once(&geometry.tangent)
            .chain(&geometry.lateral)
            .collect();
        let rows: Vec<_> = with_normal()
            .chain(slip.iter().map(|row| (row.gradient.transpose(), row.rate)))
            .collect();
        let first_slip = rows.len() - slip.len();
        let sticking = frictionless(rows)?;
        let lambda_n = sticking.impulse[0];
        let lambda_t: Vec<f64> = (first_slip..first_slip + slip.len())
            .map(|r| sticking.impulse[r])
            .collect();
        let tangential = lambda_t.iter().fold(0.0_f64, |sum, x| sum.hypot(*x));
        if tangential <= mu * lambda_n.abs() {
            return Ok((sticking.velocity, true));
        }
        let direction = (slip.iter().zip(&lambda_t))
            .fold(DVector::zeros(velocity.len()), |d, (row, l)| {
                d + &row.gradient * (l / tangential)
            });
        let (rows, rates, e) = rows_and_rates(with_normal().collect());
        let friction = SlidingFriction {
            normal_row: 0,
            coefficient: mu,
            direction: &direction,
        };
        let sliding = sliding_impact(
            mass_matrix,
            &rows,
            &rates,
            &e,
            velocity,
            friction,
            &self.kernel,
        )?;
        Ok((sliding.velocity, false))
    }

    /// The events that switch the contacts' modes, five a contact (`<name> touchdown`,
    /// `<name> lift-off`, `<name> slip`, `<name> stick`, and `<name> turn`, which renews the
    /// reference direction of a slide in space), for a run of this set with n = `N`.
    pub fn events<const N: usize>(&'a self) -> Vec<Event<'a, N>> {
        let mut events = Vec::with_capacity(5 * self.contacts.len());
        for (i, contact) in self.contacts.iter().enumerate() {
            for kind in [
                Switch::Touchdown,
                Switch::LiftOff,
                Switch::Slip,
                Switch::Stick,
                Switch::Turn,
            ] {
                let nv = self.system.num_velocities(N);
                let guard = move |t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>| {
                    self.guard(kind, i, q.as_slice(), &v.as_slice()[..nv], t)
                };
                let reset = move |t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>| {
                    let after = self.switch(kind, i, t, q.as_slice(), &v.as_slice()[..nv])?;
                    let mut padded = SVector::<f64, N>::zeros();
                    padded.as_mut_slice()[..nv].copy_from_slice(after.as_slice());
                    Ok((*q, padded))
                };
                let name = format!("{} {}", contact.name, kind.name());
                let action = Action::Reset(Box::new(reset));
                let event = Event::new(name, Direction::Falling, guard, action);
                events.push(match kind {
                    Switch::Turn => event.when(move |t, q, v| {
                        let qd = &v.as_slice()[..nv];
                        let geometry = (self.contacts[i].geometry)(q.as_slice(), qd, t);
                        let slip = slip_rates(&geometry, qd);
                        let scale = slip_scale(&geometry, qd).max(self.slides.borrow()[i].peak);
                        slip[0].hypot(slip[1]) > STOPPED * scale
                    }),
                    _ => event,
                });
            }
        }
        events
    }
}

/// A switch of a contact's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Switch {
    Touchdown,
    LiftOff,
    Slip,
    Stick,
    /// The slip of a sliding contact in space has turned by [`TURN`] from its reference
    /// direction d: d is renewed, so that the stick guard ṡ·d watches for a stop only.
    Turn,
}

/// The angle (rad) by which the slip of a contact in space turns from its reference direction
/// before the direction is renewed: below the right angle at which the stick guard ṡ·d would
/// cross 0 while the contact still slides.
const TURN: f64 = std::f64::consts::FRAC_PI_3;

/// A slip speed below this fraction of its scale (the larger of the slide's peak and
/// [`slip_scale`]) is a stop, not a turn: as the slip stops, its direction is the
/// integrator's error, and the stick guard ṡ·d, not the turn, ends the slide.
const STOPPED: f64 = 1e-6;

/// The state of a contact's slide in space.
#[derive(Clone, Copy, Debug)]
struct Slide {
    /// The unit reference direction d in (tangent, lateral): where the slide started, or the
    /// slip's direction at its last turn.
    direction: [f64; 2],
    /// The largest slip speed |ṡ| seen since the slide started (the turn guard records it).
    peak: f64,
}

impl Default for Slide {
    fn default() -> Self {
        Self {
            direction: [1.0, 0.0],
            peak: 0.0,
        }
    }
}

impl Switch {
    fn name(self) -> &'static str {
        match self {
            Switch::Touchdown => "touchdown",
            Switch::LiftOff => "lift-off",
            Switch::Slip => "slip",
            Switch::Stick => "stick",
            Switch::Turn => "turn",
        }
    }
}

impl<S: DynamicLagrangianSystem> DynamicLagrangianSystem for ContactSet<'_, S> {
    fn coordinate_names(&self) -> Vec<String> {
        self.system.coordinate_names()
    }

    fn velocity_names(&self) -> Vec<String> {
        self.system.velocity_names()
    }

    fn coordinate_rates(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        self.system.coordinate_rates(q, v, t)
    }

    fn kinematic_matrix(&self, q: &[f64], t: f64) -> Option<DMatrix<f64>> {
        self.system.kinematic_matrix(q, t)
    }

    /// The system's holonomic rows and the closed contacts' normal rows.
    fn num_holonomic(&self) -> usize {
        self.system.num_holonomic() + self.closed_count()
    }

    fn num_velocities(&self, coordinates: usize) -> usize {
        self.system.num_velocities(coordinates)
    }

    /// The system's terms with the rows of the closed contacts after its own, and the sliding
    /// friction in C. A failed solve of λₙ leaves C without the friction (the simulator's own
    /// solve then reports the error), or, where the sliding forces are indeterminate
    /// (Painlevé's paradox), makes C not finite, which the simulator's solve refuses.
    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms {
        if self.contacts.is_empty() {
            return self.system.terms(q, qd, t);
        }
        match self.solve((q, qd, t), &self.modes(), false) {
            Ok(solved) => solved.terms,
            Err(Error::IndeterminateFriction { .. }) => DynamicLagrangianTerms {
                nonideal_force: Some(DVector::from_element(qd.len(), f64::NAN)),
                ..self.system.terms(q, qd, t)
            },
            Err(_) => self.system.terms(q, qd, t),
        }
    }

    /// The system's own, without contacts; else [`DynamicLagrangianSystem::terms`].
    fn terms_into(&self, q: &[f64], qd: &[f64], t: f64, terms: &mut DynamicLagrangianTerms) {
        match self.contacts.is_empty() {
            true => self.system.terms_into(q, qd, t, terms),
            false => *terms = self.terms(q, qd, t),
        }
    }

    /// The system's own, without contacts; else both residuals of the contact set.
    fn residuals_into(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        holonomic: &mut DVector<f64>,
        velocity: &mut DVector<f64>,
    ) {
        if self.contacts.is_empty() {
            return self.system.residuals_into(q, qd, t, holonomic, velocity);
        }
        *holonomic = self.holonomic_residual(q, t);
        *velocity = self.velocity_residual(q, qd, t);
    }

    fn energy(&self, q: &[f64], qd: &[f64], t: f64) -> f64 {
        self.system.energy(q, qd, t)
    }

    /// In the order of the rows: the system's f, the gap φ of each closed contact, then zeros
    /// on the system's nonholonomic rows and the sticking contacts' tangential rows.
    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        let f = self.system.holonomic_residual(q, t);
        let holonomic = self.system.num_holonomic();
        let rest = vec![0.0; self.system.num_velocities(q.len())];
        let mut rows: Vec<f64> = f.iter().take(holonomic).copied().collect();
        for (contact, mode) in self.contacts.iter().zip(self.modes()) {
            if closed(mode) {
                rows.push((contact.geometry)(q, &rest, t).gap);
            }
        }
        rows.resize(self.velocity_residual(q, &rest, t).len(), 0.0);
        DVector::from_vec(rows)
    }

    /// In the order of the rows: the system's ḟ, φ̇ of each closed contact, the system's
    /// nonholonomic residuals, then ṡ of each sticking contact (φ̇ and ṡ with their rates
    /// ∂/∂t: relative to a moving surface).
    fn velocity_residual(&self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64> {
        let r = self.system.velocity_residual(q, qd, t);
        let holonomic = self.system.num_holonomic();
        let geometry: Vec<(ContactMode, ContactGeometry)> = (self.contacts.iter())
            .zip(self.modes())
            .map(|(contact, mode)| (mode, (contact.geometry)(q, qd, t)))
            .collect();
        let mut rows: Vec<f64> = r.iter().take(holonomic).copied().collect();
        rows.extend(
            (geometry.iter())
                .filter(|(mode, _)| closed(*mode))
                .map(|(_, g)| g.normal.speed(qd)),
        );
        rows.extend(r.iter().skip(holonomic));
        for (_, g) in geometry
            .iter()
            .filter(|(mode, _)| *mode == ContactMode::Sticking)
        {
            rows.push(g.tangent.speed(qd));
            rows.extend(g.lateral.iter().map(|row| row.speed(qd)));
        }
        DVector::from_vec(rows)
    }
}

impl<S> ContactSet<'_, S> {
    /// The number of closed contacts.
    fn closed_count(&self) -> usize {
        self.modes.borrow().iter().filter(|m| closed(**m)).count()
    }
}

/// ṡ of a contact with `geometry` at q̇, relative to its surface: along the tangent, then
/// along the lateral slip coordinate (0 without one).
fn slip_rates(geometry: &ContactGeometry, qd: &[f64]) -> [f64; 2] {
    let lateral = geometry.lateral.as_ref().map_or(0.0, |row| row.speed(qd));
    [geometry.tangent.speed(qd), lateral]
}

/// The size of the terms whose sum is the slip velocity, Σⱼ |∂s/∂qⱼ q̇ⱼ| + |∂s/∂t| over the
/// slip coordinates: the integrator's error in ṡ grows with it, not with |ṡ| (a foot whose
/// leg swings fast slips slowly).
fn slip_scale(geometry: &ContactGeometry, qd: &[f64]) -> f64 {
    let gross = |row: &ContactRow| {
        let terms = row.gradient.iter().zip(qd).map(|(g, v)| (g * v).abs());
        terms.sum::<f64>() + row.rate.abs()
    };
    let lateral = geometry.lateral.as_ref().map_or(0.0, gross);
    gross(&geometry.tangent).max(lateral)
}
