//! LaTeX and plain-text printers for expressions, with minimal parentheses.
//!
//! Both print sums with their signs (`a - b`, never `a + -1*b`), products with negative
//! powers as fractions (`\frac{a}{b}` in LaTeX, `a/b` in text), integer powers as `x^2`,
//! square roots as `\sqrt{x}` / `sqrt(x)`, and a positive term first.

use super::names::Names;
use super::subexpressions::Subexpressions;
use super::terms::{signed_terms, term};
use crate::expr::{ExprId, Func, Node, Number, Pool};
use rustc_hash::FxHashMap as HashMap;

/// The LaTeX form of expression `id` (math mode, no delimiters), e.g.
/// `\frac{m \dot{x}^{2}}{2} - g m y`.
///
/// A node named in `names.aliases` (a definition's component, of a definition before
/// `names.alias_limit`) prints as its name where that is shorter.
pub fn latex(pool: &Pool, id: ExprId, names: &Names) -> String {
    Printer::new(pool, names, true, &mut Subexpressions::none()).string(id)
}

/// The plain-text form of expression `id`, e.g. `m*dot(x)^2/2 - g*m*y`.
///
/// Operators are `+ - * / ^` with the usual precedence (`^` binds tightest, `-x^2` is
/// −(x²)); functions are written `sin(x)`, `atan2(y, x)`, `sqrt(x)`.
/// A node named in `names.aliases` prints as its name where that is shorter, as in [`latex`].
pub fn text(pool: &Pool, id: ExprId, names: &Names) -> String {
    Printer::new(pool, names, false, &mut Subexpressions::none()).string(id)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Text,
    Latex,
}

/// Binding strength of a printed expression, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Sum,
    Product,
    Neg,
    Power,
    Atom,
}

#[derive(Clone, Debug)]
struct Printed {
    text: String,
    prec: Prec,
}

fn printed(text: String, prec: Prec) -> Printed {
    Printed { text, prec }
}

/// A printer of many expressions of one pool under one set of names: each node is printed
/// once, however many of the expressions contain it, so that printing the n² entries of a
/// mass matrix costs the size of their shared DAG, not n² times it. The nodes that
/// `subexpressions` names print as their names, each defined once (see [`Subexpressions`]).
pub(crate) struct Printer<'a> {
    pool: &'a Pool,
    names: &'a Names,
    style: Style,
    memo: HashMap<ExprId, Printed>,
    /// The terms printed, as [`Printer::signed`] gives them.
    terms: HashMap<ExprId, (bool, Printed)>,
    subexpressions: &'a mut Subexpressions,
    /// The node whose value is being printed for its definition or its own line: the one
    /// named node not to print as its name.
    top: Option<ExprId>,
}

impl<'a> Printer<'a> {
    /// A LaTeX printer (see [`latex`]) if `latex`, else a plain-text printer (see [`text`]),
    /// naming the nodes of `subexpressions`.
    pub(crate) fn new(
        pool: &'a Pool,
        names: &'a Names,
        latex: bool,
        subexpressions: &'a mut Subexpressions,
    ) -> Self {
        Printer {
            pool,
            names,
            style: if latex { Style::Latex } else { Style::Text },
            memo: HashMap::default(),
            terms: HashMap::default(),
            subexpressions,
            top: None,
        }
    }

    /// `id` printed.
    pub(crate) fn string(&mut self, id: ExprId) -> String {
        self.print(id).text
    }

    /// `id` printed as the value of a line labelled (`text`, `latex`): in full the first time
    /// a named node is printed, and the label becomes its name; as its name after that.
    pub(crate) fn line(&mut self, id: ExprId, text: &str, latex: &str) -> String {
        let subexpressions = &self.subexpressions;
        if !subexpressions.is_named(id)
            || subexpressions.name(id).is_some()
            || self.alias(id).is_some()
        {
            return self.string(id);
        }
        let outer = self.top.replace(id);
        let value = self.print(id).text;
        self.top = outer;
        (self.subexpressions).label(id, text.to_owned(), latex.to_owned());
        value
    }

    /// The definitions of the named nodes printed since the last call (name, value), each
    /// after the ones it uses: the sheet writes them before the line being printed.
    pub(crate) fn take_definitions(&mut self) -> Vec<(String, String)> {
        self.subexpressions.take_pending()
    }

