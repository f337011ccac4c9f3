"""Is this expression a size? ``SizeOracle`` answers for the shape arithmetic rules: Python
values derived from tensor sizes (``x.shape[1] * 2``, ``x.size(0)``, ``len(x)``). Part of the
analysis ``ctx`` offers rules, with tensors.py (is it a tensor?) and integers.py (is it an int?).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.config_numbers import is_config_number
from onnxfix.rewriter.integers import (
    OWN_SIZE_HELPERS, bindings_hold, held_assuming_cycles, int_constant, is_number, is_whole_shape, own_size_helper,
    unpacked_element,
)
from onnxfix.rewriter.torch_sizes import is_torch_size

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

# Tensor methods that read a size (the answer is a Python int in eager).
SIZE_QUERY_METHODS = frozenset({"size", "dim", "numel", "ndimension", "nelement"})
# A tensor's rank: static in both exporters (a Python int while tracing, never a SymInt).
RANK_QUERIES = frozenset({"dim", "ndimension", "ndim"})
# Builtins whose result is a size when their arguments are (len(x), max(h, w), round(s)).
SIZE_BUILTINS = frozenset({"len", "int", "min", "max", "abs", "round"})
SIZE_MATH = frozenset({"math.sqrt", "math.ceil", "math.floor", "math.log2", "math.pow", "math.prod"})
NUMPY_SIZE_ROUNDING = frozenset({"numpy.ceil", "numpy.floor"})


class SizeOracle:
    """Is an expression a Python value derived from tensor sizes (``x.shape[1] * 2``)?

    Those are traced tensors under the legacy exporter and SymInts under dynamo, so in-place
    arithmetic and Python math on them behave differently from eager."""

    def __init__(self, ctx: "FunctionContext"):
        self.ctx = ctx
        self._names: dict[str, bool] = {}

    def is_size(self, node: ast.AST) -> bool:
        if self._specialized_int(node):
            return True
        if isinstance(node, ast.Attribute):
            return node.attr == "shape" and not self.is_model_tensor(node.value)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Subscript):
            return self.is_size(node.value) or self._item_passed(node.value, int_constant(node.slice))
        if isinstance(node, ast.BinOp):
            left, right = self.is_size(node.left), self.is_size(node.right)
            # a size with numbers, constants or proven ints (`length - kernel_size` with
            # `kernel_size: int`): still an int read from the traced size
            return (left or right) and all(
                s or is_number(side) or self._constant(side) or self.ctx.ints.is_int(side)
                for s, side in ((left, node.left), (right, node.right))
            )
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.is_size(node.operand)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        return False

    def _specialized_int(self, node: ast.AST) -> bool:
        """An int read (a name or an item) on a line where an export's guard specialized a
        dynamic dim (`onnxfix export`'s first run): the run traced it to a size there."""
        evidence = self.ctx.file.evidence
        if evidence is None or not isinstance(node, (ast.Name, ast.Subscript)) or not hasattr(node, "lineno"):
            return False
        return bool(self._lines_of_calls(node) & evidence.specialized) and self.ctx.ints.is_int(node)

    def _lines_of_calls(self, node: ast.AST) -> set[int]:
        """The node's line and the first lines of the calls around it in its statement: a guard raised
        in a call spanning lines is reported at the call's first line (Perceiver's
        `torch.linspace(\n start=..., steps=n_xels_per_dim)`)."""
        lines = {node.lineno}
        for ancestor in self.ctx.with_parents().ancestors(node):
            if isinstance(ancestor, ast.stmt):
                break
            if isinstance(ancestor, ast.Call):
                lines.add(ancestor.lineno)
        return lines

    def passed_a_size(self, argument: ast.AST, depth: int = 3) -> bool:
        """A parameter that some call in the file binds to a size, directly or through the
        callers' own parameters (`torch_int(height)` in `interpolate_pos_encoding(..., height,
        width)`, called with `pixel_values.shape`'s): any one caller decides, where `is_size`
        asks every caller (for a fix right whatever the value is, such as `torch.sym_int`)."""
        ctx = self.ctx
        if depth == 0 or not isinstance(argument, ast.Name) or not ctx.is_parameter(argument.id):
            return False
        bindings = ctx.parameter_bindings(argument.id)
        if bindings is None and ctx.file.calls is not None:
            bindings = ctx.file.calls.some_bindings(ctx.fn, argument.id)
        return any(caller.sizes.is_size(value) or caller.sizes.passed_a_size(value, depth - 1)
                   for caller, value in bindings or ())

    def is_size_quotient(self, node: ast.AST) -> bool:
        """A size, or a size divided by a value of any type (``H / self.window_size``): Python
        math on it turns the traced size into a number, whatever the divisor is."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self.is_size(node.left) or self.is_size(node) or self._offset_size(node.left)
        if isinstance(node, ast.Name) and not self.ctx.is_parameter(node.id):
            values = self.ctx.assignments(node.id)  # `m = tsz / multiple` then `m.is_integer()`
            if len(values) == 1 and isinstance(values[0], ast.BinOp) and isinstance(values[0].op, ast.Div):
                return self.is_size_quotient(values[0])
        return self.is_size(node)

    def _offset_size(self, node: ast.AST) -> bool:
        """``image_height - crop_height``: a size plus or minus a name or attribute of unknown
        type (not a tensor): a number read from the traced size, whatever the other side is."""
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))):
            return False
        sides = (node.left, node.right)
        return any(self.is_size(side) for side in sides) and all(
            self.is_size(side) or (isinstance(side, (ast.Name, ast.Attribute)) and not self.ctx.tensors.is_tensor(side))
            for side in sides
        )

    def rounds_quotient(self, node: ast.AST) -> bool:
        """``round((h - crop) / 2.0)``: the builtin ``round`` of a size quotient (ONX402's)."""
        return (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "round"
            and self.ctx.is_builtin("round") and len(node.args) == 1 and not node.keywords
            and _quotient(node.args[0], self.ctx) and self.is_size_quotient(node.args[0])
        )

    def rounds_size(self, node: ast.AST) -> bool:
        """``numpy.ceil(H / k)``, ``numpy.floor(x.shape[1] / 2)``: NumPy rounding of one size
        quotient, integer size math (ONX402's) rather than array data (the NumPy region's)."""
        return (
            isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
            and self.ctx.qualname(node.func) in NUMPY_SIZE_ROUNDING and self.is_size_quotient(node.args[0])
        )

    def _call(self, node: ast.Call) -> bool:
        if isinstance(node.func, ast.Attribute) and node.func.attr in SIZE_QUERY_METHODS:
            return node.func.attr not in RANK_QUERIES and not self.is_model_tensor(node.func.value)
        if isinstance(node.func, ast.Name) and node.func.id in SIZE_BUILTINS:
            if self.ctx.is_builtin(node.func.id):
                if node.func.id == "len" and len(node.args) == 1 and is_whole_shape(node.args[0]):
                    return False  # `len(x.shape)`: the rank, the same for every input
                if node.func.id == "int" and len(node.args) == 1 and self.is_size_quotient(node.args[0]):
                    return True  # `int(h / scale)`: an int from a traced size, whatever divides it
                return bool(node.args) and all(self.is_size(a) or is_number(a) for a in node.args) and any(
                    self.is_size(a) for a in node.args
                )
        helper = own_size_helper(node)
        if helper == "_onnx_sym_int" or (len(node.args) == 1 and self.ctx.qualname(node.func) == "torch.sym_int"):
            return self.is_size_quotient(node.args[0])  # ONX203's `int()` of a size, kept symbolic
        if helper is not None:  # the size math the helper stands for
            return any(self.is_size(a) for a in node.args[OWN_SIZE_HELPERS[helper][1]:])
        qualname = self.ctx.qualname(node.func)
        if qualname in SIZE_MATH:  # (math.prod of a torch.Size: ONX411's numel(), the same count)
            return any(self.is_size(a) for a in node.args) or (
                qualname == "math.prod" and len(node.args) == 1 and is_torch_size(self.ctx, node.args[0]))
        return False

    def is_model_tensor(self, node: ast.AST, depth: int = 0) -> bool:
        """A tensor of the model itself, whose shape the inputs cannot change: an
        ``nn.Parameter`` or buffer of ``self``, ``.weight``/``.bias`` of an nn layer of ``self``,
        an nn layer of ``self`` applied to those (``self.position_embedding(self.position_ids)``),
        and constant-index views of them (``pos[0, 1:].unsqueeze(0).transpose(1, 2)``). Sizes of
        such tensors are model constants (position-embedding tables, widths): recording them is
        right in both exporters, so they are no sizes for the size rules."""
        if depth > 12:
            return False
        ctx = self.ctx
        if isinstance(node, ast.Attribute):
            return ctx.is_own_parameter(node)
        if isinstance(node, ast.Subscript):
            return _constant_index(node.slice) and self.is_model_tensor(node.value, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if ctx.is_nn_module_attr(node.func):
                return bool(node.args) and not node.keywords and all(
                    self.is_model_tensor(a, depth + 1) for a in node.args
                )
            method = node.func.attr
            if method in SHAPE_KEEPING_METHODS:
                return self.is_model_tensor(node.func.value, depth + 1)
            if method in CONSTANT_SHAPE_METHODS:
                return not node.keywords and all(is_number(a) for a in node.args) and self.is_model_tensor(
                    node.func.value, depth + 1
                )
            return False
        if isinstance(node, ast.Name):
            if ctx.is_parameter(node.id):
                return False
            values = ctx.assignments(node.id)
            return bool(values) and all(
                not isinstance(v, ast.stmt) and self.is_model_tensor(v, depth + 1) for v in values
            )
        return False

    def _name(self, name: str) -> bool:
        return held_assuming_cycles(self.ctx.file.cycles, self._names, name, lambda: self._name_bindings_hold(name))

    def _name_bindings_hold(self, name: str) -> bool:
        values = [v for v in self.ctx.assignments(name) if not isinstance(v, ast.AugAssign)]
        outer = self._closure_scope(name)
        if outer is not None:  # a closure's name (the branches ONX613 nests): a size where it is bound
            return outer.sizes.is_size(ast.Name(id=name, ctx=ast.Load()))
        if self.ctx.is_parameter(name):
            # a parameter is a size when every call site passes one (and every rebinding is one:
            # `height = height // patch` reads the parameter as the size it is, so provisionally yes)
            answer = self.ctx.across_calls("size", name, lambda caller, arg: caller.sizes.is_size(arg))
            self._names[name] = answer
            answer = answer and all(self._assigned_size(name, v) for v in values)
        elif self.ctx.shape_element(name):  # [int(t) for t in x.size()[2:]]
            answer = True
        else:
            answer = bindings_hold(name, values, lambda v: self._assigned_size(name, v),
                                   lambda: self._names.__setitem__(name, True))
        return answer

    def _constant(self, node: ast.AST) -> bool:
        """Number literals, local names bound only to them (`patch_size = 2`), the configuration
        numbers __init__ sets (`self.new_sr`) and arithmetic on those (`patch_size // 2`): a
        number, like a literal."""
        if is_number(node) or is_config_number(node, self.ctx):  # `self.old_sr`: a configuration number
            return True
        if isinstance(node, ast.BinOp):
            return self._constant(node.left) and self._constant(node.right)
        if not isinstance(node, ast.Name) or self.ctx.is_parameter(node.id):
            return False
        outer = self._closure_scope(node.id)
        if outer is not None:
            return outer.sizes._constant(node)
        values = self.ctx.assignments(node.id)
        return bool(values) and all(isinstance(v, ast.expr) and is_number(v) for v in values)

    def _closure_scope(self, name: str) -> FunctionContext | None:
        """The enclosing function's context for a name a nested function reads but neither binds
        nor takes as a parameter."""
        ctx = self.ctx
        if ctx.outer_function is None or ctx.is_parameter(name) or ctx.assignments(name):
            return None
        return ctx.outer_function

    def _item_passed(self, sequence: ast.AST, index: int | None) -> bool:
        """Item ``index`` of a parameter every call binds to a tuple or list literal whose item there
        is a size (transformers' `_prepare_decoder_attention_mask(mask, (batch_size, seq_length), ...)`,
        then `input_shape[-1]`)."""
        ctx = self.ctx
        if index is None or not isinstance(sequence, ast.Name) or not ctx.is_parameter(sequence.id) \
                or ctx.assignments(sequence.id):
            return False

        def holds(caller: FunctionContext, argument: ast.AST) -> bool:
            items = argument.elts if isinstance(argument, (ast.Tuple, ast.List)) else None
            if items is None or not -len(items) <= index < len(items) or any(isinstance(e, ast.Starred) for e in items):
                return False
            return caller.sizes.is_size(items[index])

        return ctx.across_calls(f"size item {index}", sequence.id, holds)

    def _assigned_size(self, name: str, value: ast.AST) -> bool:
        if isinstance(value, ast.Assign):  # tuple unpacking: b, s = x.shape[:2]
            element = unpacked_element(value, name)
            if element is None and self._item_passed(value.value, _unpacked_position(value, name)):
                return True  # `_, src_length = input_shape`, every call passing a tuple of sizes
            return self.is_size(element if element is not None else value.value)
        if isinstance(value, ast.stmt):
            return False
        return self.is_size(value)


# Methods that keep a tensor's shape whatever their arguments, and methods whose result shape is
# fixed by the receiver's shape when their arguments are number literals.
SHAPE_KEEPING_METHODS = frozenset({"to", "float", "half", "double", "detach", "clone", "contiguous", "type_as"})
CONSTANT_SHAPE_METHODS = frozenset({
    "transpose", "permute", "unsqueeze", "squeeze", "flatten", "t", "reshape", "view", "expand", "repeat",
})


def _unpacked_position(assign: ast.Assign, name: str) -> int | None:
    """The position of ``name`` in `a, name = value` (one flat target tuple, no starred one)."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], (ast.Tuple, ast.List)):
        return None
    elements = assign.targets[0].elts
    if any(isinstance(e, ast.Starred) for e in elements):
        return None
    return next((i for i, e in enumerate(elements) if isinstance(e, ast.Name) and e.id == name), None)


def _quotient(node: ast.AST, ctx: "FunctionContext") -> bool:
    """A true division, or a local name bound once to one."""
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        node = values[0] if len(values) == 1 else node
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)


def _constant_index(index: ast.AST) -> bool:
    """``[0, 1:, :]``, ``[..., 0]``, ``[:, None]``: an index made of literals only."""
    if isinstance(index, ast.Tuple):
        return all(_constant_index(element) for element in index.elts)
    if isinstance(index, ast.Slice):
        return all(part is None or is_number(part) for part in (index.lower, index.upper, index.step))
    if isinstance(index, ast.Constant):
        return index.value is None or index.value is Ellipsis or (isinstance(index.value, int) and not isinstance(index.value, bool))
    return is_number(index)
