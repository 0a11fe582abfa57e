//! Repeated structure in a model: blocks over an integer range (`for i in 0..6 { .. }` in the
//! macro, `[[repeat]]` in a model file), indexed names (`leg[i]`, `anchor[2]`) and sums over a
//! range (`(0..6).map(|i| e).sum()`).
//!
//! All of it is expanded before the derivation, as the parser scalarizes vectors: an indexed
//! name `leg[i]` with i = 3 becomes the name `leg_3`, a loop variable becomes its value, and a
//! sum becomes the sum of its terms. The derivation then sees plain entries, so a repeated model
//! derives, prints and generates code exactly as the same model written out by hand. Errors keep
//! the span of the template they come from, and each instance carries its index in its names.

use crate::error::Errors;
use crate::spec::{Expression, ModelSpec, Name, NamedExpression};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident};

/// At most this many instances (block repetitions and terms of sums, all together) in one
/// model, so that expansion stays bounded in time and memory on any input.
pub const MAX_INSTANCES: usize = 100_000;

/// A block of entries repeated for each value of `index` in `range`, in order: its entries are
/// added after the model's own entries of the same key, instance by instance.
///
/// Names (coordinates, momenta, inputs, definitions, outputs) are written indexed, `leg[i]`,
/// and become `leg_0`, `leg_1`, ...; in every expression of the block, `index` is the
/// instance's number (a float) and `name[expr]` names an instance, with `expr` any integer
/// expression of the loop variables and literals (`+ - * / %`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    /// The loop variable, `i`.
    pub index: Name,
    /// The range, `start..end` (end excluded) or `start..=end`, integer bounds.
    pub range: Expression,
    /// Indexed coordinates, `x[i]`.
    #[serde(default)]
    pub coordinates: Vec<Expression>,
    /// Indexed momenta (Hamiltonian models).
    #[serde(default)]
    pub momenta: Vec<Expression>,
    /// Indexed inputs, `u[i]`.
    #[serde(default)]
    pub inputs: Vec<Expression>,
    /// Indexed definitions, `leg[i] = top[i] - base[i]`, in order.
    #[serde(default)]
    pub definitions: Vec<IndexedExpression>,
    /// Holonomic constraints, one per instance and entry.
    #[serde(default)]
    pub holonomic: Vec<Expression>,
    /// Nonholonomic constraints.
    #[serde(default)]
    pub nonholonomic: Vec<Expression>,
    /// Constraints φ(q, p, t) of a Hamiltonian model.
    #[serde(default)]
    pub constraints: Vec<Expression>,
    /// Loads `force(F, p)` and `torque(T, R)`.
    #[serde(default)]
    pub loads: Vec<Expression>,
    /// Indexed outputs, `length[i] = leg[i].norm()`.
    #[serde(default)]
    pub outputs: Vec<IndexedExpression>,
    /// Where the block's definitions go among the model's own: before its definition of this
    /// index (the macro keeps the order the entries are written in); `None`, after all of
    /// them (a model file).
    #[serde(skip)]
    pub definitions_at: Option<usize>,
}

/// A definition or output of a [`Repeat`] block: an indexed name and its value.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexedExpression {
    /// `leg[i]` (or a plain name, the same in every instance).
    pub name: Expression,
    /// The value.
    pub value: Expression,
}

/// Every expression of the spec's own entries (`expressions!(spec)`), or a mutable reference
/// to each (`expressions!(spec, mut)`).
macro_rules! expressions {
    ($spec:expr $(, $m:tt)?) => {{
        let spec = & $($m)? $spec;
        let lists = [
            & $($m)? spec.holonomic,
            & $($m)? spec.nonholonomic,
            & $($m)? spec.constraints,
            & $($m)? spec.forces,
            & $($m)? spec.nonideal,
            & $($m)? spec.loads,
            & $($m)? spec.servo,
            & $($m)? spec.kinematics,
        ];
        let named = (& $($m)? spec.definitions)
            .into_iter()
            .chain(& $($m)? spec.outputs)
            .map(|d| & $($m)? d.value);
        (& $($m)? spec.lagrangian)
            .into_iter()
            .chain(& $($m)? spec.hamiltonian)
            .chain(lists.into_iter().flatten())
            .chain(named)
    }};
}