    /// The name of `id` if it is a named node (not the one being defined) without a
    /// definition's name in scope; the first time, its definition is printed and queued.
    fn named(&mut self, id: ExprId) -> Option<Printed> {
        if !self.subexpressions.is_named(id) || self.alias(id).is_some() {
            return None;
        }
        if let Some((text, latex)) = self.subexpressions.name(id) {
            let name = match self.style {
                Style::Text => text,
                Style::Latex => latex,
            };
            return Some(printed(name.clone(), Prec::Atom));
        }
        if self.top == Some(id) {
            return None;
        }
        let outer = self.top.replace(id);
        let value = self.print(id).text;
        self.top = outer;
        let name = (self.subexpressions).define(id, value, self.style == Style::Latex);
        Some(printed(name, Prec::Atom))
    }

    fn print(&mut self, id: ExprId) -> Printed {
        if let Some(name) = self.named(id) {
            return name;
        }
        if let Some(p) = self.memo.get(&id) {
            return p.clone();
        }
        // A definition's name stands for its value where the name is the shorter. A name that
        // is surely the shorter is taken without printing the value: a large model's
        // definitions would otherwise each print every definition below them in full.
        let p = match self.short_name(id) {
            Some(name) => name,
            None => {
                let p = self.expression(id);
                match self.alias(id).filter(|name| name.len() < p.text.len()) {
                    Some(name) => printed(name.clone(), Prec::Atom),
                    None => p,
                }
            }
        };
        // A named node's value is printed once, so it is not kept.
        if self.top != Some(id) {
            self.memo.insert(id, p.clone());
        }
        p
    }

    /// The name of `id` when [`Printer::exceeds`] shows it shorter than `id`'s value.
    fn short_name(&self, id: ExprId) -> Option<Printed> {
        (self.alias(id))
            .filter(|name| self.exceeds(id, name.len()))
            .map(|name| printed(name.clone(), Prec::Atom))
    }

    /// Whether a definition before `names.alias_limit` or a named subexpression names `id`.
    fn aliased(&self, id: ExprId) -> bool {
        self.alias(id).is_some() || self.subexpressions.is_named(id)
    }

