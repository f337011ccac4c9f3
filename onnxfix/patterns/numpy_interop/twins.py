"""The NumPy functions and ndarray methods with a torch twin, and NumPy dtypes by torch name."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.signatures import passed_argument

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext


@dataclass(frozen=True)
class Twin:
    """The torch twin of a numpy function."""

    torch: str
    renames: tuple[tuple[str, str], ...] = ()
    exact: bool = True  # bit-identical results for the same dtype
    # When not exact, how the twin may differ beyond rounding ("" if only the last bits may
    # differ: the fix keeps NumPy in eager behind `torch.onnx.is_in_onnx_export()` and exports
    # the same function up to rounding, safely).
    differs: str = ""
    float64_default: bool = False  # numpy creates float64 here where torch creates float32
    no_constant_args: bool = False  # torch version needs tensor arguments
    # The decomposition whose helper `_onnx_<key>` (onnxfix/decompositions, written into the
    # user's file) replaces the call, for a torch twin that does not export itself.
    helper: str | None = None
    # keywords torch needs to mean what NumPy's default means (`indexing="xy"` for meshgrid)
    defaults: tuple[tuple[str, str], ...] = ()
    dtype_position: int = 1  # NumPy's positional index of `dtype` (float64_default adds it when absent)
    packs: int = 0  # the first `packs` arguments go into one tuple (`np.append(a, b)` -> `cat((a, b))`)
    axes_tuple: bool = False  # torch takes the axes as a tuple only (`np.flip(a, 0)` -> `torch.flip(a, (0,))`)
    spelled: str = ""  # the twin in a message, when it is more than `torch.<torch>`


AXIS = (("axis", "dim"), ("keepdims", "keepdim"))
_EXACT_UNARY = ("abs", "negative", "square", "isnan", "isinf", "isfinite", "logical_not")
# Exact on float arrays, but on int arrays NumPy computes sqrt in float64 where torch gives
# float32, and NumPy before 2.x's integer loops returns floor/ceil/trunc as float64 where torch
# keeps the int dtype (NumPy 2.4 keeps it too): the dtype is not known statically.
_INT_PROMOTING = {
    "sqrt": "on int arrays NumPy computes in float64, torch in float32",
    **dict.fromkeys(("floor", "ceil", "trunc"), "on int arrays older NumPy returns float64, torch keeps the int dtype"),
}
_INEXACT_UNARY = ("exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sinh", "cosh")
_EXACT_BINARY = ("add", "subtract", "multiply", "logical_and", "logical_or", "logical_xor", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal")

TWINS: dict[str, Twin] = {
    **{name: Twin(name) for name in _EXACT_UNARY},
    **{name: Twin(name, exact=False, differs=why) for name, why in _INT_PROMOTING.items()},
    # torch.sign's kernel is (0 < x) - (x < 0): 0 for NaN, where numpy.sign gives NaN.
    "sign": Twin("sign", exact=False, differs="NumPy gives NaN for NaN, torch.sign 0"),
    **{name: Twin(name, exact=False) for name in _INEXACT_UNARY},
    **{name: Twin(name) for name in _EXACT_BINARY},
    "arcsin": Twin("asin", exact=False),
    "arccos": Twin("acos", exact=False),
    "arctan": Twin("atan", exact=False),
    "arctan2": Twin("atan2", exact=False),
    "power": Twin("pow", exact=False, differs="on int arrays NumPy may compute in float64, torch in float32"),
    "divide": Twin("div", exact=False, differs="on int arrays NumPy computes in float64, torch in float32"),
    "true_divide": Twin("div", exact=False, differs="on int arrays NumPy computes in float64, torch in float32"),
    "round": Twin("round"),
    "maximum": Twin("maximum", no_constant_args=True),
    "minimum": Twin("minimum", no_constant_args=True),
    "where": Twin("where"),
    "clip": Twin("clamp", renames=(("a_min", "min"), ("a_max", "max"))),
    "sum": Twin("sum", AXIS, exact=False),
    "mean": Twin("mean", AXIS, exact=False),
    "prod": Twin("prod", AXIS, exact=False),
    "cumsum": Twin("cumsum", (("axis", "dim"),), exact=False),
    "max": Twin("amax", AXIS),
    "min": Twin("amin", AXIS),
    "amax": Twin("amax", AXIS),
    "amin": Twin("amin", AXIS),
    "argmax": Twin("argmax", AXIS),
    "argmin": Twin("argmin", AXIS),
    "all": Twin("all", AXIS),
    "any": Twin("any", AXIS),
    "zeros": Twin("zeros", float64_default=True),
    "ones": Twin("ones", float64_default=True),
    "full": Twin("full", dtype_position=2),
    "eye": Twin("eye", float64_default=True, dtype_position=3),
    "zeros_like": Twin("zeros_like"),
    "ones_like": Twin("ones_like"),
    "arange": Twin("arange", dtype_position=3),
    # NumPy's default indexing is "xy" (torch's "ij"). NumPy also flattens N-d inputs and mixes
    # dtypes, which torch.meshgrid refuses: eager keeps NumPy, the export computes the same grids.
    "meshgrid": Twin("meshgrid", defaults=(("indexing", '"xy"'),), exact=False,
                     differs="NumPy flattens N-d inputs and accepts mixed dtypes"),
    # NumPy computes start + i * step in float64, torch.linspace from both ends: the last bit may
    # differ, so eager keeps NumPy; the result is float64 unless a dtype is given.
    "linspace": Twin("linspace", (("num", "steps"), ("stop", "end")), exact=False, float64_default=True, dtype_position=5),
    "concatenate": Twin("cat", (("axis", "dim"),)),
    "stack": Twin("stack", (("axis", "dim"),)),
    "ravel": Twin("ravel"),  # a flat copy or view, C order, in both (an `order` argument blocks)
    # both make 1-D arrays rows first (vstack) or concatenate them along 0 (hstack); NumPy also
    # takes nested lists and mixed dtypes: eager keeps NumPy
    "vstack": Twin("vstack", exact=False, differs="NumPy also stacks nested lists and mixed dtypes"),
    "hstack": Twin("hstack", exact=False, differs="NumPy also stacks nested lists and mixed dtypes"),
    "tile": Twin("tile", (("reps", "dims"),)),  # torch.tile pads `dims` and the input as np.tile does
    # `np.append(a, b, axis=k)` concatenates the two along k (`torch.cat((a, b), dim=k)`); without
    # an axis NumPy flattens both first (blocked). Its typical use appends computed boxes to an
    # empty float32 array, where NumPy and torch promote apart: float32 with int64 is float64 in
    # NumPy, float32 in torch.
    "append": Twin("cat", (("axis", "dim"),), exact=False, packs=2,
                   differs="NumPy promotes a float32 array joined with an int64 one to float64, torch to float32"),
    "reshape": Twin("reshape", (("newshape", "shape"),)),
    # np.split raises unless sections divide evenly; when it succeeds, tensor_split agrees.
    "split": Twin("tensor_split", (("indices_or_sections", "indices_or_sections"), ("axis", "dim"))),
    "array_split": Twin("tensor_split", (("axis", "dim"),)),
    "transpose": Twin("permute", (("axes", "dims"),)),
    "squeeze": Twin("squeeze", (("axis", "dim"),)),
    "expand_dims": Twin("unsqueeze", (("axis", "dim"),)),
    "swapaxes": Twin("swapaxes", (("axis1", "axis0"), ("axis2", "axis1"))),
    "matmul": Twin("matmul", exact=False),
    "dot": Twin("matmul", exact=False, differs="`numpy.dot` of arrays with more than 2 dimensions is no matmul"),
    "einsum": Twin("einsum", exact=False),
    # torch.frexp does not export (ONX514); its helper is exact: the same mantissa bits (in the
    # input's dtype) and int32 exponent as NumPy's, zeros, inf and NaN included.
    "frexp": Twin("frexp", helper="frexp"),
    # the limits of a float or int type: the same numbers for the types both have (float16 / 32 /
    # 64, the ints), NumPy's as a scalar of the type, torch's as a Python float or int, which
    # round apart in Python arithmetic: eager keeps NumPy (ESPnet's and FunASR's
    # `float(numpy.finfo(torch.tensor(0, dtype=scores.dtype).numpy().dtype).min)`)
    "finfo": Twin("finfo", exact=False),
    "iinfo": Twin("iinfo", exact=False),
    # Moves of elements, as torch's own NumPy layer (torch/_numpy/_funcs_impl.py) maps them: the
    # same elements in the same places, bit for bit. NumPy's flip returns a view, torch's a copy:
    # the same values (a write through the view is an ndarray method, which blocks the fix).
    "flip": Twin("flip", (("axis", "dims"),), axes_tuple=True),
    "flipud": Twin("flipud"),
    "fliplr": Twin("fliplr"),
    "roll": Twin("roll", (("shift", "shifts"), ("axis", "dims"))),
    "rot90": Twin("rot90", (("k", "k"), ("axes", "dims"))),
    # NumPy without an axis repeats the flattened array, as repeat_interleave without a dim does
    "repeat": Twin("repeat_interleave", (("axis", "dim"),)),
    "broadcast_to": Twin("broadcast_to", (("shape", "size"),)),
    # `np.indices(shape)`: each dimension's indices on the grid, stacked; torch builds the same
    # integers from aranges ("ij" meshgrid). Not exact for one input: an empty shape, where NumPy
    # returns an empty array and torch.meshgrid raises. So eager keeps NumPy (the guard); under
    # export the twin gives the same values or an error, never other values.
    "indices": Twin("stack", exact=False, spelled='torch.stack(torch.meshgrid(*[torch.arange(n) for n in shape], indexing="ij"))'),
}
# the limits `numpy.finfo` / `iinfo` and torch's both have, the same numbers for the same type
TYPE_LIMITS = {"finfo": frozenset({"min", "max", "eps", "tiny", "smallest_normal", "resolution", "bits"}),
               "iinfo": frozenset({"min", "max", "bits"})}
# Twins that make an array from numbers or join a sequence of arrays; every other twin's torch
# function needs tensors where NumPy also takes a tuple or a Python number (`np.tile(size, 2)`).
CREATION = frozenset({"zeros", "ones", "full", "eye", "arange", "linspace", "indices"})
SEQUENCE_JOINS = frozenset({"concatenate", "stack", "vstack", "hstack"})
# the positions that must hold arrays: all of meshgrid's, both of append's, else the first
ARRAY_POSITIONS = {"meshgrid": None, "append": 2}
# NumPy functions returning a tuple of arrays: `m, e = np.frexp(a)` binds two arrays.
TUPLE_RESULTS = frozenset({"frexp", "meshgrid"})
NUMPY_DTYPES = {
    "float16": "float16", "float32": "float32", "float64": "float64", "double": "float64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
    "bool_": "bool", "complex64": "complex64", "complex128": "complex128",
}
# ndarray methods with a Tensor method of the same meaning (the TWINS entry of the same name):
# `x.numpy().sum()` -> `x.sum()`, `a.max(axis=1)` -> `a.amax(dim=1)`, `a.transpose(1, 0, 2)` ->
# `a.permute(1, 0, 2)`; `a.copy()` copies as `clone` does; `a.astype(D)` is `a.to(D, copy=True)`
# (both copy and cast the same way, a float to an int truncating).
METHOD_TWINS = {"copy": Twin("clone"), "astype": Twin("to")}
NDARRAY_METHODS = frozenset({"sum", "prod", "cumsum", "max", "min", "argmax", "argmin", "all", "any", "ravel",
                             "reshape", "transpose", "swapaxes", "squeeze", *METHOD_TWINS})
# methods whose arguments are several positions (`a.reshape(-1, 4)`), not one axis
VARIADIC_METHODS = frozenset({"reshape", "transpose", "swapaxes"})
# `a.astype(float)`: the NumPy dtype a Python type names on every platform (`int` is int32 on
# Windows under NumPy 1.x: not translated)
PYTHON_TYPE_DTYPES = {"float": "float64", "bool": "bool", "complex": "complex128"}


def method_twin(name: str) -> Twin:
    return METHOD_TWINS.get(name) or TWINS[name]


def argument_blockers(name: str, call: ast.Call, array_lists: frozenset[str] | set[str] = frozenset(),
                      sequences: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Why a call of ``numpy.<name>`` has no one-call torch twin with these arguments
    (``array_lists``: names holding lists of arrays, sequences of tensors once rewritten;
    ``sequences``: names some binding makes a Python list or tuple)."""
    keywords = {k.arg for k in call.keywords}
    blockers = []
    if name == "cumsum" and len(call.args) < 2 and "axis" not in keywords:
        blockers.append("`numpy.cumsum` without an axis flattens (`torch.cumsum` needs a dim)")
    if name == "meshgrid" and keywords & {"sparse", "copy"}:
        blockers.append("`numpy.meshgrid` with `sparse=` or `copy=` (torch.meshgrid has neither)")
    if name == "linspace" and (len(call.args) + len(call.keywords) < 3 or len(call.args) > 3
                               or keywords - {"start", "stop", "num", "dtype"}):
        blockers.append("`numpy.linspace` with its default 50 points, `endpoint=`, `retstep=` or `axis=`")
    if name == "tile" and not (len(call.args) == 2 and (isinstance(call.args[1], (ast.Tuple, ast.List))
                                                         or int_repetitions(call))):
        blockers.append("`numpy.tile` takes an int for its repetitions, `torch.tile` a tuple only")
    if name in ("zeros", "ones", "full", "eye", "arange") and len(call.args) > TWINS[name].dtype_position:
        blockers.append(f"`numpy.{name}` with its dtype passed by position (torch takes `dtype=` only)")
    if name == "eye" and (len(call.args) > 2 or "k" in keywords):
        blockers.append("`numpy.eye` with a diagonal offset `k` (torch.eye has none)")
    if name == "full" and not (len(call.args) >= 2 and _shape_sequence(call.args[0])):
        blockers.append("`numpy.full` of a shape that is no tuple or list (torch.full takes only those), or of "
                        "a fill given by keyword")
    if name == "full" and "dtype" not in keywords and not _int_or_bool_literal(call.args[1:2]):
        blockers.append("`numpy.full` without a dtype of a fill that is no int or bool literal (NumPy makes a "
                        "float fill float64, torch float32)")
    if name == "append" and not ((len(call.args) == 3 and not keywords) or (len(call.args) == 2 and keywords == {"axis"})):
        blockers.append("`numpy.append` without an axis flattens its arguments (no one-call twin)")
    if name == "ravel" and (len(call.args) > 1 or keywords):
        blockers.append("`numpy.ravel` with an `order` (Tensor.ravel is C order only)")
    if name in ("vstack", "hstack") and not (
            len(call.args) == 1 and isinstance(call.args[0], (ast.List, ast.Tuple))
            and not any(isinstance(e, (ast.List, ast.Tuple, ast.Constant, ast.Starred)) for e in call.args[0].elts)
    ) and not (len(call.args) == 1 and isinstance(call.args[0], ast.Name) and call.args[0].id in array_lists):
        blockers.append(f"`numpy.{name}` of something other than a list of arrays (torch needs a sequence of tensors)")
    if name in ELEMENT_MOVES and (not call.args or keywords - {old for old, _ in TWINS[name].renames}):
        blockers.append(f"`numpy.{name}` with its array given by keyword, or a keyword torch's twin does not take")
    if name == "roll" and not _aligned_shifts(call):
        blockers.append("`numpy.roll` with shifts and axes of other lengths (NumPy broadcasts them, torch.roll does not)")
    if name == "broadcast_to" and not (len(call.args) > 1 and _shape_sequence(call.args[1])):
        blockers.append("`numpy.broadcast_to` of a shape that is no tuple, list or `.shape` (torch takes those only)")
    if name == "flip" and literal_axes(call) is None:
        blockers.append("`numpy.flip` of all axes or of axes in a variable (torch.flip needs the dims as a tuple)")
    if name == "indices" and (len(call.args) != 1 or keywords - {"dtype"} or not _numpy_dtype_keyword(call)):
        blockers.append("`numpy.indices` with `sparse=`, a dtype by position or a dtype other than a NumPy type")
    if name == "repeat" and _python_sequence(passed_argument(call, NUMPY_PARAMETERS["repeat"], "repeats"), sequences):
        blockers.append("`numpy.repeat` of a list of repetitions (torch.repeat_interleave takes an int or a tensor)")
    if name == "transpose" and len(call.args) < 2 and "axes" not in keywords:
        blockers.append("`numpy.transpose` without axes reverses all dimensions (no one-call twin)")
    return blockers


