//! The errors of compiling a program.

/// A program that could not be compiled to native code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JitError {
    /// Cranelift has no back end for this host (or rejects its settings): evaluate with the
    /// tape instead.
    #[error("no Cranelift back end for this host: {0}")]
    Unsupported(String),
    /// Cranelift failed on one function of the program (a bug of the JIT or of Cranelift, or
    /// a resource limit).
    #[error("Cranelift failed to compile `{function}`: {message}")]
    Compile {
        /// The name of the function: what was compiled and which part of it.
        function: String,
        /// Cranelift's message.
        message: String,
    },
    /// The program is not well formed (it was built by hand rather than by
    /// [`Program::new`](udk_symbolic::emit::Program::new)): a value read before a step
    /// defines it, an index beyond its values, a value defined twice, a `sin_cos` step whose
    /// values are not the sine and cosine of its argument, or an input index too large to
    /// address. Nothing was compiled.
    #[error("the program `{function}` is not well formed: {message}")]
    InvalidProgram {
        /// The name of the program.
        function: String,
        /// What is wrong, naming the step or output.
        message: String,
    },
}
