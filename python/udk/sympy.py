"""SymPy expressions printed into udk's expression language, for `udk.Model.from_sympy`.

The printer knows the SymPy functions that udk's language has (sin, cos, tan, asin, acos, atan,
atan2, sinh, cosh, tanh, exp, log, Abs, sqrt, integer and real powers, pi, E); any other
raises `UnsupportedError` naming it. A coordinate q(t) prints as its name, its derivative
q'(t) as `dot(q)`, the time as `t`.
"""


import itertools

import sympy
from sympy.core.function import AppliedUndef

from udk._udk import BadInputError

__all__ = ["UnsupportedError", "spec", "udk_expression"]


class UnsupportedError(BadInputError):
    """A SymPy expression with a function or object udk's language has no counterpart for."""


_FUNCTIONS = {
    sympy.sin: "sin",
    sympy.cos: "cos",
    sympy.tan: "tan",
    sympy.asin: "asin",
    sympy.acos: "acos",
    sympy.atan: "atan",
    sympy.atan2: "atan2",
    sympy.sinh: "sinh",
    sympy.cosh: "cosh",
    sympy.tanh: "tanh",
    sympy.exp: "exp",
    sympy.log: "ln",
    sympy.Abs: "abs",
}

_SUPPORTED = ", ".join(
    sorted(f.__name__ for f in _FUNCTIONS) + ["sqrt", "Pow", "pi", "E"]
)


def _identifier(name, what):
    if not (name.isidentifier() and name.isascii()):
        raise BadInputError(
            f"{what} `{name}` is not a name udk accepts (letters, digits and _, not "
            "starting with a digit): rename the SymPy symbol"
        )
    return name


def _name(symbol, what):
    """The udk name of a Symbol or of an undefined function of t such as q(t)."""
    if isinstance(symbol, str):
        return _identifier(symbol, what)
    if isinstance(symbol, AppliedUndef):
        return _identifier(symbol.func.__name__, what)
    if isinstance(symbol, sympy.Symbol):
        return _identifier(symbol.name, what)
    raise BadInputError(f"{what} `{symbol}` is neither a Symbol nor a function of time")


def _number(x):
    value = float(x)
    if value != value or value in (float("inf"), float("-inf")):
        raise UnsupportedError(f"the number `{x}` is not finite")
    text = repr(value)
    return f"({text})" if value < 0 else text


class _Printer:
    """Prints SymPy expressions into udk's language. A subexpression met again (SymPy's trees
    repeat them: the velocity of each link holds those of the links before) is printed once
    and its text reused; one of `shared` becomes a definition `x0`, `x1`, … (as SymPy's
    `cse` names them) in `definitions`, and its name is printed at every use."""

    def __init__(self, t, names):
        self.t = t
        # SymPy objects (Symbols, q(t)) to their udk names.
        self.names = names
        # Every expression printed (the names and t first) to its text.
        self.printed = {t: "t"} | names
        self.shared = {}
        # (name, text) of each shared subexpression, in the order printed: its own shared
        # subexpressions come first.
        self.definitions = []
        self._fresh = (f"x{i}" for i in itertools.count())
        self._taken = set(names.values()) | {"t"}

    def share(self, expressions, reserved=()):
        """Prints the subexpressions repeated in `expressions` as definitions, named apart
        from the model's names and `reserved`."""
        self.shared = _shared(expressions)
        self._taken |= set(reserved)

    def __call__(self, e):
        if not isinstance(e, sympy.Basic):
            e = sympy.sympify(e)
        text = self.printed.get(e)
        if text is None:
            text = self._print(e)
            if id(e) in self.shared:
                name = next(n for n in self._fresh if n not in self._taken)
                self.definitions.append((name, text))
                text = name
            self.printed[e] = text
        return text

    def _print(self, e):
        if e.is_Add:
            return "(" + " + ".join(map(self, e.args)) + ")"
        if e.is_Mul:
            return "(" + " * ".join(map(self, e.args)) + ")"
        if e.is_Pow:
            return self._power(*e.args)
        if e.func in _FUNCTIONS:
            return f"{_FUNCTIONS[e.func]}({', '.join(map(self, e.args))})"
        if isinstance(e, sympy.Derivative):
            (variable, count), = e.variable_count
            if variable == self.t and count == 1 and e.expr in self.names:
                return f"dot({self.names[e.expr]})"
            raise UnsupportedError(
                f"`{e}`: udk takes first time derivatives of the coordinates only"
            )
        if e is sympy.pi:
            return "PI"
        if e is sympy.E:
            return "exp(1.0)"
        if e.is_Integer:
            return _number(e) if abs(int(e)) < 2**53 else self._rational(e)
        if e.is_Rational:
            return self._rational(e)
        if e.is_Float:
            return _number(e)
        if isinstance(e, (sympy.Symbol, AppliedUndef)):
            raise BadInputError(
                f"`{e}` is neither a coordinate, an input, a parameter nor t: add it to "
                "`parameters`"
            )
        raise UnsupportedError(
            f"SymPy's `{type(e).__name__}` (in `{e}`) has no counterpart in udk's expression "
            f"language (supported: {_SUPPORTED})"
        )

    def _rational(self, e):
        # k/2ʲ (j ≤ 16) is printed as its exact decimal, which udk reads as the same exact
        # rational (`udk_symbolic::expr::Number::from_f64`), in fewer tokens: 1/2 as 0.5.
        if e.q & (e.q - 1) == 0 and e.q <= 2**16 and abs(e.p) < 2**53:
            return _number(e)
        return f"({_number(e.p)} / {_number(e.q)})"

    def _power(self, base, exponent):
        b = self(base)
        if exponent.is_Integer:
            return f"powi({b}, {int(exponent)})"
        if exponent == sympy.Rational(1, 2):
            return f"sqrt({b})"
        if exponent == sympy.Rational(-1, 2):
            return f"(1.0 / sqrt({b}))"
        return f"powf({b}, {self(exponent)})"


