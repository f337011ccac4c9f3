"""Views and in-place writes through them: which names are views of which tensor, and which
statements mutate one."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.tree_walk import walk


VIEW_METHODS = frozenset(
    {
        "view", "view_as", "t", "transpose", "swapaxes", "swapdims", "permute", "narrow", "select",
        "diagonal", "unsqueeze", "squeeze", "expand", "expand_as", "unfold", "as_strided", "movedim",
        "moveaxis", "unflatten", "detach", "real", "imag",
    }
)
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})
SPLIT_METHODS = frozenset({"chunk", "split", "unbind", "tensor_split", "split_with_sizes"})
# In-place methods that change data (not metadata like t_/squeeze_/requires_grad_).
DATA_INPLACE = frozenset(
    {
        "add_", "sub_", "mul_", "div_", "true_divide_", "floor_divide_", "remainder_", "pow_",
        "clamp_", "clamp_min_", "clamp_max_", "clip_", "relu_", "sigmoid_", "tanh_", "exp_", "log_",
        "sqrt_", "rsqrt_", "abs_", "neg_", "floor_", "ceil_", "round_", "trunc_", "sign_",
        "reciprocal_", "fill_", "zero_", "copy_", "masked_fill_", "masked_scatter_", "index_fill_",
        "index_add_", "index_copy_", "index_put_", "scatter_", "scatter_add_", "scatter_reduce_",
        "addcmul_", "addcdiv_", "lerp_", "where_", "nan_to_num_", "fmod_", "hardtanh_",
        "leaky_relu_", "elu_", "selu_", "celu_", "silu_", "mish_", "gelu_", "sin_", "cos_",
        "square_", "logical_not_", "bitwise_and_", "bitwise_or_", "uniform_", "normal_",
        "bernoulli_", "random_", "exponential_", "addmm_", "baddbmm_", "tril_", "triu_",
    }
)
# Elementwise with scalar arguments: applying them to all of a view of the whole tensor equals
# applying them to the tensor.
SCALAR_ELEMENTWISE = frozenset(
    {
        "add_", "sub_", "mul_", "div_", "pow_", "clamp_", "clamp_min_", "clamp_max_", "clip_",
        "relu_", "sigmoid_", "tanh_", "exp_", "log_", "sqrt_", "rsqrt_", "abs_", "neg_", "floor_",
        "ceil_", "round_", "trunc_", "sign_", "reciprocal_", "fill_", "zero_", "nan_to_num_",
        "square_", "sin_", "cos_",
    }
)
INPLACE_FUNCTIONALS = frozenset(
    {
        "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "hardtanh", "silu", "mish",
        "hardswish", "hardsigmoid", "threshold", "rrelu", "dropout", "alpha_dropout",
        "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
    }
)
VIEW_REFERENCES = (
    "https://github.com/pytorch/pytorch/issues/80271",
    "https://github.com/pytorch/pytorch/issues/26073",
    "https://github.com/pytorch/pytorch/issues/159295",
    "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-inplace-operations",
)


# -- views ---------------------------------------------------------------------------------------
class ViewChain:
    """``base`` (a name) followed by subscripts and view methods; ``methods`` lists the view
    methods/attributes in the chain (empty for a pure subscript chain like ``y[:, 1:][0]``)."""

    def __init__(self, base: str, methods: list[ast.AST]):
        self.base = base
        self.methods = methods


def view_chain(node: ast.expr, ctx: FunctionContext) -> ViewChain | None:
    methods: list[ast.AST] = []
    seen_step = False
    current = node
    while True:
        if isinstance(current, ast.Subscript):
            if not is_basic_index(current.slice, ctx):
                return None
            current = current.value
        elif isinstance(current, ast.Call) and isinstance(current.func, ast.Attribute) and current.func.attr in VIEW_METHODS:
            methods.append(current)
            current = current.func.value
        elif isinstance(current, ast.Attribute) and current.attr in VIEW_ATTRIBUTES:
            methods.append(current)
            current = current.value
        else:
            break
        seen_step = True
    if not seen_step or not isinstance(current, ast.Name):
        return None
    if not is_tensor_name(current, ctx):  # lists and arrays have subscripts too
        return None
    return ViewChain(current.id, methods)


TUPLE_MODULES = frozenset({"LSTM", "GRU", "RNN", "MultiheadAttention"})


def is_tensor_name(node: ast.Name, ctx: FunctionContext) -> bool:
    """A tensor by the oracle, or the output of a torch.nn layer held in `self` (layers other
    than the recurrent ones and attention return one tensor)."""
    if ctx.tensors.is_tensor(node):
        return True
    values = ctx.assignments(node.id)
    return bool(values) and all(_layer_output(value, ctx) for value in values)


def _layer_output(value: ast.AST, ctx: FunctionContext) -> bool:
    if not (isinstance(value, ast.Call) and ctx.is_nn_module_attr(value.func)):
        return False
    layer = ctx.self_attr_value(value.func)
    qualname = ctx.file.module.scope.qualname(layer.func) or ""
    return qualname.startswith("torch.nn.") and qualname.rsplit(".", 1)[-1] not in TUPLE_MODULES


def is_basic_index(index: ast.expr, ctx: FunctionContext) -> bool:
    """Slices, integers, None and ... only: indexing that returns a view, not a copy."""
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(_basic_element(element, ctx) for element in elements)


def _basic_element(node: ast.expr, ctx: FunctionContext) -> bool:
    if isinstance(node, ast.Slice):
        return True
    if isinstance(node, ast.Constant):
        return node.value is None or node.value is Ellipsis or (type(node.value) is int)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _basic_element(node.operand, ctx)
    return ctx.sizes.is_size(node)


def named_view(name: str, ctx: FunctionContext) -> tuple[ast.stmt, ViewChain | None, ast.expr | None] | None:
    """(assignment, chain, view expression) when ``name`` is assigned once, from a view of a
    local tensor, or from one part of ``base.chunk(...)``/``split``/``unbind`` (chain None)."""
    values = [v for v in ctx.assignments(name) if not isinstance(v, ast.AugAssign)]
    if len(values) != 1:
        return None
    value = values[0]
    statement = next((a for a in ctx.ancestors(value)), None) if not isinstance(value, ast.stmt) else value
    if isinstance(value, ast.Assign):  # tuple unpacking
        call = value.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in SPLIT_METHODS
            and isinstance(call.func.value, ast.Name)
            and is_tensor_name(call.func.value, ctx)
        ):
            return value, ViewChain(call.func.value.id, [call]), None
        return None
    if isinstance(value, ast.stmt):
        return None
    chain = view_chain(value, ctx)
    if chain is None or chain.base == name:
        return None
    return statement, chain, value


# -- mutations -----------------------------------------------------------------------------------
def mutation_target(statement: ast.stmt, ctx: FunctionContext) -> tuple[str, ast.expr] | None:
    """('method'|'augassign'|'setitem'|'functional', the tensor expression written to)."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in DATA_INPLACE:
            return "method", func.value
        if _is_inplace_functional(call, ctx) and call.args:
            return "functional", call.args[0]
    if isinstance(statement, ast.AugAssign):
        if isinstance(statement.target, ast.Name):
            return "augassign", statement.target
        if isinstance(statement.target, ast.Subscript):
            return "setitem", statement.target.value
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Subscript):
        return "setitem", statement.targets[0].value
    return None


def _is_inplace_functional(call: ast.Call, ctx: FunctionContext) -> bool:
    qualname = ctx.qualname(call.func) or ""
    module, _, last = qualname.rpartition(".")
    if module in ("torch.nn.functional", "torch") and last.endswith("_") and last[:-1] in INPLACE_FUNCTIONALS:
        return True
    if module == "torch.nn.functional" and last in INPLACE_FUNCTIONALS:
        return any(k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)
    return False


def _loaded_after(name: str, statement: ast.stmt, ctx: FunctionContext) -> bool:
    end = statement.end_lineno
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and node.lineno > end:
            return True
    return _inside_loop(statement, ctx)


def _inside_loop(statement: ast.stmt, ctx: FunctionContext) -> bool:
    return any(isinstance(a, (ast.For, ast.While, ast.AsyncFor)) for a in ctx.ancestors(statement))


def _rebound_between(names: set[str], first: ast.stmt, last: ast.stmt, ctx: FunctionContext) -> bool:
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Store):
            if first.end_lineno < node.lineno <= last.end_lineno:
                return True
    return False
