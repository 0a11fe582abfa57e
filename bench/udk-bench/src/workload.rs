//! The workload file shared with the Python peers: chain parameters and random states.

use serde::Deserialize;

/// The coordinates of a chain model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// 2n Cartesian coordinates x1, y1, …, xn, yn (m, y up) with n length constraints.
    Cartesian,
    /// n absolute angles θ1…θn (rad) of the rods from the downward vertical.
    Minimal,
}

/// One random state of a chain, in both forms (consistent with the length constraints).
#[derive(Clone, Debug, Deserialize)]
pub struct ChainState {
    /// Angles θ1…θn (rad), from the downward vertical.
    pub theta: Vec<f64>,
    /// Angular rates θ̇1…θ̇n (rad/s).
    pub omega: Vec<f64>,
    /// Cartesian coordinates x1, y1, …, xn, yn (m) of the same configuration.
    pub q: Vec<f64>,
    /// Their velocities (m/s).
    pub qd: Vec<f64>,
}

impl ChainState {
    /// The state with angles `theta` (rad) and rates `omega` (rad/s) of a chain with rod
    /// lengths `lengths` (m), with its Cartesian coordinates xₖ = Σ_{j≤k} lⱼ sin θⱼ,
    /// yₖ = −Σ_{j≤k} lⱼ cos θⱼ and their velocities.
    pub fn from_angles(lengths: &[f64], theta: &[f64], omega: &[f64]) -> Self {
        let (mut q, mut qd) = (Vec::new(), Vec::new());
        let (mut x, mut y, mut vx, mut vy) = (0.0, 0.0, 0.0, 0.0);
        for ((l, th), w) in lengths.iter().zip(theta).zip(omega) {
            let (s, c) = th.sin_cos();
            x += l * s;
            y -= l * c;
            vx += l * c * w;
            vy += l * s * w;
            q.extend([x, y]);
            qd.extend([vx, vy]);
        }
        ChainState {
            theta: theta.to_vec(),
            omega: omega.to_vec(),
            q,
            qd,
        }
    }
}

/// The parameters of one n-link chain and its random states.
#[derive(Clone, Debug, Deserialize)]
pub struct Chain {
    /// Point masses m1…mn (kg).
    pub masses: Vec<f64>,
    /// Rod lengths l1…ln (m).
    pub lengths: Vec<f64>,
    /// Gravity g (m/s²), along −y.
    pub g: f64,
    /// The states every tool is evaluated at.
    pub states: Vec<ChainState>,
}

impl Chain {
    /// The number of links n.
    pub fn links(&self) -> usize {
        self.masses.len()
    }

    /// The states as (q, q̇) pairs in `form`.
    pub fn states_in(&self, form: Form) -> Vec<(Vec<f64>, Vec<f64>)> {
        self.states
            .iter()
            .map(|s| match form {
                Form::Cartesian => (s.q.clone(), s.qd.clone()),
                Form::Minimal => (s.theta.clone(), s.omega.clone()),
            })
            .collect()
    }
}

/// The workload file written by `bench/compare.py`.
#[derive(Clone, Debug, Deserialize)]
pub struct Workload {
    /// The seed the states were drawn with.
    pub seed: u64,
    /// One entry per chain size.
    pub chains: Vec<Chain>,
}

/// A generated chain model built from the parameters of a [`Chain`] (implemented by the build
/// script for each generated struct).
pub trait FromChain {
    /// The model with the masses, lengths and gravity of `chain`.
    fn from_chain(chain: &Chain) -> Self;
}