def _python_sequence(node: ast.expr | None, sequences: frozenset[str] | set[str]) -> bool:
    """A list or tuple display, or a name some binding makes one (`counts = [1, 2]`)."""
    return isinstance(node, (ast.List, ast.Tuple, ast.ListComp)) or (isinstance(node, ast.Name) and node.id in sequences)


# the moves of elements whose keywords are exactly their renames (no `subok=`, no array by keyword)
ELEMENT_MOVES = frozenset({"flip", "flipud", "fliplr", "roll", "rot90", "repeat", "broadcast_to"})


# NumPy's positional parameters where a blocker or a fix reads an argument
NUMPY_PARAMETERS = {"roll": ["a", "shift", "axis"], "flip": ["m", "axis"], "repeat": ["a", "repeats", "axis"]}


def _aligned_shifts(call: ast.Call) -> bool:
    """`np.roll(a, 1)`, `np.roll(a, 1, axis=0)`, `np.roll(a, (1, 2), (0, 1))`: one shift per axis,
    as torch.roll takes them (an int literal alone, or literal sequences of one length)."""
    shift = passed_argument(call, NUMPY_PARAMETERS["roll"], "shift")
    axis = passed_argument(call, NUMPY_PARAMETERS["roll"], "axis")
    if int_constant(shift) is not None:
        return axis is None or int_constant(axis) is not None
    shifts, axes = _int_sequence(shift), _int_sequence(axis)
    return shifts is not None and axes is not None and len(shifts) == len(axes)


