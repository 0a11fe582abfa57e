//! udk's JIT back end: the straight-line program that udk emits for a model
//! ([`udk_symbolic::emit::Program`], the program of the Rust code and of the tape) compiled to
//! native code at run time with [Cranelift](https://cranelift.dev), for models known only when
//! the program runs (a URDF read at start-up, a model file, a design sweep).
//!
//! [`JitFunction`] is the compiled counterpart of [`udk_symbolic::emit::Tape`]: the same
//! inputs ([`TapeInputs`](udk_symbolic::emit::TapeInputs)), buffers and errors, and bit for
//! bit the same outputs (see [`JitFunction`]). [`Function`] is either of the two, picked by a
//! [`Backend`], with the tape serving where Cranelift has no back end for the host.
//! [`JitPair`] evaluates two states per call in the lanes of 128-bit vectors, for batches.
//! [`Scatter`] compiles matrices of expressions (M, Q, A, b, C, the residual Jacobians) into
//! one such program writing into nalgebra's storage; [`Stacked`] into one whose output buffer
//! is the matrices' storage.
//!
//! Why Cranelift: it is a well-kept code generator written in Rust (no C++ toolchain, no
//! system LLVM), made for fast compilation (the Panda's terms compile in about 25 ms, where
//! rustc takes seconds), and it performs the IEEE-754 operations it is given without
//! reassociating or fusing them, which keeps its results equal to the tape's.
//!
//! ```
//! use udk_symbolic::emit::TapeInputs;
//! use udk_symbolic::expr::{Func, Pool, Symbol};
//!
//! let mut pool = Pool::new();
//! let q = pool.symbol(Symbol::Coordinate(0));
//! let l = pool.symbol(Symbol::Parameter(0));
//! let s = pool.call(Func::Sin, &[q]);
//! let e = pool.mul(&[l, s]);
//! let jit = udk_jit::JitFunction::compile(&pool, &[e], "l sin q").unwrap();
//! let inputs = TapeInputs { q: &[0.3], params: &[2.0], ..TapeInputs::default() };
//! let mut out = [0.0];
//! jit.eval(&inputs, &mut vec![0.0; jit.registers()], &mut out).unwrap();
//! assert_eq!(out[0], 2.0 * 0.3f64.sin());
//! ```

mod backend;
mod error;
mod function;
mod pair;
mod scatter;
mod shims;

pub use backend::{Backend, Function, COMPILE_AFTER, PAIRS_AFTER, UPGRADE_AFTER};
pub use error::JitError;
pub use function::{JitFunction, Tier};
pub use pair::{JitPair, PairBuffers};
pub use scatter::{Block, Buffers, Scatter, Stacked};
