"""udk: constrained mechanical systems by the Udwadia–Kalaba equation, from Python.

A model (a model file, a URDF robot, a spec, or SymPy expressions) is derived symbolically
and compiled to native code by udk's JIT; its functions take numpy arrays of one state
(1-D, n entries) or of many (2-D, states × n, evaluated in parallel with the GIL released).

>>> import udk
>>> model = udk.Model.from_spec({
...     "name": "Pendulum",
...     "coordinates": ["theta"],
...     "parameters": [{"name": "m", "value": 1.0}, {"name": "l", "value": 2.0},
...                    {"name": "g", "value": 9.81}],
...     "lagrangian": "0.5 * m * l.powi(2) * dot(theta).powi(2) + m * g * l * theta.cos()",
... })
>>> float(model.acceleration([0.0], [0.0])[0])
-0.0
"""

from udk._udk import BadInputError, Equations, FloatingBaseModel, Model, MotionError

__all__ = ["BadInputError", "Equations", "FloatingBaseModel", "Model", "MotionError"]
