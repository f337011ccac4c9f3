"""What a submodule call returns, as far as the source shows: the type inference does not follow
calls into modules, and rules that rewrite a tensor method on a submodule's output (ONX410,
ONX705) need to know it is one tensor, not a tuple (nn.LSTM), a list or a dict."""

from __future__ import annotations

import ast
from onnxfix.rewriter.tree_walk import walk
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

# torch.nn layers whose forward returns a tuple
TUPLE_MODULES = frozenset({"LSTM", "GRU", "RNN", "MultiheadAttention", "LSTMCell", "Transformer"})


def returns_one_tensor(call: ast.Call, ctx: "FunctionContext") -> bool:
    """``call`` is `self.<submodule>(...)` of a torch.nn layer that returns one tensor, or of a
    class of this file whose forward returns no tuple, list, dict or constant (a ModuleList, or a
    class not found, is not one); or `self.<submodule>.<method>(...)` of a class of this file
    whose method returns neither those nor one of its own parameters (SAM's
    `self.pe_layer.forward_with_coords(points, size)`)."""
    method = None
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and ctx.is_nn_module_attr(func.value):
        method, func = func.attr, func.value
    if not (isinstance(func, ast.Attribute) and ctx.is_nn_module_attr(func)):
        return False
    made = ctx.self_attr_value(func)
    name = made.func.attr if isinstance(made.func, ast.Attribute) else getattr(made.func, "id", "")
    if name in TUPLE_MODULES or name in ("ModuleList", "ModuleDict", "Sequential"):
        return False
    info = ctx.file.module.classes.get(name)
    if info is None:
        return method is None and (ctx.qualname(made.func) or "").startswith("torch.nn.")
    called = info.methods.get(method or "forward")
    if called is None:
        return False
    returns = [n.value for n in walk(called) if isinstance(n, ast.Return)]
    parameters = {a.arg for a in called.args.args}
    return bool(returns) and not any(
        v is None or isinstance(v, (ast.Tuple, ast.List, ast.Dict, ast.Constant))
        or method is not None and isinstance(v, ast.Name) and v.id in parameters
        for v in returns)
