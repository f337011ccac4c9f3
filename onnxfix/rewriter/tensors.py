"""A small, conservative answer to "is this expression a torch.Tensor?".

Fix safety depends on it: ``x.data`` -> ``x.detach()`` is exact for a tensor but breaks a
PackedSequence. The oracle answers True only on evidence (a torch call, a tensor method on a
tensor, a parameter annotated ``Tensor``, a module's weight), None when it cannot tell.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

# torch.* callables that do not return a tensor.
NON_TENSOR_TORCH = frozenset(
    {
        "is_tensor", "is_floating_point", "is_complex", "numel", "Size", "device", "dtype",
        "get_default_dtype", "no_grad", "enable_grad", "is_grad_enabled", "manual_seed",
        "set_grad_enabled", "inference_mode", "jit", "onnx", "compile", "cond", "_check",
        "finfo", "iinfo", "typename", "is_nonzero", "equal", "broadcast_shapes",
        "result_type", "promote_types", "can_cast", "get_device", "is_autocast_enabled",
    }
)
# Tensor methods whose result is not a tensor.
NON_TENSOR_METHODS = frozenset(
    {
        "item", "tolist", "numpy", "size", "dim", "ndimension", "numel", "nelement",
        "element_size", "stride", "data_ptr", "storage_offset", "is_contiguous", "get_device",
        "is_floating_point", "is_complex", "equal", "__len__", "type", "untyped_storage",
        "register_hook", "backward", "chunk", "split", "unbind", "tensor_split",
    }
)
TENSOR_ATTRIBUTES = frozenset({"data", "T", "mT", "H", "mH", "real", "imag", "grad"})
TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.nn.Parameter"})


class TensorOracle:
    def __init__(self, ctx: "FunctionContext"):
        self.ctx = ctx
        self._names: dict[str, bool | None] = {}

    def is_tensor(self, node: ast.AST) -> bool | None:
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Subscript):
            return True if self.is_tensor(node.value) else None
        if isinstance(node, ast.BinOp):
            if self.is_tensor(node.left) or self.is_tensor(node.right):
                return True
            return None
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            return self.is_tensor(node.operand)
        if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Tuple, ast.List, ast.Dict)):
            return False
        return None

    def _call(self, node: ast.Call) -> bool | None:
        qualname = self.ctx.qualname(node.func)
        if qualname:
            if qualname.split(".")[0] in ("numpy", "math", "builtins"):
                return False
            module, _, last = qualname.rpartition(".")
            if module in ("torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"):
                return last not in NON_TENSOR_TORCH
            if qualname == "torch.nn.Parameter":
                return True
            return None
        if isinstance(node.func, ast.Attribute):
            method = node.func.attr
            returns = self._own_method_annotation(node.func)
            if returns is not None:
                return self.ctx.qualname(returns) in TENSOR_ANNOTATIONS or None
            if method in NON_TENSOR_METHODS:
                return False
            if self.ctx.is_nn_module_attr(node.func.value) and method == "forward":
                return None
            if self.is_tensor(node.func.value):
                return True
        return None

    def _own_method_annotation(self, func: ast.Attribute) -> ast.expr | None:
        """The return annotation of ``self.method`` when the method is defined in this class."""
        cls = self.ctx.fn.cls
        if cls is None or not (isinstance(func.value, ast.Name) and func.value.id == self.ctx.self_name):
            return None
        method = cls.methods.get(func.attr)
        return method.returns if method is not None else None

    def _attribute(self, node: ast.Attribute) -> bool | None:
        if node.attr in ("weight", "bias") and self.ctx.is_nn_module_attr(node.value):
            return True
        if node.attr in TENSOR_ATTRIBUTES and self.is_tensor(node.value):
            return True
        if node.attr == "shape":
            return False
        cls = self.ctx.fn.cls
        if cls is not None and isinstance(node.value, ast.Name) and node.value.id == self.ctx.self_name:
            if node.attr in cls.buffers:
                return True
            value = cls.self_attrs.get(node.attr)
            if isinstance(value, ast.Call):
                qualname = self.ctx.file.module.scope.qualname(value.func)
                if qualname == "torch.nn.Parameter" or (
                    qualname and qualname.startswith("torch.") and qualname.rsplit(".", 1)[-1] not in NON_TENSOR_TORCH
                    and not qualname.startswith("torch.nn.")
                ):
                    return True
        return None

    def _name(self, name: str) -> bool | None:
        if name in self._names:
            return self._names[name]
        # Provisionally True: `h = h * 2` is a tensor if every other assignment says so.
        self._names[name] = True
        answer = self._name_uncached(name)
        self._names[name] = answer
        return answer

    def _name_uncached(self, name: str) -> bool | None:
        ctx = self.ctx
        annotation = _parameter_annotation(ctx.fn.node, name)
        if annotation is not None:
            return ctx.qualname(annotation) in TENSOR_ANNOTATIONS or None
        if ctx.is_parameter(name):
            return None
        values = ctx.assignments(name)
        if not values or any(isinstance(v, ast.stmt) for v in values):
            return None
        answers = [self.is_tensor(v) for v in values]
        return True if all(answers) else None


def _parameter_annotation(fn: ast.AST, name: str) -> ast.expr | None:
    args = fn.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if arg.arg == name:
            return arg.annotation
    return None


SIZE_METHODS = frozenset({"size", "dim", "numel", "ndimension", "nelement"})
SIZE_FUNCTIONS = frozenset({"len", "int", "min", "max", "abs", "round"})
SIZE_MATH = frozenset({"math.sqrt", "math.ceil", "math.floor", "math.log2", "math.pow", "math.prod"})


class SizeOracle:
    """Is an expression a Python value derived from tensor sizes (``x.shape[1] * 2``)?

    Those are traced tensors under the legacy exporter and SymInts under dynamo, so in-place
    arithmetic and Python math on them behave differently from eager."""

    def __init__(self, ctx: "FunctionContext"):
        self.ctx = ctx
        self._names: dict[str, bool] = {}

    def is_size(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr in ("shape", "ndim")
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Subscript):
            return self.is_size(node.value)
        if isinstance(node, ast.BinOp):
            left, right = self.is_size(node.left), self.is_size(node.right)
            return (left or right) and all(
                s or _is_number(side) for s, side in ((left, node.left), (right, node.right))
            )
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.is_size(node.operand)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        return False

    def _call(self, node: ast.Call) -> bool:
        if isinstance(node.func, ast.Attribute) and node.func.attr in SIZE_METHODS:
            return True
        if isinstance(node.func, ast.Name) and node.func.id in SIZE_FUNCTIONS:
            if self.ctx.scope.lookup(node.func.id) is None and not self.ctx.scope.is_local(node.func.id):
                return bool(node.args) and all(self.is_size(a) or _is_number(a) for a in node.args) and any(
                    self.is_size(a) for a in node.args
                )
        qualname = self.ctx.qualname(node.func)
        if qualname in SIZE_MATH:
            return any(self.is_size(a) for a in node.args)
        return False

    def _name(self, name: str) -> bool:
        if name in self._names:
            return self._names[name]
        self._names[name] = False
        values = [v for v in self.ctx.assignments(name) if not isinstance(v, ast.AugAssign)]
        answer = bool(values) and all(self._assigned_size(name, v) for v in values)
        self._names[name] = answer
        return answer

    def _assigned_size(self, name: str, value: ast.AST) -> bool:
        if isinstance(value, ast.Assign):  # tuple unpacking: b, s = x.shape[:2]
            element = _unpacked_element(value, name)
            return self.is_size(element if element is not None else value.value)
        if isinstance(value, ast.stmt):
            return False
        return self.is_size(value)


def _unpacked_element(assign: ast.Assign, name: str) -> ast.AST | None:
    """For ``h, w = a, b`` the expression assigned to ``name``; None if not element-wise."""
    if not isinstance(assign.value, (ast.Tuple, ast.List)):
        return None
    for target in assign.targets:
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(assign.value.elts):
            for element, value in zip(target.elts, assign.value.elts):
                if isinstance(element, ast.Name) and element.id == name:
                    return value
    return None


def _is_number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
