//! The user guide: one page per topic, the markdown files of `guide/` in the repository. Every
//! Rust example on these pages runs as a doctest of this crate.

#[doc = include_str!("../guide/models.md")]
pub mod models {}

#[doc = include_str!("../guide/urdf.md")]
pub mod urdf {}

#[doc = include_str!("../guide/engine.md")]
pub mod engine {}

#[doc = include_str!("../guide/cli.md")]
pub mod cli {}

#[doc = include_str!("../guide/jit.md")]
pub mod jit {}

#[doc = include_str!("../guide/simulation.md")]
pub mod simulation {}

#[doc = include_str!("../guide/hybrid.md")]
pub mod hybrid {}

#[doc = include_str!("../guide/floating_base.md")]
pub mod floating_base {}

#[doc = include_str!("../guide/generalized_speeds.md")]
pub mod generalized_speeds {}

#[doc = include_str!("../guide/linearization.md")]
pub mod linearization {}

#[doc = include_str!("../guide/control.md")]
pub mod control {}

#[doc = include_str!("../guide/kernels.md")]
pub mod kernels {}

#[doc = include_str!("../guide/python.md")]
pub mod python {}

#[doc = include_str!("../guide/performance.md")]
pub mod performance {}
