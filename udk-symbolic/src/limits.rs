//! Bounds on the size of a model's expressions, and the large stack the engine runs on.
//!
//! `syn`'s parser, its `Drop`, `Clone` and `ToTokens`, and parts of udk's parser and
//! derivation are recursive, so an expression nested deeply enough would overflow the stack
//! (unoptimized `syn`, as a proc macro is built, takes about 25 KiB of stack per level of
//! parentheses). Hence:
//! - the macro expansion and the `udk` command line run on [`on_large_stack`]
//!   ([`STACK_BYTES`]);
//! - before a model file's expression is lexed, [`check_text`] bounds its length
//!   ([`MAX_BYTES`]);
//! - before `syn` parses an expression, [`check_tokens`] bounds its tokens ([`MAX_TOKENS`])
//!   and how deeply `syn` can recurse into them ([`MAX_NESTING`]);
//! - udk's parser counts its own nesting and stops at [`MAX_NESTING`] with an error at the
//!   culprit (a chain `a + b - c + …` or `a * b / c * …` is one level however long: it is
//!   walked in a loop);
//! - an [`Expression`](crate::spec::Expression) parses, clones, prints and drops its tree on a
//!   stack sized to the tree's nesting and depth (a new one when the current thread's is too
//!   small), so that a model's spec can be read and dropped on any thread.
//!
//! Within these limits every stage fits in [`STACK_BYTES`] in a debug build, with margin.

use crate::error::Error;
use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// The stack the engine runs on, in bytes (1 GiB of address space; only the pages a deep
/// expression touches are ever used).
pub const STACK_BYTES: usize = 1 << 30;

/// The deepest an expression may nest: parentheses, calls, method calls, unary operators and
/// operands of different operators each count one level; a chain of `+` and `-`, or of `*`
/// and `/`, counts one level however long.
pub const MAX_NESTING: usize = 4096;

/// The most tokens one expression (or the macro's whole attribute) may have: a sum of about
/// 100,000 terms such as `(x + 7).sin()` (8 tokens each).
pub const MAX_TOKENS: usize = 1_000_000;

/// The longest expression text a model file may hold, in bytes (4 MiB: a sum of 100,000
/// terms such as `(x + 12345).sin()` is about 2 MiB), checked before the text is lexed.
pub const MAX_BYTES: usize = 4 << 20;

/// The largest [`Pool::product_rule_cost`](crate::expr::Pool::product_rule_cost) of a model's
/// terms (M, Q, A, b, C, or H_p, H_q, H_pp, A_p, b_p) times the number of variables they are
/// differentiated by, for which the exact Jacobians are derived: 4 million operands (the
/// Whipple bicycle needs about a tenth of it). Beyond it the Jacobians would take time and
/// memory quadratic in the model's size, and the model has none: the generated
/// `acceleration_jacobian` (`state_jacobian`) returns `Error::JacobianUnavailable` and
/// `udk jacobian` says so.
pub const MAX_JACOBIAN_COST: usize = 4_000_000;

/// The most `let` statements a generated function has in a row. Beyond it the function's
/// temporaries are declared [`LET_GROUP`] at a time and assigned in order
/// ([`emit_rust`](crate::emit::emit_rust)). Each `let` opens a debug-info scope nested in the
/// previous one, and a build with debug info (any level, optimized or not) of a function with
/// a few thousand (the Panda's residual Jacobians, about 5,500) crashes rustc 1.95 with a
/// stack overflow in LLVM. Measured on the release build of a 40-joint chain: one `let`
/// each, 18.4 s (no debug info); every temporary in one declaration, 39.5 s; blocks handing
/// their values on as tuples, 42–44 s; declarations of 100 (this form), 18.6 s, and 2.0 min
/// with full debug info.
pub const MAX_LET_STATEMENTS: usize = 1000;

/// The temporaries declared by one `let` in a function beyond [`MAX_LET_STATEMENTS`].
pub const LET_GROUP: usize = 100;

/// Checks that an expression's `text` is at most [`MAX_BYTES`] long.
///
/// # Errors
/// A message naming the limit.
pub fn check_text(text: &str) -> Result<(), String> {
    if text.len() <= MAX_BYTES {
        return Ok(());
    }
    Err(format!(
        "expression too large: {} bytes, more than {MAX_BYTES} (udk's limit, \
         udk_symbolic::limits::MAX_BYTES)",
        text.len()
    ))
}

/// Runs `f` on a stack of [`STACK_BYTES`] bytes, on the current thread (so that a proc macro
/// keeps its connection to the compiler), and returns its result.
pub fn on_large_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::grow(STACK_BYTES, f)
}

