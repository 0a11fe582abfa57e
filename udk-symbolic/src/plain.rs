//! A parser of plain expressions into `syn`'s syntax tree, without `syn`'s parser.
//!
//! Plain means what printers write (`udk.sympy`, the URDF expansion, most model files): numbers,
//! names, `+ - * /`, unary `-`, parentheses, calls `f(a, b)` and method calls `x.f(a)`. Such
//! an expression becomes the very [`Expr`] that `syn::parse2::<Expr>` returns for the same
//! tokens (the tokens themselves are moved into it, so its spans are theirs too), in a
//! fraction of the time: `syn`'s expression parser tries each of Rust's forms at every
//! operand. The spec that `udk.sympy` prints for the 5-link pendulum on a cart (2 KB) took
//! 340 µs to lex and parse with `syn` (37 µs of it lexing) and takes 146 µs; `Model::from_spec`
//! on it went from 1.11 to 0.91 ms (release build, best of 2000 and 200 runs, a quiet
//! moment of a shared 2-core machine). Anything else (a keyword, a path `a::b`, a field, a
//! cast, a comparison, a compound operator such as `+=`, a trailing comma, a tuple) is not
//! plain: [`parse`] returns `None` and the caller parses with `syn`, which also reports every
//! error.
//!
//! Precedence and associativity are Rust's: method calls and calls bind tightest, then unary
//! `-`, then `*` and `/`, then `+` and `-`, each binary level associating to the left. A chain
//! of binary operators is folded in a loop; the recursion goes one level per parenthesis,
//! call argument and unary `-`, which [`crate::limits::check_tokens`] bounds before.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::{token, BinOp, Expr, ExprBinary, ExprCall, ExprLit, ExprMethodCall, ExprParen};
use syn::{ExprPath, ExprUnary, Lit, Token, UnOp};

/// Rust's keywords (strict, reserved, and the weak ones `syn` may treat apart) and `_`: an
/// identifier among them is not a plain name. Listing one too many only sends an expression
/// to `syn`.
#[rustfmt::skip]
const KEYWORDS: [&str; 59] = [
    "_", "Self", "abstract", "as", "async", "auto", "await", "become", "box", "break", "const",
    "continue", "crate", "default", "do", "dyn", "else", "enum", "extern", "false", "final",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "macro_rules", "match",
    "mod", "move", "mut", "override", "priv", "pub", "raw", "ref", "return", "safe", "self",
    "static", "struct", "super", "trait", "true", "try", "type", "typeof", "union", "unsafe",
    "unsized", "use", "virtual", "where", "while", "yield",
];

/// The expression of `tokens` when it is plain (see the module docs), else `None`.
pub(crate) fn parse(tokens: TokenStream) -> Option<Expr> {
    let mut parser = Parser::new(tokens);
    let expression = parser.sum()?;
    parser.is_empty().then_some(expression)
}

/// The tokens of one level (the whole expression or a group's contents), consumed from the
/// front.
struct Parser {
    /// The tokens still to parse, last first (so that the next one is popped from the end).
    reversed: Vec<TokenTree>,
}

impl Parser {
    fn new(tokens: TokenStream) -> Self {
        let mut reversed: Vec<TokenTree> = tokens.into_iter().collect();
        reversed.reverse();
        Self { reversed }
    }

    /// The parentheses of `group` and a parser of its contents. The group is dropped first, so
    /// that its tokens are moved out, not cloned.
    fn inside(group: Group) -> (token::Paren, Self) {
        let paren = token::Paren {
            span: group.delim_span(),
        };
        let stream = group.stream();
        drop(group);
        (paren, Self::new(stream))
    }

    fn is_empty(&self) -> bool {
        self.reversed.is_empty()
    }

    fn peek(&self) -> Option<&TokenTree> {
        self.reversed.last()
    }

    fn next(&mut self) -> Option<TokenTree> {
        self.reversed.pop()
    }

    /// The next token's character when it is a punctuation mark on its own: not the first
    /// of a compound operator such as `+=`, `->` or `..`. A mark joined to a `-` (`a*-b`,
    /// `f(a,-1)`) is on its own: no operator of Rust's starts with `+-`, `--`, `*-`, `/-`
    /// or `,-`.
    fn peek_alone(&self) -> Option<char> {
        let TokenTree::Punct(p) = self.peek()? else {
            return None;
        };
        let c = p.as_char();
        let alone = p.spacing() == Spacing::Alone
            || (matches!(c, '+' | '-' | '*' | '/' | ',')
                && matches!(self.reversed.iter().rev().nth(1),
                            Some(TokenTree::Punct(next)) if next.as_char() == '-'));
        alone.then_some(c)
    }

    /// sum := product (('+' | '-') product)*, folded to the left.
    fn sum(&mut self) -> Option<Expr> {
        let mut left = self.product()?;
        while let Some(c @ ('+' | '-')) = self.peek_alone() {
            let span = self.next()?.span();
            let op = match c {
                '+' => BinOp::Add(Token![+](span)),
                _ => BinOp::Sub(Token![-](span)),
            };
            left = binary(left, op, self.product()?);
        }
        Some(left)
    }