/// `spec` with its [`Repeat`] blocks, indexed names and sums expanded (see the module docs):
/// `spec` itself, borrowed, when it has none of them (a spec printed from SymPy), a rewritten
/// copy otherwise.
///
/// # Errors
/// At the span of the culprit, every one found: a range or index that is not an integer
/// expression of the loop variables, a name that is not `NAME` or `NAME[..]`, a sum not of
/// the form `(a..b).map(|i| e).sum()`, a negative index, or more than [`MAX_INSTANCES`]
/// instances in all.
pub fn expand(spec: &ModelSpec) -> Result<Cow<'_, ModelSpec>, Errors> {
    if spec.repeat.is_empty() && !expressions!(spec).any(|e| indexed_or_summed(&e.0)) {
        return Ok(Cow::Borrowed(spec));
    }
    let mut expander = Expander::default();
    let mut out = spec.clone();
    out.repeat.clear();
    for expression in expressions!(out, mut) {
        expander.rewrite(expression, &[]);
    }
    let mut placed: Vec<(usize, Vec<NamedExpression>)> = Vec::new();
    for block in &spec.repeat {
        let definitions = expander.block(block, &mut out);
        let at = block.definitions_at.unwrap_or(usize::MAX);
        placed.push((at.min(spec.definitions.len()), definitions));
    }
    // Each block's definitions where the block stands (a stable sort keeps blocks in order).
    placed.sort_by_key(|&(at, _)| at);
    let own = std::mem::take(&mut out.definitions);
    let mut blocks = placed.into_iter().peekable();
    for (j, definition) in own.into_iter().enumerate() {
        while let Some((_, definitions)) = blocks.next_if(|&(at, _)| at == j) {
            out.definitions.extend(definitions);
        }
        out.definitions.push(definition);
    }
    out.definitions
        .extend(blocks.flat_map(|(_, definitions)| definitions));
    expander.errors.finish(out).map(Cow::Owned)
}

/// Whether `expr` holds what the expansion rewrites outside a block: an indexed name or a sum
/// (a loop variable is one only inside its block).
fn indexed_or_summed(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Index(_) => self.0 = true,
                Expr::MethodCall(call) if call.method == "sum" => self.0 = true,
                _ if self.0 => {}
                _ => syn::visit::visit_expr(self, expr),
            }
        }
    }
    let mut finder = Finder(false);
    finder.visit_expr(expr);
    finder.0
}

/// The expansion's state: the errors found and the instances made so far.
#[derive(Default)]
struct Expander {
    errors: Errors,
    instances: usize,
    /// Whether [`MAX_INSTANCES`] was passed (reported once; every later range is empty).
    exhausted: bool,
}

/// The loop variables in scope, innermost last, with their values.
type Bindings = [(Ident, i64)];

impl Expander {
    /// Appends every instance of `block` to `out`, but for its definitions, which it returns.
    fn block(&mut self, block: &Repeat, out: &mut ModelSpec) -> Vec<NamedExpression> {
        let mut definitions = Vec::new();
        let Some(range) = self.range(&block.range.0, &[]) else {
            return definitions;
        };
        for k in range {
            let bindings = [(block.index.0.clone(), k)];
            let names = |this: &mut Self, list: &[Expression], into: &mut Vec<Name>| {
                into.extend(list.iter().filter_map(|e| this.name(&e.0, &bindings)));
            };
            names(self, &block.coordinates, &mut out.coordinates);
            names(self, &block.momenta, &mut out.momenta);
            names(self, &block.inputs, &mut out.inputs);
            let lists = [
                (&block.holonomic, &mut out.holonomic),
                (&block.nonholonomic, &mut out.nonholonomic),
                (&block.constraints, &mut out.constraints),
                (&block.loads, &mut out.loads),
            ];
            for (list, into) in lists {
                into.extend(list.iter().map(|e| self.instance(e, &bindings)));
            }
            let named = [
                (&block.definitions, &mut definitions),
                (&block.outputs, &mut out.outputs),
            ];
            for (list, into) in named {
                into.extend(list.iter().filter_map(|d| {
                    let name = self.name(&d.name.0, &bindings)?;
                    let value = self.instance(&d.value, &bindings);
                    Some(NamedExpression { name, value })
                }));
            }
        }
        definitions
    }

