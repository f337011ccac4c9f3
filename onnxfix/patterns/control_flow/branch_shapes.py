"""Branches torch.where cannot join: one is the other with another shape (ONX601's test before it
offers `torch.where(cond, a, b)`, which would broadcast the two or raise)."""

from __future__ import annotations

import ast
import re

from onnxfix.rewriter.context import FunctionContext

# calls whose result has another shape than their tensor argument or receiver
_CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack",
                             "torch.vstack", "torch.dstack", "torch.column_stack", "torch.nn.functional.pad"})
_RESHAPING_METHODS = frozenset({"unsqueeze", "squeeze", "flatten", "view", "reshape", "repeat", "repeat_interleave",
                                "expand", "sum", "mean", "amax", "amin", "narrow", "unfold"})
# functions whose result's size along some axis is set by their other arguments (a resize to
# `size=`, a pooling window, a convolution's kernel): NeMo's `if context_window > 0: y =
# F.interpolate(y, size=timesteps)` keeps `y` otherwise, at the pooled length
_RESIZING_FUNCTIONS = frozenset(f"torch.nn.functional.{name}" for name in (
    "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
    "unfold", "fold", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    *(f"{kind}_pool{n}d" for kind in ("avg", "max", "adaptive_avg", "adaptive_max", "lp") for n in (1, 2, 3))))


def reshaped_branch(first: ast.expr, second: ast.expr | str, ctx: FunctionContext) -> bool:
    """One branch is visibly the other with another shape: a concatenation or pad with the other
    among its tensors (`torch.cat((tokens, extra), dim=2)` against `tokens`), a reshaping method
    or torch function of it (`x.unsqueeze(0)`, `torch.flatten(x)`), a resize, pooling or convolution
    of it (`F.interpolate(y, size=n)`), or an index into it (`x[None]`);
    `torch.where` would broadcast the two or raise. ``second`` may be the text of the name a
    missing `else` keeps."""
    def of(value: ast.expr, other: str) -> bool:
        if isinstance(value, ast.Subscript):
            return ctx.segment(value.value) == other
        if not isinstance(value, ast.Call):
            return False
        qualname = ctx.qualname(value.func) or ""
        if qualname in _CONCATENATIONS and value.args:
            tensors = value.args[0]
            elements = tensors.elts if isinstance(tensors, (ast.Tuple, ast.List)) else [tensors]
            return any(ctx.segment(e) == other for e in elements) and (
                len(elements) > 1 or qualname == "torch.nn.functional.pad")
        if qualname.startswith("torch.") and qualname.rpartition(".")[2] in _RESHAPING_METHODS and value.args:
            return ctx.segment(value.args[0]) == other  # `torch.unsqueeze(x, 0)`
        if qualname in _RESIZING_FUNCTIONS and value.args:
            return ctx.segment(value.args[0]) == other  # `F.interpolate(y, size=n)` against `y`
        func = value.func
        return (isinstance(func, ast.Attribute) and func.attr in _RESHAPING_METHODS
                and ctx.segment(func.value) == other)

    second_text = second if isinstance(second, str) else ctx.segment(second)
    return (of(first, second_text) or (not isinstance(second, str) and of(second, ctx.segment(first)))
            or (not isinstance(second, str) and _layers_of_one_input(first, second, ctx)))


_RESIZING_LAYERS = re.compile(r"torch\.nn\.(?:\w+\.)*(?:(?:Adaptive)?(?:Avg|Max)Pool|LPPool|Conv|ConvTranspose|Upsample"
                              r"|UpsamplingNearest|UpsamplingBilinear|PixelShuffle|PixelUnshuffle|Fold|Unfold|Flatten"
                              r"|Unflatten)\w*")


def _layers_of_one_input(first: ast.expr, second: ast.expr, ctx: FunctionContext) -> bool:
    """`self.gap(x)` against `self.pool(x)`: two of the module's layers on one input, one of them a
    pooling, resize or convolution layer (NeMo's squeeze-excite: a global pooling to length 1, or a
    window pooling to `T - w + 1`), whose output sizes are set by the layers."""
    calls = [v for v in (first, second) if isinstance(v, ast.Call) and len(v.args) == 1 and not v.keywords
             and isinstance(v.func, ast.Attribute) and ctx.is_self_attr(v.func)]
    if len(calls) != 2 or ctx.segment(calls[0].args[0]) != ctx.segment(calls[1].args[0]):
        return False
    scope = ctx.file.module.scope
    built = [ctx.self_attr_value(c.func) for c in calls]
    return any(isinstance(b, ast.Call) and _RESIZING_LAYERS.fullmatch(scope.qualname(b.func) or "") for b in built)
