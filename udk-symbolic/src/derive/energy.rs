//! Whether a model's energy is a constant of its motion, so that its drift checks a simulation.

use crate::derivation::{Derivation, Equations};
use crate::expr::Symbol;

impl Derivation {
    /// Whether the energy is conserved with the parameter values `params` and the inputs
    /// `inputs` held fixed (both in the model's order). For a Lagrangian model, the Jacobi
    /// integral h = q̇ᵀ∂L/∂q̇ − L is constant when L does not depend on t, the constraints do
    /// not depend on t (ideal scleronomic constraints do no work), C = 0, and the
    /// non-conservative forces vanish (Goldstein, *Classical Mechanics*, §2.7). For a
    /// Hamiltonian model, H is constant when neither H nor the constraints depend on t.
    ///
    /// Each test is structural (an expression that depends on t, a force that is not the
    /// constant 0), except that forces that do depend on the inputs or the parameters are
    /// evaluated with `params` and `inputs` at two generic states and count as vanishing when
    /// both give exactly 0: a URDF robot's joint efforts τ = u vanish for u = 0, and with
    /// `joint_damping` they do not. Missing values count as 0.
    pub fn conserves_energy(&self, params: &[f64], inputs: &[f64]) -> bool {
        let pool = &self.pool;
        let time = |s: Symbol| s == Symbol::Time;
        match &self.equations {
            Equations::Lagrangian(e) => {
                let timeless = [
                    &e.generalized_force[..],
                    &e.holonomic,
                    &e.velocity_constraints,
                ]
                .iter()
                .all(|part| !pool.any_depends_on(part, &time));
                let ideal = e.nonideal_force.iter().all(|&c| pool.is_zero(c));
                let at = |k: f64| {
                    move |s: Symbol| match s {
                        Symbol::Parameter(i) => params.get(i).copied().unwrap_or(0.0),
                        Symbol::Input(i) => inputs.get(i).copied().unwrap_or(0.0),
                        Symbol::Time => 0.5 * k,
                        Symbol::Coordinate(i) | Symbol::Velocity(i) => k * (0.37 + 0.11 * i as f64),
                        _ => 0.0,
                    }
                };
                let forces = &e.nonconservative_force;
                let unforced = [0.9, -1.3]
                    .iter()
                    .all(|&k| pool.eval_all(forces, &at(k)).iter().all(|&f| f == 0.0));
                timeless && ideal && unforced
            }
            Equations::Hamiltonian(e) => {
                let parts = [&[e.hamiltonian][..], &e.holonomic, &e.constraints];
                parts.iter().all(|part| !pool.any_depends_on(part, &time))
            }
        }
    }
}
