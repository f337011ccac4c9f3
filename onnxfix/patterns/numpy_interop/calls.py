"""What NumPy looks like in model code: calls of numpy functions, `.numpy()` sources, the
conversions back to torch (sinks), and arrays of sizes (`np.array(x.shape[-2:])`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.patterns.numpy_interop.region import Region
    from onnxfix.rewriter.context import FunctionContext


# The legacy constructors convert an array to their own dtype, sharing its memory when it already
# has that dtype and copying it otherwise (`torch.Tensor(a)`: the default dtype, float32 unless the
# user changed it; `torch.LongTensor(a)` truncates floats as a cast does): what `a.to(dtype)` does
# to the tensor twin.
CONSTRUCTOR_DTYPES = {
    "torch.Tensor": "get_default_dtype()", "torch.FloatTensor": "float32", "torch.DoubleTensor": "float64",
    "torch.HalfTensor": "float16", "torch.LongTensor": "int64", "torch.IntTensor": "int32",
    "torch.ShortTensor": "int16", "torch.CharTensor": "int8", "torch.ByteTensor": "uint8", "torch.BoolTensor": "bool",
}
# how each conversion back to torch treats the array: shares it, copies it, or converts it to a dtype
SINKS = {"torch.from_numpy": "share", "torch.as_tensor": "share", "torch.asarray": "share", "torch.tensor": "copy",
         **dict.fromkeys(CONSTRUCTOR_DTYPES, "convert")}
# what a conversion may say besides the array: `Tensor.to` takes both
SINK_KEYWORDS = frozenset({"dtype", "device"})


def is_numpy_call(node: ast.AST, ctx: FunctionContext) -> str | None:
    """The numpy function name (``concatenate``) if ``node`` calls one."""
    if isinstance(node, ast.Call):
        qualname = ctx.qualname(node.func)
        if qualname and qualname.startswith("numpy.") and qualname.count(".") == 1:
            return qualname.split(".", 1)[1]
    return None


def is_to_numpy(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "numpy"
        and not node.args
    )


def sink_kind(node: ast.AST, ctx: FunctionContext) -> str | None:
    if isinstance(node, ast.Call):
        return SINKS.get(ctx.qualname(node.func) or "")
    return None


def shape_array_argument(call: ast.AST, ctx: FunctionContext) -> ast.expr | None:
    """The shape in `np.array(x.shape[-2:])` / `np.asarray(t.numpy().shape)`: an array of sizes."""
    if is_numpy_call(call, ctx) not in ("array", "asarray") or len(call.args) != 1 or call.keywords:
        return None
    shape = call.args[0]
    while isinstance(shape, ast.Subscript) and isinstance(shape.slice, ast.Slice):
        shape = shape.value
    is_shape = isinstance(shape, ast.Attribute) and shape.attr == "shape"
    is_size = isinstance(shape, ast.Call) and isinstance(shape.func, ast.Attribute) and shape.func.attr == "size" and not shape.args
    return call.args[0] if is_shape or is_size else None


def binds_shape_array(call: ast.Call, region: Region) -> bool:
    parent = region.ctx.parent(call)
    return isinstance(parent, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id in region.shape_arrays for t in parent.targets)


def has_keyword(call: ast.Call, name: str) -> bool:
    return any(k.arg == name for k in call.keywords)