    /// The name of `id` in this printer's style, if a definition before `names.alias_limit`
    /// names it.
    fn alias(&self, id: ExprId) -> Option<&'a String> {
        let names = self.names;
        (names.aliases.get(&id))
            .filter(|&&(_, _, index)| index < names.alias_limit)
            .map(|(text, latex, _)| match self.style {
                Style::Text => text,
                Style::Latex => latex,
            })
    }

    /// Whether `id` prints to more than `length` characters, by a lower bound on its length
    /// that stops as soon as it exceeds `length` (so at most `length` + 1 nodes are visited,
    /// and the recursion is at most that deep): symbols, numbers outside products and
    /// named nodes count at least 1, a sum's separators 1 each, a call's name 1.
    fn exceeds(&self, id: ExprId, length: usize) -> bool {
        let mut count = 0;
        self.bound(id, length, &mut count, false, false);
        count > length
    }

    /// Adds a lower bound on the printed length of `id` to `count`, stopping once it exceeds
    /// `length`; `in_product`: a number there (a coefficient) may not be printed at all;
    /// `named`: a definition's name may stand for `id` (not for the node being printed).
    fn bound(&self, id: ExprId, length: usize, count: &mut usize, in_product: bool, named: bool) {
        if *count > length {
            return;
        }
        if named && self.aliased(id) {
            *count += 1;
            return;
        }
        match self.pool.get(id) {
            Node::Number(_) => *count += usize::from(!in_product),
            Node::Symbol(_) => *count += 1,
            Node::Add(terms) => {
                *count += terms.len() - 1;
                for &t in terms.iter() {
                    self.bound(t, length, count, false, true);
                }
            }
            Node::Mul(factors) => {
                for &f in factors.iter() {
                    self.bound(f, length, count, true, true);
                }
            }
            Node::Pow(base, _) => self.bound(*base, length, count, false, true),
            Node::Call(_, args) => {
                *count += 1;
                for &a in args.iter() {
                    self.bound(a, length, count, false, true);
                }
            }
            Node::Shared(x) => self.bound(*x, length, count, in_product, named),
        }
    }

    /// `id` printed as an expression, not as a definition's name.
    fn expression(&mut self, id: ExprId) -> Printed {
        match self.pool.get(id) {
            Node::Number(n) => self.number(*n),
            Node::Symbol(s) => printed(
                match self.style {
                    Style::Text => self.names.text(*s),
                    Style::Latex => self.names.latex(*s),
                },
                Prec::Atom,
            ),
            Node::Add(terms) => self.sum(terms, false),
            Node::Mul(_) | Node::Pow(..) => {
                let (negative, p) = self.signed(id);
                if negative {
                    printed(format!("-{}", self.at_least(&p, Prec::Product)), Prec::Neg)
                } else {
                    p
                }
            }
            Node::Call(f, args) => self.call(*f, args),
            Node::Shared(x) => self.expression(*x),
        }
    }

    /// `text` wrapped in parentheses.
    fn paren(&self, text: &str) -> String {
        match self.style {
            Style::Text => format!("({text})"),
            Style::Latex => format!("\\left({text}\\right)"),
        }
    }

    /// `p`'s text, parenthesized if it binds weaker than `min`.
    fn at_least(&self, p: &Printed, min: Prec) -> String {
        if p.prec < min {
            self.paren(&p.text)
        } else {
            p.text.clone()
        }
    }

    fn number(&self, n: Number) -> Printed {
        let negative = n.to_f64() < 0.0;
        let magnitude = match n {
            Number::Rational(p, 1) => printed(p.unsigned_abs().to_string(), Prec::Atom),
            Number::Rational(p, q) => match self.style {
                Style::Text => printed(format!("{}/{q}", p.unsigned_abs()), Prec::Product),
                Style::Latex => {
                    printed(format!("\\frac{{{}}}{{{q}}}", p.unsigned_abs()), Prec::Atom)
                }
            },
            Number::Float(x) => printed(self.float(x.abs()), Prec::Atom),
        };
        if negative {
            printed(format!("-{}", magnitude.text), Prec::Neg)
        } else {
            magnitude
        }
    }

    /// A non-negative float, shortest round-trip digits.
    fn float(&self, x: f64) -> String {
        let s = format!("{x:?}");
        match (self.style, s.split_once('e')) {
            (Style::Latex, Some((mantissa, exponent))) => {
                format!("{mantissa} \\times 10^{{{exponent}}}")
            }
            _ => s,
        }
    }

    /// The sign and the magnitude of a term: `−c·x…` is (true, c·x…).
    fn signed(&mut self, id: ExprId) -> (bool, Printed) {
        if let Some(t) = self.terms.get(&id) {
            return t.clone();
        }
        let t = self.signed_term(id);
        if self.top != Some(id) {
            self.terms.insert(id, t.clone());
        }
        t
    }

    /// [`Printer::signed`], not kept.
    fn signed_term(&mut self, id: ExprId) -> (bool, Printed) {
        // A named term is its name, not its product written out again.
        if let Some(name) = self.named(id).or_else(|| self.short_name(id)) {
            return (false, name);
        }
        // A sum that a definition names is printed as that name, never flipped into place:
        // written out with its signs changed it would be printed again in full wherever it
        // is used, and again inside each such copy.
        let t = match term(self.pool, id, true) {
            Some(t) if t.flipped.is_some_and(|i| self.aliased(t.factors[i])) => {
                term(self.pool, id, false)
            }
            t => t,
        };
        if let Some(t) = t {
            return (
                t.negative,
                self.product(t.coefficient, t.factors, t.flipped),
            );
        }
        match self.pool.get(id) {
            Node::Number(n) if n.is_negative() => (true, self.number(-*n)),
            Node::Pow(..) => (false, self.product(None, &[id], None)),
            _ => (false, self.print(id)),
        }
    }

    /// The sum of `terms`, each with its sign changed if `flip`, a positive term first.
    fn sum(&mut self, terms: &[ExprId], flip: bool) -> Printed {
        let signed = signed_terms(terms, flip, |t| self.signed(t));
        let mut out = String::new();
        for (k, (negative, p)) in signed.iter().enumerate() {
            let sign = match (k, negative) {
                (0, false) => "",
                (0, true) => "-",
                (_, false) => " + ",
                (_, true) => " - ",
            };
            out.push_str(sign);
            out.push_str(&self.at_least(p, Prec::Product));
        }
        printed(out, Prec::Sum)
    }

    /// coefficient · Π factors (coefficient non-negative), negative powers as a fraction.
    /// The factor at index `flipped`, a sum, has the signs of its terms changed.
    fn product(
        &mut self,
        coefficient: Option<Number>,
        factors: &[ExprId],
        flipped: Option<usize>,
    ) -> Printed {
        let mut numerator = Vec::new();
        let mut denominator = Vec::new();
        match coefficient {
            Some(Number::Rational(p, q)) => {
                if p != 1 {
                    numerator.push(printed(p.to_string(), Prec::Atom));
                }
                if q != 1 {
                    denominator.push(printed(q.to_string(), Prec::Atom));
                }
            }
            Some(Number::Float(x)) => numerator.push(printed(self.float(x), Prec::Atom)),
            None => {}
        }
        for (i, &f) in factors.iter().enumerate() {
            if let Some(name) = self.named(f) {
                numerator.push(name);
                continue;
            }
            match self.pool.get(f) {
                Node::Add(terms) if flipped == Some(i) => numerator.push(self.sum(terms, true)),
                Node::Pow(base, exponent) => match self.pool.get(*exponent) {
                    Node::Number(Number::Rational(p, q)) if *p < 0 => {
                        denominator.push(self.power(*base, Number::Rational(-p, *q)))
                    }
                    Node::Number(e) => numerator.push(self.power(*base, *e)),
                    _ => {
                        let (b, e) = (self.print(*base), self.print(*exponent));
                        numerator.push(self.raise(&b, &e));
                    }
                },
                _ => numerator.push(self.print(f)),
            }
        }
        if denominator.is_empty() {
            return match numerator.len() {
                0 => printed("1".to_owned(), Prec::Atom),
                1 => numerator.remove(0),
                _ => printed(self.join(&numerator), Prec::Product),
            };
        }
        match self.style {
            Style::Latex => {
                let part = |factors: &[Printed]| match factors {
                    [] => "1".to_owned(),
                    [single] => single.text.clone(),
                    _ => self.join(factors),
                };
                let (num, den) = (part(&numerator), part(&denominator));
                printed(format!("\\frac{{{num}}}{{{den}}}"), Prec::Product)
            }
            Style::Text => {
                let num = match numerator.as_slice() {
                    [] => "1".to_owned(),
                    [single] if single.prec >= Prec::Product => single.text.clone(),
                    _ => self.join(&numerator),
                };
                let den = match denominator.as_slice() {
                    [single] if single.prec >= Prec::Power => single.text.clone(),
                    _ => format!("({})", self.join(&denominator)),
                };
                printed(format!("{num}/{den}"), Prec::Product)
            }
        }
    }

    /// Factors joined by `*` (text) or juxtaposition (LaTeX; `\cdot` before a digit).
    fn join(&self, factors: &[Printed]) -> String {
        let mut out = String::new();
        for (i, f) in factors.iter().enumerate() {
            let text = self.at_least(f, Prec::Power);
            if i > 0 {
                out.push_str(match self.style {
                    Style::Text => "*",
                    Style::Latex if text.starts_with(|c: char| c.is_ascii_digit()) => " \\cdot ",
                    Style::Latex => " ",
                });
            }
            out.push_str(&text);
        }
        out
    }

    /// base^e for a constant exponent e.
    fn power(&mut self, base: ExprId, e: Number) -> Printed {
        let b = self.print(base);
        if e.is_one() {
            return b;
        }
        if let (Style::Latex, Node::Call(f, args), Number::Rational(k, 1)) =
            (self.style, self.pool.get(base), e)
        {
            if k > 0 && !matches!(f, Func::Sqrt | Func::Abs) && !self.subexpressions.is_named(base)
            {
                let args = self.arguments(args);
                return printed(
                    format!("{}^{{{k}}}{}", latex_function(*f), self.paren(&args)),
                    Prec::Atom,
                );
            }
        }
        let e = self.number(e);
        self.raise(&b, &e)
    }

    fn raise(&self, b: &Printed, e: &Printed) -> Printed {
        let b = self.at_least(b, Prec::Atom);
        match self.style {
            Style::Text => printed(format!("{b}^{}", self.at_least(e, Prec::Atom)), Prec::Power),
            Style::Latex => printed(format!("{b}^{{{}}}", e.text), Prec::Power),
        }
    }

    fn arguments(&mut self, args: &[ExprId]) -> String {
        let args: Vec<String> = args.iter().map(|&a| self.print(a).text).collect();
        args.join(", ")
    }

    fn call(&mut self, f: Func, args: &[ExprId]) -> Printed {
        let inner = self.arguments(args);
        let text = match (self.style, f) {
            (Style::Text, _) => format!("{}({inner})", f.name()),
            (Style::Latex, Func::Sqrt) => format!("\\sqrt{{{inner}}}"),
            (Style::Latex, Func::Abs) => format!("\\left|{inner}\\right|"),
            (Style::Latex, _) => format!("{}{}", latex_function(f), self.paren(&inner)),
        };
        printed(text, Prec::Atom)
    }
}

/// The LaTeX command of a function written before its parenthesized arguments.
fn latex_function(f: Func) -> &'static str {
    match f {
        Func::Sin => "\\sin",
        Func::Cos => "\\cos",
        Func::Tan => "\\tan",
        Func::Asin => "\\arcsin",
        Func::Acos => "\\arccos",
        Func::Atan => "\\arctan",
        Func::Atan2 => "\\operatorname{atan2}",
        Func::Sinh => "\\sinh",
        Func::Cosh => "\\cosh",
        Func::Tanh => "\\tanh",
        Func::Exp => "\\exp",
        Func::Ln => "\\ln",
        Func::Abs => "\\operatorname{abs}",
        Func::Sqrt => "\\operatorname{sqrt}",
    }
}