/// Checks that `tokens` stay within [`MAX_TOKENS`] and [`MAX_NESTING`] before `syn` parses
/// them, walking them without recursion.
///
/// The nesting of a token is that of its enclosing group plus one, plus the tokens of its
/// group before it that `syn` may parse recursively: keywords and operators other than
/// `+ - * / . , ; : ^` (a right-associative `=`, a closure's `|`, `else if` …) cumulatively,
/// and a run of consecutive operators in prefix position (`- - -x`, `&&*x`). In the macro's
/// attribute each `let NAME =` and `key =` counts 2 and 1 at the top level, so an attribute
/// of up to about 2000 definitions passes.
///
/// Returns the deepest nesting found, by which [`crate::spec::Expression`]'s parsing sizes
/// the stack it runs on.
///
/// # Errors
/// An [`Error`] at the first token beyond a limit, naming the limit.
pub fn check_tokens(tokens: &TokenStream) -> Result<usize, Error> {
    let mut count = 0usize;
    let mut deepest = 0usize;
    let mut stack = vec![Frame::new(tokens.clone(), 0)];
    while let Some(frame) = stack.last_mut() {
        let Some(token) = frame.tokens.next() else {
            stack.pop();
            continue;
        };
        count += 1;
        if count > MAX_TOKENS {
            return Err(Error::new(
                token.span(),
                format!(
                    "expression too large: more than {MAX_TOKENS} tokens (udk's limit, \
                     udk_symbolic::limits::MAX_TOKENS)"
                ),
            ));
        }
        match &token {
            TokenTree::Group(group) => {
                let level = frame.level() + 1;
                frame.run = 0;
                frame.after_operand = true;
                if level > MAX_NESTING {
                    return Err(too_deep(&token));
                }
                let inner = group.stream();
                // An invisible group is not a level of the source.
                let level = level - usize::from(group.delimiter() == Delimiter::None);
                deepest = deepest.max(level);
                stack.push(Frame::new(inner, level));
                continue;
            }
            TokenTree::Ident(ident) => {
                if is_keyword(&ident.to_string()) {
                    frame.cumulative += 1;
                    frame.after_operand = false;
                } else {
                    frame.run = 0;
                    frame.after_operand = true;
                }
            }
            TokenTree::Literal(_) => {
                frame.run = 0;
                frame.after_operand = true;
            }
            TokenTree::Punct(punct) => {
                let c = punct.as_char();
                if !"+-*/.,;:^".contains(c) {
                    frame.cumulative += 1;
                } else if !frame.after_operand {
                    frame.run += 1;
                }
                // The first character of a joint operator (`::`, `..`) leaves the next one
                // in the same position.
                if punct.spacing() == Spacing::Alone || c == ',' || c == ';' {
                    frame.after_operand = false;
                }
            }
        }
        if frame.level() > MAX_NESTING {
            return Err(too_deep(&token));
        }
        deepest = deepest.max(frame.level());
    }
    Ok(deepest)
}

/// The error for an expression nested beyond [`MAX_NESTING`], at `token`.
fn too_deep(token: &TokenTree) -> Error {
    Error::new(token.span(), nesting_message())
}

/// The message of an expression nested beyond [`MAX_NESTING`].
pub(crate) fn nesting_message() -> String {
    format!(
        "expression nested too deeply: more than {MAX_NESTING} levels of parentheses, calls \
         or operators (udk's limit, udk_symbolic::limits::MAX_NESTING)"
    )
}

/// One group being walked by [`check_tokens`].
struct Frame {
    tokens: proc_macro2::token_stream::IntoIter,
    base: usize,
    cumulative: usize,
    run: usize,
    after_operand: bool,
}

impl Frame {
    fn new(tokens: TokenStream, base: usize) -> Self {
        Frame {
            tokens: tokens.into_iter(),
            base,
            cumulative: 0,
            run: 0,
            after_operand: false,
        }
    }

    fn level(&self) -> usize {
        self.base + self.cumulative + self.run
    }
}

/// Whether `word` is a Rust keyword (strict or reserved), which `syn` may parse recursively.
fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "as" | "async"
            | "await"
            | "box"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "do"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "static"
            | "struct"
            | "trait"
            | "try"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "yield"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn check(text: &str) -> Result<usize, String> {
        let tokens = TokenStream::from_str(text).unwrap();
        check_tokens(&tokens).map_err(|e| e.message)
    }

    #[test]
    fn long_sums_and_moderate_nesting_pass_with_their_depth() {
        let sum = vec!["(x + 1).sin() - -y * z"; 20_000].join(" + ");
        // The parentheses, or the run `- -`.
        assert_eq!(check(&sum), Ok(1));
        let n = MAX_NESTING - 1;
        let parens = format!("{}x{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(check(&parens), Ok(n));
        assert_eq!(check("x + y"), Ok(0));
        assert_eq!(check("f(g(x), -y)"), Ok(2));
    }

    #[test]
    fn deep_parentheses_unary_runs_and_keyword_chains_fail() {
        let n = MAX_NESTING + 1;
        for text in [
            format!("{}x{}", "(".repeat(n), ")".repeat(n)),
            format!("{}x", "- ".repeat(n)),
            format!("{}x", "|x| ".repeat(n)),
            format!("if a {{ 1 }} {}", "else if a { 1 } ".repeat(n)),
            format!("{}x", "a = ".repeat(n)),
        ] {
            let message = check(&text).unwrap_err();
            assert!(message.contains("nested too deeply"), "{message}");
        }
    }

    #[test]
    fn too_long_texts_fail() {
        assert_eq!(check_text("x + y"), Ok(()));
        let message = check_text(&"x+".repeat(MAX_BYTES / 2 + 1)).unwrap_err();
        assert!(message.contains("more than 4194304"), "{message}");
    }

    #[test]
    fn too_many_tokens_fail() {
        let sum = vec!["x"; MAX_TOKENS / 2 + 1].join(" + ");
        let message = check(&sum).unwrap_err();
        assert!(message.contains("more than 1000000 tokens"), "{message}");
    }

    #[test]
    fn the_large_stack_holds_a_deep_recursion() {
        fn depth(k: usize) -> usize {
            let pad = std::hint::black_box([0u8; 1024]);
            if k == 0 {
                usize::from(pad[0])
            } else {
                1 + depth(k - 1)
            }
        }
        // About 100 MiB of frames, far beyond a default thread's 2 MiB.
        assert_eq!(on_large_stack(|| depth(100_000)), 100_000);
    }
}
