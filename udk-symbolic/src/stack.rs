//! The stack that `syn`'s recursive operations on an expression need, and running them where
//! it is available, so that a model's expressions can be parsed, cloned, printed and dropped on
//! any thread, not only on [`crate::limits::on_large_stack`].
//!
//! `syn` parses a chain such as `a + b + c + …` in a loop, but the tree it builds is as deep as
//! the chain is long, and its `Drop`, `Clone`, `Debug` and `ToTokens` recurse into it: a sum of
//! 30,000 terms overflowed a 2 MiB thread when dropped in a debug build, and one of 272 terms a
//! 1 MiB thread when cloned. The per-level figures below were measured on `syn` 2.0 on
//! 1 MiB threads, as the longest chain, parenthesization or unary nesting each operation held.

use syn::Expr;

/// The stack one level of [`crate::limits::check_tokens`]'s nesting may take while an
/// expression is parsed: measured up to 15 KiB in a debug build and 3.3 KiB in a release
/// build; twice that.
const PARSE_BYTES_PER_LEVEL: usize = if cfg!(debug_assertions) {
    32 << 10
} else {
    8 << 10
};

/// The stack one level of a tree's depth may take in `syn`'s `Clone`, `Debug` or `ToTokens`:
/// measured up to 4 KiB (`Clone`) in a debug build and 0.84 KiB in a release build; twice
/// that.
pub(crate) const WALK_BYTES_PER_LEVEL: usize = if cfg!(debug_assertions) {
    8 << 10
} else {
    2 << 10
};

/// The stack one level of a tree's depth may take in `syn`'s `Drop`: measured up to 264 bytes
/// in a debug build and 97 in a release build; about twice that.
pub(crate) const DROP_BYTES_PER_LEVEL: usize = if cfg!(debug_assertions) { 512 } else { 256 };

/// Stack kept free beyond an estimate, for the frames around the recursion.
const MARGIN_BYTES: usize = 256 << 10;

/// The stack, in bytes, that parsing an expression of `nesting` levels needs.
pub(crate) fn for_parsing(nesting: usize) -> usize {
    nesting.saturating_mul(PARSE_BYTES_PER_LEVEL)
}

/// The stack, in bytes, that a recursive walk of `expression` taking `bytes_per_level` per
/// level of its depth needs; `usize::MAX` when the tree holds a kind of expression that udk's
/// language does not use (a block, a closure, a type …), whose depth is not measured here.
pub(crate) fn for_tree(expression: &Expr, bytes_per_level: usize) -> usize {
    depth(expression).map_or(usize::MAX, |d| d.saturating_mul(bytes_per_level))
}

/// Runs `f` on the current stack when `needed` bytes (plus a margin) are left on it, else on a
/// new stack of `needed` bytes plus the margin, at least
/// [`STACK_BYTES`](crate::limits::STACK_BYTES) (which `usize::MAX` asks for).
pub(crate) fn with<R>(needed: usize, f: impl FnOnce() -> R) -> R {
    let red_zone = needed.saturating_add(MARGIN_BYTES);
    if stacker::remaining_stack().is_some_and(|left| left >= red_zone) {
        return f();
    }
    let size = if needed == usize::MAX {
        crate::limits::STACK_BYTES
    } else {
        red_zone.max(crate::limits::STACK_BYTES)
    };
    stacker::grow(size, f)
}

/// The depth of `root` (a leaf is 1), walked without recursion; `None` when it holds a kind of
/// expression other than literals, plain paths, parentheses, invisible groups, unary and binary
/// operators, calls, method calls without turbofish, indexing, ranges, arrays and tuples.
fn depth(root: &Expr) -> Option<usize> {
    let mut deepest = 0;
    let mut pending = vec![(root, 1usize)];
    while let Some((expression, level)) = pending.pop() {
        deepest = deepest.max(level);
        let below = level + 1;
        match expression {
            Expr::Lit(_) => {}
            Expr::Path(path)
                if path.qself.is_none()
                    && path.path.segments.iter().all(|s| s.arguments.is_none()) => {}
            Expr::Paren(inner) => pending.push((&inner.expr, below)),
            Expr::Group(inner) => pending.push((&inner.expr, below)),
            Expr::Unary(unary) => pending.push((&unary.expr, below)),
            Expr::Binary(binary) => {
                pending.extend([(&*binary.left, below), (&*binary.right, below)]);
            }
            Expr::Call(call) => {
                pending.push((&call.func, below));
                pending.extend(call.args.iter().map(|a| (a, below)));
            }
            Expr::MethodCall(call) if call.turbofish.is_none() => {
                pending.push((&call.receiver, below));
                pending.extend(call.args.iter().map(|a| (a, below)));
            }
            Expr::Index(index) => {
                pending.extend([(&*index.expr, below), (&*index.index, below)]);
            }
            Expr::Range(range) => {
                let ends = [&range.start, &range.end];
                pending.extend(ends.into_iter().flatten().map(|e| (&**e, below)));
            }
            Expr::Array(array) => pending.extend(array.elems.iter().map(|e| (e, below))),
            Expr::Tuple(tuple) => pending.extend(tuple.elems.iter().map(|e| (e, below))),
            _ => return None,
        }
    }
    Some(deepest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Expr {
        syn::parse_str(text).unwrap()
    }

    #[test]
    fn depths_of_chains_nestings_and_leaves() {
        assert_eq!(depth(&parsed("x")), Some(1));
        assert_eq!(depth(&parsed("-x")), Some(2));
        // Left-nested: ((x + y) + z) + w.
        assert_eq!(depth(&parsed("x + y + z + w")), Some(4));
        assert_eq!(depth(&parsed("x * (y + z.sin())")), Some(5));
        assert_eq!(depth(&parsed("f(x, [y, (z, 1.0)], a[0], 0..n)")), Some(4));
        assert_eq!(depth(&parsed("x.sin().cos().powi(2)")), Some(4));
        for other in [
            "{ x }",
            "|x| x",
            "x as f64",
            "f::<T>(x)",
            "x.f::<T>()",
            "<T>::x",
        ] {
            assert_eq!(depth(&parsed(other)), None, "{other}");
            assert_eq!(for_tree(&parsed(other), 1), usize::MAX, "{other}");
        }
    }

    #[test]
    fn a_long_chain_is_dropped_cloned_and_printed_on_a_small_thread() {
        let sum = vec!["x.sin()"; 100_000].join(" + ");
        let (levels, printed) = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                // `syn` trees are not `Send`: this one is built and dropped on this thread.
                let tree: Expr = with(for_parsing(1), || parsed(&sum));
                let copy = with(for_tree(&tree, WALK_BYTES_PER_LEVEL), || tree.clone());
                let text = with(for_tree(&copy, WALK_BYTES_PER_LEVEL), || {
                    quote::ToTokens::to_token_stream(&copy).to_string()
                });
                let levels = depth(&copy);
                for t in [tree, copy] {
                    let needed = for_tree(&t, DROP_BYTES_PER_LEVEL);
                    with(needed, move || drop(t));
                }
                (levels, text.len())
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(levels, Some(100_001));
        assert_eq!(printed, "x . sin () + ".len() * 100_000 - 3);
    }
}
