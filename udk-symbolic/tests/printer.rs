//! The plain-text printer writes what the DAG means: printed text, evaluated by an
//! independent reader of its grammar, has the value of the expression it came from.

mod emit_support;

use emit_support::{build, tree, State};
use proptest::prelude::*;
use udk_symbolic::emit::{text, Names};
use udk_symbolic::expr::{Pool, Symbol};

/// Reads the printer's grammar (`+ - * / ^`, unary minus, calls, `dot(x)`, names, numbers,
/// with `^` binding tighter than unary minus) and evaluates it.
struct Reader<'a> {
    s: &'a [u8],
    at: usize,
    value: &'a dyn Fn(&str) -> f64,
}

impl Reader<'_> {
    fn peek(&mut self) -> Option<u8> {
        while self.s.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) {
        assert_eq!(self.peek(), Some(c), "at {} of {:?}", self.at, self.text());
        self.at += 1;
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(self.s).into_owned()
    }

    fn sum(&mut self) -> f64 {
        let mut v = self.product();
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let r = self.product();
            v = if c == b'+' { v + r } else { v - r };
        }
        v
    }

    fn product(&mut self) -> f64 {
        let mut v = self.unary();
        while let Some(c @ (b'*' | b'/')) = self.peek() {
            self.at += 1;
            let r = self.unary();
            v = if c == b'*' { v * r } else { v / r };
        }
        v
    }

    fn unary(&mut self) -> f64 {
        if self.peek() == Some(b'-') {
            self.at += 1;
            return -self.unary();
        }
        self.power()
    }

    fn power(&mut self) -> f64 {
        let base = self.atom();
        if self.peek() == Some(b'^') {
            self.at += 1;
            let e = self.unary();
            return base.powf(e);
        }
        base
    }

    fn atom(&mut self) -> f64 {
        match self.peek() {
            Some(b'(') => {
                self.at += 1;
                let v = self.sum();
                self.eat(b')');
                v
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.at;
                while let Some(&c) = self.s.get(self.at) {
                    let exponent_sign =
                        (c == b'-' || c == b'+') && matches!(self.s[self.at - 1], b'e' | b'E');
                    if !(c.is_ascii_digit() || c == b'.' || c == b'e' || exponent_sign) {
                        break;
                    }
                    self.at += 1;
                }
                std::str::from_utf8(&self.s[start..self.at])
                    .unwrap()
                    .parse()
                    .unwrap_or_else(|e| panic!("number in {:?}: {e}", self.text()))
            }
            _ => {
                let start = self.at;
                while let Some(&c) = self.s.get(self.at) {
                    if !(c.is_ascii_alphanumeric() || c == b'_') {
                        break;
                    }
                    self.at += 1;
                }
                let name = std::str::from_utf8(&self.s[start..self.at])
                    .unwrap()
                    .to_owned();
                assert!(!name.is_empty(), "at {} of {:?}", self.at, self.text());
                if self.peek() != Some(b'(') {
                    return (self.value)(&name);
                }
                self.at += 1;
                if name == "dot" {
                    let inner = self.name();
                    self.eat(b')');
                    return (self.value)(&format!("dot({inner})"));
                }
                let mut args = vec![self.sum()];
                while self.peek() == Some(b',') {
                    self.at += 1;
                    args.push(self.sum());
                }
                self.eat(b')');
                apply(&name, &args)
            }
        }
    }

    fn name(&mut self) -> String {
        self.peek();
        let start = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_alphanumeric) {
            self.at += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.at]).into_owned()
    }
}

fn apply(name: &str, a: &[f64]) -> f64 {
    match (name, a) {
        ("sin", [x]) => x.sin(),
        ("cos", [x]) => x.cos(),
        ("tan", [x]) => x.tan(),
        ("atan", [x]) => x.atan(),
        ("tanh", [x]) => x.tanh(),
        ("sinh", [x]) => x.sinh(),
        ("abs", [x]) => x.abs(),
        ("sqrt", [x]) => x.sqrt(),
        ("ln", [x]) => x.ln(),
        ("exp", [x]) => x.exp(),
        ("atan2", [y, x]) => y.atan2(*x),
        _ => panic!("unknown function {name}/{}", a.len()),
    }
}

fn evaluate(printed: &str, state: &State) -> f64 {
    let value = |name: &str| match name {
        "x0" | "x1" | "x2" => state.value(Symbol::Coordinate(name[1..].parse().unwrap())),
        "dot(x1)" => state.value(Symbol::Velocity(1)),
        "t" => state.t,
        "c0" => state.c[0],
        _ => panic!("unknown name {name} in {printed:?}"),
    };
    let mut reader = Reader {
        s: printed.as_bytes(),
        at: 0,
        value: &value,
    };
    let v = reader.sum();
    assert_eq!(reader.peek(), None, "trailing text in {printed:?}");
    v
}

fn names() -> Names {
    Names {
        coordinates: vec!["x0".into(), "x1".into(), "x2".into()],
        momenta: vec![],
        parameters: vec!["c0".into()],
        ..Names::default()
    }
}

#[test]
fn a_negated_sum_keeps_its_parentheses() {
    let mut pool = Pool::new();
    let (a, b) = (
        pool.symbol(Symbol::Coordinate(0)),
        pool.symbol(Symbol::Coordinate(1)),
    );
    let sum = pool.add(&[a, b]);
    let negated = pool.neg(sum);
    assert_eq!(text(&pool, negated, &names()), "-(x0 + x1)");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn printed_text_has_the_value_of_the_expression(t in tree(), seed in 0u64..1000) {
        let mut pool = Pool::new();
        let id = build(&mut pool, &t);
        let state = State::random(seed, 3, 1);
        let expected = pool.eval(id, &|s| state.value(s));
        let printed = text(&pool, id, &names());
        let got = evaluate(&printed, &state);
        prop_assert!(
            (got - expected).abs() <= 1e-9 * (1.0 + expected.abs()),
            "{printed} = {got}, expected {expected}"
        );
    }
}
