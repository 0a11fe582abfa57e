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

/// The sine and cosine of one argument, `sincos(x, &sin, &cos)` of the C library: glibc's
/// `sincos` where the host has it (Linux with glibc), which shares the range reduction and
/// kernels of its `sin` and `cos` and so returns their values bit for bit (tested over many
/// arguments in `tests/sin_cos.rs`); elsewhere `sin_cos_pair`, `f64::sin_cos` behind the same signature. One call instead of a call of
/// a shim that calls `sincos` (rustc turns `f64::sin_cos` into one `sincos` call where the C
/// library has it).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) const SIN_COS: SinCos = {
    extern "C" {
        fn sincos(x: f64, sin: *mut f64, cos: *mut f64);
    }
    sincos
};

/// See the glibc variant.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) const SIN_COS: SinCos = sin_cos_pair;

/// The signature of C's `sincos`: x, then where the sine and the cosine go.
pub(crate) type SinCos = unsafe extern "C" fn(f64, *mut f64, *mut f64);

/// `f64::sin_cos` with `sincos`'s signature, as the tape and the generated code compute a sine
/// and cosine of one argument: sin into `*sin`, cos into `*cos`.
///
/// # Safety
/// `sin` and `cos` point to writable f64.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
unsafe extern "C" fn sin_cos_pair(x: f64, sin: *mut f64, cos: *mut f64) {
    let (s, c) = x.sin_cos();
    // SAFETY: the caller passes two writable f64 (a stack slot of the compiled code).
    unsafe {
        sin.write(s);
        cos.write(c);
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
