"""ONX533: an `nn.ConvTranspose1d/2d/3d` layer called with an `output_size` read from the input
(ENet's and U-Nets' `self.up(x, output_size=skip.size())`): the output padding the layer derives
from it is a constant in the exported graph."""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.operators.base import NOT_LITERAL, literal
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc

LAYERS = frozenset(f"torch.nn.ConvTranspose{rank}d" for rank in (1, 2, 3))
SIZED = Helper("_onnx_conv_transpose_sized", helper_source("conv_transpose_sized"))


class ConvTransposeOutputSize(Rule):
    code = "ONX533"
    name = "conv-transpose-output-size"
    summary = "`nn.ConvTranspose*d` called with an `output_size` from the input: its output padding is recorded as a constant"
    triggers = ("output_size",)
    fix_availability = "sometimes"
    default_safety = "safe"
    doc = RuleDoc(
        what="Finds calls of a module's `nn.ConvTranspose1d/2d/3d` layer with an `output_size` that is "
             "not a literal (`self.up(x, output_size=skip.size())`: ENet's upsampling bottleneck, U-Net "
             "decoders matching the encoder's odd sizes).",
        why="The layer turns the requested size into an output padding with Python arithmetic on the "
            "sizes. The legacy exporter records that padding as a constant (the graph's output has the "
            "export example's padding: onnxruntime fails at the next add, or crops wrongly, on other "
            "sizes); the dynamo exporter cannot build ONNX's ConvTranspose with a symbolic output "
            "padding (GraphConstructionError at step 3/3).",
        example="def __init__(self):\n    super().__init__()\n    self.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)\n"
                "    self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1)\n\n"
                "def forward(self, x):\n    return self.up(self.down(x), output_size=x.size()) + x",
        use_instead="def __init__(self):\n    super().__init__()\n    self.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)\n"
                    "    self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1)\n\n"
                    "def forward(self, x):  # the call itself in eager\n"
                    "    return _onnx_conv_transpose_sized(self.up, self.down(x), x.size()) + x",
        fix_safety="Safe: in eager the helper is the call itself (`layer(input, output_size=...)`, the "
                   "guard `torch.onnx.is_in_onnx_export()` is False). While exporting it runs the "
                   "layer's transposed convolution with the largest output padding the layer allows "
                   "(max(stride, dilation) - 1) and cuts the result to the requested size: the output "
                   "padding only uncrops the end of the same convolution, so every kept position has "
                   "the same value (to the kernel's rounding: onnxruntime's ConvTranspose, as before). "
                   "The layer's own check that the size is reachable runs in eager, not in the graph.",
        references=("https://github.com/pytorch/pytorch/issues/25088",
                    "https://github.com/davidtvs/PyTorch-ENet/issues/57"),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        size = _output_size(node)
        if size is None or literal(size) is not NOT_LITERAL or not self._transposed_layer(node.func, ctx):
            return
        if len(node.args) < 1 or any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return
        rest = [k for k in node.keywords if k.arg != "output_size"]
        fix = None
        if not rest and len(node.args) <= 2:
            text = f"_onnx_conv_transpose_sized({ctx.segment(node.func)}, {ctx.segment(node.args[0])}, {ctx.segment(size)})"
            fix = Fix("Use `_onnx_conv_transpose_sized` (the call itself in eager)", (ctx.replace(node, text),),
                      safe=True, imports=("torch",), helpers=(SIZED,))
        yield ctx.report(self, node, "`nn.ConvTranspose` layer called with an `output_size` read from the input: "
                         "the output padding it derives is a constant in the exported graph (legacy: wrong or "
                         "failing on other sizes; dynamo: no ConvTranspose with a symbolic output padding)", fix=fix)

    @staticmethod
    def _transposed_layer(func: ast.expr, ctx: FunctionContext) -> bool:
        value = ctx.self_attr_value(func) if isinstance(func, ast.Attribute) else None
        return isinstance(value, ast.Call) and ctx.file.module.scope.qualname(value.func) in LAYERS


def _output_size(node: ast.Call) -> ast.expr | None:
    """The `output_size` argument of `layer(input, output_size)`."""
    for keyword in node.keywords:
        if keyword.arg == "output_size":
            return keyword.value
    return node.args[1] if len(node.args) == 2 else None


RULES = [ConvTransposeOutputSize]