    /// `expression` for one instance.
    fn instance(&mut self, expression: &Expression, bindings: &Bindings) -> Expression {
        let mut copy = expression.clone();
        self.rewrite(&mut copy, bindings);
        copy
    }

    /// Rewrites `expression` in place under `bindings`.
    fn rewrite(&mut self, expression: &mut Expression, bindings: &Bindings) {
        let mut rewriter = Rewriter {
            expander: self,
            bindings: bindings.to_vec(),
        };
        rewriter.visit_expr_mut(&mut expression.0);
    }

    /// The name `expr` stands for: `NAME` as is, `NAME[i][j]` as `NAME_i_j`.
    fn name(&mut self, expr: &Expr, bindings: &Bindings) -> Option<Name> {
        match self.indexed(expr, bindings) {
            Some(ident) => Some(Name(ident)),
            None => {
                self.errors.push(
                    expr.span(),
                    "expected a name, `NAME`, or an indexed name, `NAME[i]`",
                );
                None
            }
        }
    }

    /// `NAME` or `NAME[..]..` as one identifier, `None` for any other form (an index that is
    /// not an integer is reported here).
    fn indexed(&mut self, expr: &Expr, bindings: &Bindings) -> Option<Ident> {
        match expr {
            Expr::Path(path) => path.path.get_ident().cloned(),
            Expr::Index(index) => {
                let base = self.indexed(&index.expr, bindings)?;
                let k = self.integer(&index.index, bindings)?;
                if k < 0 {
                    self.errors.push(
                        index.index.span(),
                        format!("the index of `{base}[..]` is {k}; indices start at 0"),
                    );
                    return None;
                }
                Some(Ident::new(&format!("{base}_{k}"), base.span()))
            }
            _ => None,
        }
    }

    /// The value of an integer expression of the loop variables, or an error at its span.
    fn integer(&mut self, expr: &Expr, bindings: &Bindings) -> Option<i64> {
        let value = evaluate(expr, bindings);
        if value.is_none() {
            let variables: Vec<String> = bindings.iter().map(|(i, _)| i.to_string()).collect();
            self.errors.push(
                expr.span(),
                format!(
                    "an index or range bound must be an integer expression of integer literals{} \
                     (`+ - * / %`)",
                    match variables.is_empty() {
                        true => String::new(),
                        false => format!(" and the loop variables ({})", variables.join(", ")),
                    }
                ),
            );
        }
        value
    }

    /// The integers of `start..end` or `start..=end`, counted against [`MAX_INSTANCES`].
    fn range(&mut self, expr: &Expr, bindings: &Bindings) -> Option<std::ops::Range<i64>> {
        let Expr::Range(range) = peel(expr) else {
            self.errors
                .push(expr.span(), "expected a range of integers, `start..end`");
            return None;
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            self.errors
                .push(expr.span(), "a range needs both bounds, `start..end`");
            return None;
        };
        let start = self.integer(start, bindings)?;
        let mut end = self.integer(end, bindings)?;
        if matches!(range.limits, syn::RangeLimits::Closed(_)) {
            end = end.checked_add(1)?;
        }
        if self.exhausted {
            return None;
        }
        let count = usize::try_from(end.saturating_sub(start)).unwrap_or(0);
        self.instances = self.instances.saturating_add(count);
        if self.instances > MAX_INSTANCES {
            self.exhausted = true;
            self.errors.push(
                expr.span(),
                format!(
                    "the repetitions of this model make more than {MAX_INSTANCES} instances \
                     (blocks and sum terms together)"
                ),
            );
            return None;
        }
        Some(start..end.max(start))
    }
}

/// `expr` without the parentheses around it.
fn peel(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(inner) => peel(&inner.expr),
        Expr::Group(inner) => peel(&inner.expr),
        _ => expr,
    }
}