    /// product := unary (('*' | '/') unary)*, folded to the left.
    fn product(&mut self) -> Option<Expr> {
        let mut left = self.unary()?;
        while let Some(c @ ('*' | '/')) = self.peek_alone() {
            let span = self.next()?.span();
            let op = match c {
                '*' => BinOp::Mul(Token![*](span)),
                _ => BinOp::Div(Token![/](span)),
            };
            left = binary(left, op, self.unary()?);
        }
        Some(left)
    }

    /// unary := '-' unary | postfix.
    fn unary(&mut self) -> Option<Expr> {
        if self.peek_alone() == Some('-') {
            let span = self.next()?.span();
            return Some(Expr::Unary(ExprUnary {
                attrs: Vec::new(),
                op: UnOp::Neg(Token![-](span)),
                expr: Box::new(self.unary()?),
            }));
        }
        self.postfix()
    }

    /// postfix := primary ('.' name '(' arguments ')' | '(' arguments ')')*.
    fn postfix(&mut self) -> Option<Expr> {
        let mut expression = self.primary()?;
        loop {
            match self.peek() {
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    let Some(TokenTree::Group(group)) = self.next() else {
                        return None;
                    };
                    let (paren_token, args) = arguments(group)?;
                    expression = Expr::Call(ExprCall {
                        attrs: Vec::new(),
                        func: Box::new(expression),
                        paren_token,
                        args,
                    });
                }
                Some(TokenTree::Punct(_)) if self.peek_alone() == Some('.') => {
                    let dot = self.next()?.span();
                    let Some(TokenTree::Ident(method)) = self.next() else {
                        return None;
                    };
                    let Some(TokenTree::Group(group)) = self.next() else {
                        return None;
                    };
                    if group.delimiter() != Delimiter::Parenthesis || is_keyword(&method) {
                        return None;
                    }
                    let (paren_token, args) = arguments(group)?;
                    expression = Expr::MethodCall(ExprMethodCall {
                        attrs: Vec::new(),
                        receiver: Box::new(expression),
                        dot_token: Token![.](dot),
                        method,
                        turbofish: None,
                        paren_token,
                        args,
                    });
                }
                _ => return Some(expression),
            }
        }
    }

    /// primary := number | name | '(' sum ')'.
    fn primary(&mut self) -> Option<Expr> {
        match self.next()? {
            TokenTree::Literal(literal) => {
                let lit = Lit::new(literal);
                matches!(lit, Lit::Int(_) | Lit::Float(_)).then(|| {
                    Expr::Lit(ExprLit {
                        attrs: Vec::new(),
                        lit,
                    })
                })
            }
            TokenTree::Ident(name) if !is_keyword(&name) => Some(Expr::Path(ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: name.into(),
            })),
            TokenTree::Group(group) if group.delimiter() == Delimiter::Parenthesis => {
                let (paren_token, mut inner) = Parser::inside(group);
                let expression = inner.sum()?;
                inner.is_empty().then(|| {
                    Expr::Paren(ExprParen {
                        attrs: Vec::new(),
                        paren_token,
                        expr: Box::new(expression),
                    })
                })
            }
            _ => None,
        }
    }
}

/// `left op right`.
fn binary(left: Expr, op: BinOp, right: Expr) -> Expr {
    Expr::Binary(ExprBinary {
        attrs: Vec::new(),
        left: Box::new(left),
        op,
        right: Box::new(right),
    })
}

/// The parentheses and the comma-separated sums of a call's argument list (none for `()`;
/// `None` for a trailing comma or anything not plain).
fn arguments(group: Group) -> Option<(token::Paren, Punctuated<Expr, Token![,]>)> {
    let (paren, mut inner) = Parser::inside(group);
    let mut args = Punctuated::new();
    while !inner.is_empty() {
        args.push_value(inner.sum()?);
        if inner.is_empty() {
            break;
        }
        if inner.peek_alone() != Some(',') {
            return None;
        }
        let comma = inner.next()?.span();
        if inner.is_empty() {
            return None;
        }
        args.push_punct(Token![,](comma));
    }
    Some((paren, args))
}

