//! The functions of the expression language that the compiled code calls: Rust's `f64` methods
//! behind `extern "C"` shims, so that the JIT computes what the tape and the generated code
//! compute (the same libm routine, not a reimplementation).

use udk_symbolic::expr::Func;

/// A shim of one argument.
pub(crate) type Unary = extern "C" fn(f64) -> f64;

macro_rules! unary {
    ($($name:ident),*) => {
        $(extern "C" fn $name(x: f64) -> f64 { x.$name() })*
    };
}

unary!(sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, ln);

/// `f64::sin_cos`, as the tape and the generated code compute a sine and cosine of one
/// argument (one `sincos` of the C library where the compiler combines them): sin into
/// `out[0]`, cos into `out[1]`.
///
/// # Safety
/// `out` points to two writable f64.
pub(crate) unsafe extern "C" fn sin_cos(x: f64, out: *mut f64) {
    let (s, c) = x.sin_cos();
    // SAFETY: the caller passes two writable f64 (a stack slot of the compiled code).
    unsafe {
        out.write(s);
        out.add(1).write(c);
    }
}

/// `f64::powi`, with the exponent as a run-time argument as in the tape.
pub(crate) extern "C" fn powi(x: f64, k: i32) -> f64 {
    x.powi(k)
}

/// `f64::powf`.
pub(crate) extern "C" fn powf(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// `f64::atan2(y, x)`.
pub(crate) extern "C" fn atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

/// The symbol name and the shim of `f`, or `None` for the functions that are one machine
/// instruction (`sqrt`, `abs`: correctly rounded in IEEE 754, hence equal to Rust's) and for
/// `atan2`, which takes two arguments.
pub(crate) fn unary(f: Func) -> Option<(&'static str, Unary)> {
    let shim: (&str, Unary) = match f {
        Func::Sin => ("udk_jit_sin", sin),
        Func::Cos => ("udk_jit_cos", cos),
        Func::Tan => ("udk_jit_tan", tan),
        Func::Asin => ("udk_jit_asin", asin),
        Func::Acos => ("udk_jit_acos", acos),
        Func::Atan => ("udk_jit_atan", atan),
        Func::Sinh => ("udk_jit_sinh", sinh),
        Func::Cosh => ("udk_jit_cosh", cosh),
        Func::Tanh => ("udk_jit_tanh", tanh),
        Func::Exp => ("udk_jit_exp", exp),
        Func::Ln => ("udk_jit_ln", ln),
        Func::Sqrt | Func::Abs | Func::Atan2 => return None,
    };
    Some(shim)
}