/// An integer expression of literals and `bindings`; `None` for any other form, a division by
/// zero or an overflow.
fn evaluate(expr: &Expr, bindings: &Bindings) -> Option<i64> {
    match peel(expr) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => int.base10_parse().ok(),
        Expr::Path(path) => {
            let ident = path.path.get_ident()?;
            bindings
                .iter()
                .rev()
                .find(|(i, _)| i == ident)
                .map(|&(_, k)| k)
        }
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => evaluate(expr, bindings)?.checked_neg(),
        Expr::Binary(binary) => {
            let (a, b) = (
                evaluate(&binary.left, bindings)?,
                evaluate(&binary.right, bindings)?,
            );
            match binary.op {
                syn::BinOp::Add(_) => a.checked_add(b),
                syn::BinOp::Sub(_) => a.checked_sub(b),
                syn::BinOp::Mul(_) => a.checked_mul(b),
                syn::BinOp::Div(_) => a.checked_div(b),
                syn::BinOp::Rem(_) => a.checked_rem(b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Rewrites one expression: indexed names, loop variables and sums.
struct Rewriter<'a> {
    expander: &'a mut Expander,
    bindings: Vec<(Ident, i64)>,
}

impl Rewriter<'_> {
    /// `(a..b).map(|i| e).sum()` as e(a) + … + e(b − 1) (0.0 for an empty range), or `None`
    /// when `call` is not of that form.
    fn sum(&mut self, call: &syn::ExprMethodCall) -> Option<Expr> {
        let Expr::MethodCall(map) = peel(&call.receiver) else {
            return None;
        };
        let [Expr::Closure(closure)] = map.args.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if map.method != "map" || !call.args.is_empty() || closure.inputs.len() != 1 {
            return None;
        }
        let syn::Pat::Ident(variable) = &closure.inputs[0] else {
            return None;
        };
        let span = call.span();
        let Some(range) = self.expander.range(&map.receiver, &self.bindings) else {
            // Reported by `range`; the sum stands as 0 so that the rest is still checked.
            return Some(syn::parse_quote_spanned!(span=> 0.0));
        };
        let terms: Vec<Expr> = range
            .map(|k| {
                let mut term = (*closure.body).clone();
                self.bindings.push((variable.ident.clone(), k));
                self.visit_expr_mut(&mut term);
                self.bindings.pop();
                syn::parse_quote_spanned!(span=> (#term))
            })
            .collect();
        Some(balanced_sum(terms, span))
    }
}

/// The sum of `terms` as a balanced tree of `+`, so that its depth grows as log₂ of their
/// number (the parser and the derivation recurse over it); `0.0` for none.
fn balanced_sum(mut terms: Vec<Expr>, span: proc_macro2::Span) -> Expr {
    if terms.is_empty() {
        return syn::parse_quote_spanned!(span=> 0.0);
    }
    while terms.len() > 1 {
        let mut pairs = Vec::with_capacity(terms.len().div_ceil(2));
        let mut rest = terms.into_iter();
        while let Some(left) = rest.next() {
            pairs.push(match rest.next() {
                Some(right) => Expr::Paren(syn::ExprParen {
                    attrs: Vec::new(),
                    paren_token: syn::token::Paren(span),
                    expr: Box::new(Expr::Binary(syn::ExprBinary {
                        attrs: Vec::new(),
                        left: Box::new(left),
                        op: syn::BinOp::Add(syn::Token![+](span)),
                        right: Box::new(right),
                    })),
                }),
                None => left,
            });
        }
        terms = pairs;
    }
    terms.pop().expect("one term left")
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Index(index) => {
                let whole = Expr::Index(index.clone());
                if let Some(ident) = self.expander.indexed(&whole, &self.bindings) {
                    *expr = syn::parse_quote!(#ident);
                }
            }
            Expr::Path(path) => {
                let value = (path.path.get_ident())
                    .and_then(|ident| self.bindings.iter().rev().find(|(i, _)| i == ident))
                    .map(|&(_, k)| k);
                if let Some(k) = value {
                    let literal = syn::LitFloat::new(&format!("{k}.0"), path.span());
                    *expr = syn::parse_quote!(#literal);
                }
            }
            Expr::MethodCall(call) if call.method == "sum" => match self.sum(call) {
                Some(sum) => *expr = sum,
                None => {
                    self.expander.errors.push(
                        call.span(),
                        "a sum is written `(start..end).map(|i| EXPR).sum()`",
                    );
                }
            },
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }
}