fn is_keyword(name: &proc_macro2::Ident) -> bool {
    KEYWORDS.iter().any(|k| name == k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    use quote::ToTokens;

    /// A token's text (a group's delimiter) and the (line, column) of its start and end.
    type Located = (String, (usize, usize), (usize, usize));

    /// Every token of `e` as it prints, located.
    fn tokens_with_spans(e: &Expr) -> Vec<Located> {
        fn walk(stream: TokenStream, out: &mut Vec<Located>) {
            for token in stream {
                let (start, end) = (token.span().start(), token.span().end());
                let text = match &token {
                    TokenTree::Group(g) => format!("{:?}", g.delimiter()),
                    other => other.to_string(),
                };
                out.push((text, (start.line, start.column), (end.line, end.column)));
                if let TokenTree::Group(g) = token {
                    walk(g.stream(), out);
                }
            }
        }
        let mut out = Vec::new();
        walk(e.to_token_stream(), &mut out);
        out
    }

    /// What the plain parser makes of `text` against `syn`: `Some(true)` when it parsed it
    /// (then to `syn`'s tree, token for token with the same spans), `Some(false)` when it left
    /// it to `syn`; `None` when the text does not lex.
    fn agrees_with_syn(text: &str) -> Option<bool> {
        let tokens: TokenStream = text.parse().ok()?;
        let ours = parse(tokens.clone());
        let theirs = syn::parse2::<Expr>(tokens);
        match (ours, theirs) {
            (None, _) => Some(false),
            (Some(ours), Ok(theirs)) => {
                assert_eq!(ours, theirs, "`{text}`");
                assert_eq!(
                    tokens_with_spans(&ours),
                    tokens_with_spans(&theirs),
                    "`{text}`"
                );
                Some(true)
            }
            (Some(ours), Err(e)) => panic!("`{text}`: parsed as {ours:?}, where syn says {e}"),
        }
    }

    #[test]
    fn plain_expressions_are_parsed_as_syn_parses_them() {
        for text in [
            "1",
            "x",
            "-x",
            "- -x",
            "a - -b",
            "a--b",
            "a*-b",
            "a / -2.5",
            "f(a,-1)",
            "-x.powi(2)",
            "a + b * c - d / e",
            "a - b - c",
            "a / b / c * d",
            "(a + b) * (c - d)",
            "((x))",
            "dot(q0).powi(2) * 0.5",
            "powi(dot(q1), 2)",
            "x.sin().cos()",
            "f()",
            "f(x)(y)",
            "(f)(x)",
            "atan2(y, x)",
            "1.5e-3 * x",
            "2.0f64 * x",
            "x.max(y)",
            "2.0.powi(2)",
            "r#type + 1",
        ] {
            assert_eq!(
                agrees_with_syn(text),
                Some(true),
                "`{text}` should be plain"
            );
        }
    }

    #[test]
    fn anything_else_is_left_to_syn() {
        for text in [
            "",
            "a += b",
            "a -> b",
            "a..b",
            "x as f64",
            "x.0",
            "x.y",
            "x.f::<f64>()",
            "a::b",
            "&x",
            "!x",
            "*x",
            "if a { b } else { c }",
            "f(a,)",
            "(a, b)",
            "()",
            "[a]",
            "x[0]",
            "a % b",
            "a < b",
            "a == b",
            "true",
            "\"text\"",
            "self",
            "_",
            "x.await",
            "x.match()",
            "m!(x)",
            "a b",
            "a +",
            "f(a b)",
            "S { a: 1 }",
            "|x| x",
            "'a'",
        ] {
            assert_eq!(agrees_with_syn(text), Some(false), "`{text}` is not plain");
        }
    }

    /// A random expression of names, numbers, the four operators, unary minus, parentheses,
    /// calls and method calls, with or without spaces between tokens, and now and then a
    /// token that is not plain.
    fn expression() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            "[a-z][a-z0-9_]{0,3}",
            "[0-9]{1,3}",
            "[0-9]{1,2}\\.[0-9]{1,2}(e-?[0-9])?",
            Just("x.0".to_string()),
            Just("true".to_string()),
            Just("a::b".to_string()),
        ];
        leaf.prop_recursive(5, 48, 3, |inner| {
            let space = prop_oneof![Just(""), Just(" ")];
            prop_oneof![
                (
                    inner.clone(),
                    "[-+*/%]|==|\\+=",
                    inner.clone(),
                    space.clone()
                )
                    .prop_map(|(a, op, b, s)| format!("{a}{s}{op}{s}{b}")),
                (inner.clone(), space.clone()).prop_map(|(a, s)| format!("-{s}{a}")),
                inner.clone().prop_map(|a| format!("({a})")),
                (
                    "[a-z]{1,4}",
                    proptest::collection::vec(inner.clone(), 0..3),
                    any::<bool>()
                )
                    .prop_map(|(f, args, trailing)| {
                        let comma = if trailing && !args.is_empty() {
                            ","
                        } else {
                            ""
                        };
                        format!("{f}({}{comma})", args.join(", "))
                    }),
                (
                    inner.clone(),
                    "[a-z]{1,4}",
                    proptest::collection::vec(inner, 0..2)
                )
                    .prop_map(|(x, f, args)| format!("{x}.{f}({})", args.join(",")))
            ]
        })
    }

    /// Whatever the plain parser accepts among 3000 random expressions, it parses to `syn`'s
    /// tree with `syn`'s spans, and what `syn` rejects it leaves to `syn`; at least a fifth
    /// take each way, so that both are tested.
    #[test]
    fn random_expressions_agree_with_syn() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = expression();
        let (mut plain, mut other) = (0, 0);
        for _ in 0..3000 {
            let text = strategy.new_tree(&mut runner).unwrap().current();
            match agrees_with_syn(&text) {
                Some(true) => plain += 1,
                Some(false) => other += 1,
                None => {}
            }
        }
        assert!(
            plain >= 600 && other >= 600,
            "{plain} plain, {other} left to syn"
        );
    }
}
