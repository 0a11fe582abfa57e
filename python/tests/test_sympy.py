"""Model.from_sympy against SymPy's own equations of motion (LagrangesMethod)."""

import numpy as np
import pytest

sympy = pytest.importorskip("sympy")
me = pytest.importorskip("sympy.physics.mechanics")

import udk  # noqa: E402
from udk.sympy import UnsupportedError, spec, udk_expression  # noqa: E402

t = me.dynamicsymbols._t


def double_pendulum():
    """A planar double pendulum by SymPy's mechanics: angles from the vertical."""
    q1, q2 = me.dynamicsymbols("q1 q2")
    m1, m2, l1, l2, g = sympy.symbols("m1 m2 l1 l2 g")
    x1, y1 = l1 * sympy.sin(q1), -l1 * sympy.cos(q1)
    x2, y2 = x1 + l2 * sympy.sin(q2), y1 - l2 * sympy.cos(q2)
    kinetic = (m1 * (x1.diff(t) ** 2 + y1.diff(t) ** 2)
               + m2 * (x2.diff(t) ** 2 + y2.diff(t) ** 2)) / 2
    potential = g * (m1 * y1 + m2 * y2)
    values = {m1: 1.3, m2: 0.7, l1: 1.1, l2: 0.9, g: 9.81}
    return kinetic - potential, [q1, q2], [], values


def particle_on_circle():
    """A particle in a vertical plane held on a circle x² + y² = l² (a holonomic constraint,
    solved by SymPy with a Lagrange multiplier)."""
    x, y = me.dynamicsymbols("x y")
    m, g, l = sympy.symbols("m g l")
    lagrangian = m * (x.diff(t) ** 2 + y.diff(t) ** 2) / 2 - m * g * y
    values = {m: 2.0, g: 9.81, l: 1.5}
    return lagrangian, [x, y], [x**2 + y**2 - l**2], values


def sympy_acceleration(lagrangian, coordinates, holonomic, values, q, qd):
    """q̈ of SymPy's LagrangesMethod at (q, q̇), multipliers eliminated by its own solve."""
    lm = me.LagrangesMethod(lagrangian, coordinates, hol_coneqs=holonomic or None)
    lm.form_lagranges_equations()
    speeds = [c.diff(t) for c in coordinates]
    at = dict(values) | dict(zip(coordinates, q)) | dict(zip(speeds, qd))
    rhs = lm.rhs()
    n = len(coordinates)
    return np.array([float(sympy.N(rhs[n + i].subs(at), 30)) for i in range(n)])


@pytest.mark.parametrize("system", [double_pendulum, particle_on_circle])
def test_from_sympy_matches_lagranges_method(system):
    lagrangian, coordinates, holonomic, values = system()
    model = udk.Model.from_sympy(
        lagrangian, coordinates, holonomic=holonomic, parameters=values
    )
    if holonomic:
        angle, speed = 0.4, 0.8
        q = [1.5 * np.sin(angle), -1.5 * np.cos(angle)]
        qd = [1.5 * np.cos(angle) * speed, 1.5 * np.sin(angle) * speed]
    else:
        q, qd = [0.4, -0.3], [0.8, -1.1]
    expected = sympy_acceleration(lagrangian, coordinates, holonomic, values, q, qd)
    qdd = model.acceleration(np.array(q), np.array(qd))
    assert np.allclose(qdd, expected, rtol=1e-12, atol=1e-12), (qdd, expected)


def test_inputs_and_forces():
    """A damped, driven cart: m ẍ = u − c ẋ − k x, with u an input set at run time."""
    x, u = me.dynamicsymbols("x u")
    m, c, k = sympy.symbols("m c k")
    model = udk.Model.from_sympy(
        m * x.diff(t) ** 2 / 2 - k * x**2 / 2,
        [x],
        inputs=[u],
        forces=[u - c * x.diff(t)],
        parameters={m: 2.0, c: 0.5, k: 3.0},
        outputs={"spring_energy": k * x**2 / 2},
    )
    model.u = [1.25]
    assert model.acceleration([0.2], [0.4])[0] == pytest.approx((1.25 - 0.2 - 0.6) / 2.0, abs=1e-15)
    assert model.output_columns == ["spring_energy"]
    assert model.outputs([0.2], [0.4])[0] == pytest.approx(0.06, abs=1e-15)


def test_printer():
    q = me.dynamicsymbols("q")
    a = sympy.Symbol("a")
    text = udk_expression(sympy.sqrt(a) * sympy.atan2(q, 2) + q.diff(t) ** 3 + sympy.pi,
                          coordinates=[q], parameters=[a])
    assert "sqrt(a)" in text and "atan2(q, 2.0)" in text
    assert "powi(dot(q), 3)" in text and "PI" in text


def test_printer_repeated_subexpressions():
    """A subexpression met again prints as the first time (its text reused), and a time
    derivative of anything but a coordinate is refused even after that thing was printed."""
    q = me.dynamicsymbols("q")
    s = sympy.sin(q)
    text = udk_expression(s * t + s**2 + q.diff(t) * s, coordinates=[q])
    assert text == "(powi(sin(q), 2) + (t * sin(q)) + (dot(q) * sin(q)))"
    with pytest.raises(UnsupportedError, match="first time derivatives of the coordinates"):
        udk_expression(s + sympy.Derivative(s, t, evaluate=False), coordinates=[q])


def test_repeated_subexpressions_become_definitions():
    """A subexpression repeated in the model is printed once, as a definition named apart from
    the model's own names (a parameter x0 here), and the model is the same: with
    c = cos(q + x0) and L = q̇²/2 + c + c², q̈ = ∂L/∂q = −sin(q + x0) (1 + 2c)."""
    q = me.dynamicsymbols("q")
    x0 = sympy.Symbol("x0")
    c = sympy.cos(q + x0)
    printed = spec(q.diff(t) ** 2 / 2 + c + c**2, [q], parameters={x0: 2.0})
    assert printed["definitions"] == [{"name": "x1", "value": "cos((x0 + q))"}]
    assert printed["lagrangian"] == "(powi(x1, 2) + (0.5 * powi(dot(q), 2)) + x1)"
    model = udk.Model.from_spec(printed)
    expected = -np.sin(2.3) * (1.0 + 2.0 * np.cos(2.3))
    assert model.acceleration([0.3], [0.0])[0] == pytest.approx(expected, rel=1e-14)


def test_unsupported_function_is_named():
    q = me.dynamicsymbols("q")
    with pytest.raises(UnsupportedError, match="besselj"):
        udk.Model.from_sympy(sympy.besselj(0, q) * q.diff(t) ** 2, [q])


def test_unknown_symbol_is_named():
    q = me.dynamicsymbols("q")
    with pytest.raises(udk.BadInputError, match="`k`.*add it to `parameters`"):
        udk.Model.from_sympy(q.diff(t) ** 2 - sympy.Symbol("k") * q**2, [q])
