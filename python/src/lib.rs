//! `udk._udk`: the Python extension module of the `udk-dynamics` package, a thin shim over
//! [`udk::Model`] (as `udk-macros` is over `udk-symbolic`).
//!
//! Every function takes one state (1-D arrays of n entries) or a batch (2-D arrays, states ×
//! n, evaluated in parallel by rayon with the GIL released); every error is a Python exception
//! with the message of [`udk::ModelError`] (the messages the `udk` command line prints).

mod batch;
mod floating;
mod model;
mod motion;

use pyo3::prelude::*;

/// The allocator of the extension's Rust code: mimalloc, not the C library's `malloc`. Reading
/// and deriving a model allocates many small objects (`syn` trees, expression nodes, hash
/// tables): glibc's `malloc` and `free` took about a fifth of `from_sympy` to the first q̈ at 5
/// links, and mimalloc cut that time by 15 % (`guide/python.md`, "Speed"). Built with
/// `local_dynamic_tls`: a module loaded by `dlopen` (as Python loads this one) cannot use the
/// initial-exec thread-local storage mimalloc takes by default ("cannot allocate memory in
/// static TLS block").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pyo3::create_exception!(
    udk,
    BadInputError,
    pyo3::exceptions::PyValueError,
    "A model that does not read or derive, an unknown name, a missing parameter value, an \
     array of the wrong shape, an initial state off the constraints: the input is wrong."
);
pyo3::create_exception!(
    udk,
    MotionError,
    pyo3::exceptions::PyArithmeticError,
    "The equations of motion have no trustworthy solution at a state: the acceleration is not \
     unique ([M; A] rank-deficient), the constraints are inconsistent, a matrix is singular."
);

/// The module `udk._udk`.
#[pymodule]
fn _udk(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<model::Model>()?;
    m.add_class::<model::Equations>()?;
    m.add_class::<floating::FloatingBaseModel>()?;
    m.add("BadInputError", m.py().get_type::<BadInputError>())?;
    m.add("MotionError", m.py().get_type::<MotionError>())?;
    Ok(())
}