def literal_axes(call: ast.Call) -> ast.expr | None:
    """The axis of `np.flip(a, 0)` / `np.flip(a, axis=(0, 1))` when it is an int literal or a
    tuple or list of them, else None (absent: every axis)."""
    axes = passed_argument(call, NUMPY_PARAMETERS["flip"], "axis")
    return axes if axes is not None and (int_constant(axes) is not None or _int_sequence(axes)) else None


def _int_sequence(node: ast.expr | None) -> list[int] | None:
    """The ints of a tuple or list literal of int literals (`(0, -1)`), else None."""
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    values = [int_constant(e) for e in node.elts]
    return values if None not in values else None


def _numpy_dtype_keyword(call: ast.Call) -> bool:
    """No `dtype=`, or `dtype=np.<type>` of a type torch has."""
    dtypes = [k.value for k in call.keywords if k.arg == "dtype"]
    return not dtypes or (isinstance(dtypes[0], ast.Attribute) and dtypes[0].attr in NUMPY_DTYPES)


def _shape_sequence(node: ast.expr) -> bool:
    """A tuple or list literal, `x.shape` or `x.size()`: what torch.full takes as its size."""
    return isinstance(node, (ast.Tuple, ast.List)) or (isinstance(node, ast.Attribute) and node.attr == "shape") or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and not node.args)