def _shared(expressions):
    """{id: object} of the compound subexpressions (sums, products, powers, functions) that
    occur more than once in `expressions`, not counting repeats inside a repeated one: one
    pass over the DAG of SymPy's trees. By identity (`id`), not by value: the repeats of a
    SymPy tree are the same objects, and equal objects that are not still print the same;
    SymPy's own hash would take as long as the printing. The objects are held, so that their
    ids stay theirs while the printer looks them up."""
    seen, repeated = set(), {}
    stack = [sympy.sympify(e) for e in expressions]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            if e.is_Add or e.is_Mul or e.is_Pow or e.func in _FUNCTIONS:
                repeated[id(e)] = e
            continue
        seen.add(id(e))
        # The coordinates q(t) have nothing to share.
        if not isinstance(e, AppliedUndef):
            stack.extend(e.args)
    return repeated


def udk_expression(expression, coordinates=(), inputs=(), parameters=(), t=None):
    """`expression` (SymPy) as a string of udk's expression language.

    `coordinates` and `inputs` are Symbols or functions of time q(t) (`dynamicsymbols`),
    `parameters` Symbols; t is `dynamicsymbols._t` when not given.

    Raises UnsupportedError naming a SymPy function udk's language lacks, BadInputError for
    a symbol that is none of those.
    """
    return _printer(coordinates, inputs, parameters, t)(expression)


def _printer(coordinates, inputs, parameters, t):
    if t is None:
        from sympy.physics.mechanics import dynamicsymbols

        t = dynamicsymbols._t
    names = {}
    for what, symbols in (("coordinate", coordinates), ("input", inputs), ("parameter", parameters)):
        for s in symbols:
            names[sympy.sympify(s)] = _name(s, what)
    return _Printer(t, names)


def spec(
    lagrangian,
    coordinates,
    holonomic=(),
    nonholonomic=(),
    inputs=(),
    parameters=None,
    forces=(),
    nonideal=(),
    outputs=None,
    name="SymPyModel",
    t=None,
):
    """The udk model spec (a dict, as `udk.Model.from_spec` takes) of a SymPy model.

    - `lagrangian`: L(q, q', t), a SymPy expression in the coordinates, their first time
      derivatives, the parameters and t;
    - `coordinates`: the n generalized coordinates, `dynamicsymbols` q(t) (or Symbols);
    - `holonomic`: expressions f(q, t) = 0; `nonholonomic`: expressions φ(q, q', t) = 0;
    - `inputs`: k run-time inputs u (`dynamicsymbols` or Symbols), usable in `forces` and
      `nonideal`, set with `model.u`;
    - `parameters`: {Symbol or name: value or None}; every other symbol is an error;
    - `forces`: n non-conservative generalized forces; `nonideal`: n entries of the non-ideal
      constraint force C (Udwadia & Phohomsiri 2006, eq 2.14);
    - `outputs`: {name: scalar expression} to evaluate with `model.outputs`;
    - `t`: the time symbol, `dynamicsymbols._t` when not given.

    A sum, product, power or function that occurs more than once (the same SymPy object)
    is printed once, as an entry of the spec's `definitions` named `x0`, `x1`, … apart from
    the model's names, and by that name wherever it occurs.

    Raises UnsupportedError naming a SymPy function udk's language lacks, BadInputError for
    an unknown symbol or a name udk does not accept.
    """
    parameters = dict(parameters or {})
    symbols = [sympy.Symbol(p) if isinstance(p, str) else p for p in parameters]
    printer = _printer(coordinates, inputs, symbols, t)
    # Subexpressions repeated across the model become definitions: udk reads each once (its
    # parse is a fifth of a small model's build), and the DAG is the same.
    everything = [lagrangian, *holonomic, *nonholonomic, *forces, *nonideal]
    everything += list((outputs or {}).values())
    printer.share(everything, reserved=outputs or {})
    spec = {
        "name": _identifier(name, "the model's name"),
        "coordinates": [_name(q, "coordinate") for q in coordinates],
        "parameters": [
            {"name": _name(s, "parameter")}
            | ({} if value is None else {"value": float(value)})
            for s, value in zip(symbols, parameters.values())
        ],
        "lagrangian": printer(lagrangian),
        "holonomic": [printer(f) for f in holonomic],
        "nonholonomic": [printer(f) for f in nonholonomic],
        "forces": [printer(f) for f in forces],
        "nonideal": [printer(f) for f in nonideal],
        "inputs": [_name(u, "input") for u in inputs],
        "outputs": [
            {"name": _identifier(k, "output"), "value": printer(v)}
            for k, v in (outputs or {}).items()
        ],
    }
    spec["definitions"] = [{"name": n, "value": v} for n, v in printer.definitions]
    return spec
