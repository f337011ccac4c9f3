"""Export-time repair: Python's floor division of sizes, which torch.onnx's dynamo exporter writes
as truncation.

torch.export records size arithmetic as SymInt expressions, and sympy rewrites them: a floor
division of a difference that is never negative can become one of a negative numerator. ComfyUI's
SD3 crops its position table from `top = (16 - h) // 2` to `top + h`, and the exported program
computes that end as `h + 8 + (-h) // 2` (tests/export_models/centered_crop_floordiv.py).
onnxscript translates `_operator::floordiv` to ONNX `Div` ("only for positive inputs", torch_lib's
`operator_floordiv`), which truncates toward zero: for an odd `h` the crop ends one row late, and
the exported model fails or is silently wrong. While exporting, the translation is Python's floor
instead: the truncated quotient, minus one where the signs differ and the remainder is not zero,
as torch_lib's own `aten_floor_divide` computes it for signed integers. The same quotient wherever
it was right; nothing else changes. Outside onnxfix:
`torch.onnx.export(..., custom_translation_table={operator.floordiv: floored_division()})`.
"""

import operator
from contextlib import contextmanager
from typing import Callable, Iterator

from onnxfix.exporter.export_repairs import FLOOR_KEY


def floored_division() -> Callable:
    """The ONNX Script function for `operator.floordiv` of two int64 sizes, with Python's rounding."""
    from onnxscript import BOOL, INT64
    from onnxscript import opset18 as op

    def floordiv(self, other):
        signs_differ = op.Equal(op.Less(self, 0), op.Greater(other, 0))
        offset = op.And(signs_differ, op.Cast(op.Mod(self, other), to=BOOL.dtype))
        return op.Sub(op.Div(self, other), op.Cast(offset, to=INT64.dtype))

    # the exporter reads the schema from the annotations (set here: onnxscript is imported lazily)
    floordiv.__annotations__ = {"self": INT64, "other": INT64, "return": INT64}
    return floordiv


@contextmanager
def floor_division_floored(model=None) -> Iterator[dict]:
    """Within the block, every ONNX registry torch.onnx builds translates `operator.floordiv` with
    Python's rounding; ``model`` is unused. Yields the count of the divisions whose numerator the
    program computes by a subtraction or a negation (the ones truncation can get wrong: the repair
    is kept only where there are some)."""
    from torch.onnx._internal.exporter import _core, _registration

    counts: dict = {}
    registry_class = _registration.ONNXRegistry
    original = registry_class.__dict__["from_torchlib"]  # the classmethod (onnx_registry.py's, if reused)
    prepare = _core._prepare_exported_program_for_export
    floordiv = floored_division()

    def from_torchlib(cls, *args, **kwargs):
        registry = original.__func__(cls, *args, **kwargs)
        registry.register_op(operator.floordiv, floordiv)  # a custom function goes before torch_lib's
        return registry

    def prepared(*args, **kwargs):
        program = prepare(*args, **kwargs)
        signed = sum(1 for node in program.graph.nodes if _signed_floor_division(node))
        counts[FLOOR_KEY] = counts.get(FLOOR_KEY, 0) + signed
        return program

    # onnx_registry.py's copy per export stays in place under this one (it would wrap it again)
    from_torchlib.onnxfix_reuses = getattr(original.__func__, "onnxfix_reuses", False)
    registry_class.from_torchlib = classmethod(from_torchlib)
    _core._prepare_exported_program_for_export = prepared
    try:
        yield counts
    finally:
        registry_class.from_torchlib = original
        _core._prepare_exported_program_for_export = prepare


SIGNED = (operator.sub, operator.neg)


def _signed_floor_division(node) -> bool:
    """A floor division of sizes whose numerator is a difference or a negation, directly or through
    sums and products of them: the values whose sign truncation and floor disagree on."""
    if node.op != "call_function" or node.target is not operator.floordiv or not node.args:
        return False
    return _may_be_negative(node.args[0], 3)


def _may_be_negative(value, depth: int) -> bool:
    if isinstance(value, int):
        return value < 0
    if depth == 0 or getattr(value, "op", None) != "call_function":
        return False
    if value.target in SIGNED:
        return True
    if value.target in (operator.add, operator.mul):
        return any(_may_be_negative(argument, depth - 1) for argument in value.args)
    return False