def _int_or_bool_literal(values: list[ast.expr]) -> bool:
    """`np.full(shape, 0)`: int64 in both, `True`: bool in both."""
    return len(values) == 1 and isinstance(values[0], ast.Constant) and type(values[0].value) in (int, bool)


# Twins whose torch function takes Python numbers besides tensors in these positions (`torch.add(a, 2)`);
# maximum / minimum take tensors only (no_constant_args).
NUMBER_OPERANDS = frozenset({"add", "subtract", "multiply", "equal", "not_equal", "greater", "greater_equal",
                             "less", "less_equal", "power", "divide", "true_divide", "where", "clip"})


def int_repetitions(call: ast.Call) -> bool:
    """`np.tile(a, 2)`: an int literal of repetitions, which torch.tile takes as `(2,)`."""
    reps = call.args[1] if len(call.args) > 1 else None
    return isinstance(reps, ast.Constant) and type(reps.value) is int


def foreign_elements(call: ast.Call, ctx: "FunctionContext") -> list[str]:
    """An argument bound to a list built from calls of the project's own functions (BigBird's
    `rand_attn = [self._bigbird_block_rand_mask(...) for _ in range(n_heads)]` then
    `np.stack(rand_attn)`): their results may be NumPy arrays, which the torch twin refuses."""
    for argument in call.args:
        if not isinstance(argument, ast.Name):
            continue
        for value in ctx.assignments(argument.id):
            elements = [value.elt] if isinstance(value, ast.ListComp) else (
                list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [])
            for element in elements:
                if isinstance(element, ast.Call) and ctx.tensors.is_tensor(element) is not True and not (
                        (ctx.qualname(element.func) or "").startswith(("torch.", "numpy."))):
                    return [f"`{argument.id}` holds what `{ctx.segment(element.func)}` returns, maybe NumPy arrays "
                            "(the torch twin needs tensors)"]
    return []
