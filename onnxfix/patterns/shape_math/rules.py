"""ONX401 (in-place arithmetic on sizes), ONX403 (builtin max/min of tensors), ONX404 (a scale
factor computed from sizes)."""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.rewriter.bindings import parameter_reaches
from onnxfix.rewriter.config_numbers import is_config_number
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.precedence import ATOM, SYMBOLS, UNARY, operand
from onnxfix.decompositions import helper_source
from onnxfix.patterns.shape_math.scaled_resize import matrix_mode, scaled_resize_fix
from onnxfix.rewriter.size_derived import size_derived
from onnxfix.rewriter.tensors import TENSOR_TUPLES
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk

OPERATORS = SYMBOLS
ATOMIC = (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript)


class InplaceShapeMath(Rule):
    code = "ONX401"
    triggers = tuple(f"{op}=" for op in "+ - * / % @ & | ^ << >>".split())  # `**=`, `//=` too
    name = "inplace-shape-math"
    summary = "in-place arithmetic on a value taken from a tensor's shape"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds augmented assignments (`+=`, `-=`, `*=`, `//=`, ...) to a name whose value
            came from `tensor.shape` or `tensor.size()`, directly, by unpacking
            (`b, s = x.shape[:2]`), through arithmetic, or through an alias (`r = s`); and to an
            item of a list built from a size tuple (`final_shape = list(input_shape)`, then
            `final_shape[1] += n`: LayoutLMv2), whose items are the traced sizes themselves.
        """,
        why="""
            Under the legacy TorchScript exporter (`dynamo=False`), sizes are traced as tensors
            and `r += 2` is recorded as an in-place add on the traced size itself, which also
            changes every other use of that size. The exported model is wrong even on the export
            inputs (measured on torch 2.13: the docs' example returns 12 instead of 10), and the
            only signal is a line on stderr ("In-place op on output of tensor.shape"). The
            dynamo exporter treats sizes as immutable SymInts and is not affected.
        """,
        example="""
            def forward(self, states):
                b, s = states.shape[:2]
                r = s
                r += 2
                return states * (r + s)
        """,
        use_instead="""
            def forward(self, states):
                b, s = states.shape[:2]
                r = s
                r = r + 2
                return states * (r + s)
        """,
        fix_safety="""
            Safe. Sizes are Python ints in eager mode, which are immutable, so `r = r + 2`
            computes exactly what `r += 2` did.
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-inplace-operations-when-using-tensor-shape-in-tracing-mode",
        ),
    )

    def visit_AugAssign(self, node: ast.AugAssign, ctx: FunctionContext):
        target = node.target
        if type(node.op) not in OPERATORS:
            return
        if not (isinstance(target, ast.Name) and ctx.sizes.is_size(target)) and not _size_list_item(target, ctx):
            return
        value = ctx.segment(node.value)
        if not isinstance(node.value, ATOMIC):
            value = f"({value})"
        operator = OPERATORS[type(node.op)]
        name = ctx.segment(target)
        fix = Fix(
            title=f"Rewrite as `{name} = {name} {operator} ...`",
            edits=(ctx.replace(node, f"{name} = {name} {operator} {value}"),),
            safe=True,
        )
        yield ctx.report(
            self,
            node,
            f"in-place `{operator}=` on `{name}`, a value taken from a tensor shape: the legacy "
            f"exporter mutates the traced size and exports a wrong model",
            fix=fix,
        )


def _same_block(value: ast.expr, target: ast.expr, ctx: FunctionContext) -> bool:
    """The statements holding ``value`` and ``target`` are in one block (the binding always runs
    before the `+=`, and no branch chose another)."""
    def statement(node):
        return next((a for a in [node, *ctx.ancestors(node)] if isinstance(a, ast.stmt)), None)

    first, second = statement(value), statement(target)
    return first is not None and second is not None and ctx.parent(first) is ctx.parent(second) and any(
        first in block and second in block for block in (getattr(ctx.parent(first), f, None) or []
                                                          for f in ("body", "orelse", "finalbody")))


def _size_list_item(target: ast.expr, ctx: FunctionContext) -> bool:
    """`shape[1]` (an int index) of a list the function builds once from a tensor's sizes
    (LayoutLMv2's `final_shape = list(input_shape)`, `input_shape = input_ids.size()`), every item
    it stores an int: its items are the traced sizes themselves, shared with the size tuple and
    with every other list built from it, so `shape[1] += n` changes them all under legacy."""
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            and int_constant(target.slice) is not None):
        return False
    name = target.value.id
    # the binding the `+=` reads: the last one above it in straight-line code (LayoutLMv2 rebinds
    # the name to `torch.Size(final_shape)` after)
    before = [v for v in ctx.assignments(name) if getattr(v, "lineno", target.lineno) < target.lineno]
    loops = (ast.For, ast.While, ast.AsyncFor, ast.comprehension)
    if ctx.is_parameter(name) or not before or any(isinstance(a, loops) for a in ctx.ancestors(target)):
        return False
    built = max(before, key=lambda v: (v.lineno, v.col_offset))
    if not isinstance(built, ast.Call) or not _same_block(built, target, ctx):
        return False  # a list built in a branch may be another's (`list(size)` of a tensor argument)
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
           and n.func.value.id == name for n in walk(ctx.fn.node)):
        return False  # `.insert(0, t)`, `.append(...)`: items that may not be ints
    if not (isinstance(built.func, ast.Name) and built.func.id == "list" and len(built.args) == 1 and not built.keywords
            and ctx.sizes.is_size(built.args[0])):
        return False
    stores = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Assign) for t in n.targets
              if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name]
    return all(ctx.ints.is_int(s.value) or ctx.sizes.is_size(s.value) for s in stores)



class BuiltinMaxMin(Rule):
    code = "ONX403"
    name = "builtin-max-min-on-tensors"
    summary = "Python `max()`/`min()` comparing tensors, or the rows of one tensor (or tensor sizes, which the legacy exporter traces as tensors)"
    fix_availability = "sometimes"
    default_safety = "unsafe"
    exporters = (LEGACY, DYNAMO)  # dynamo: `max(t)` of one tensor only
    doc = RuleDoc(
        what="""
            Finds the builtins `max(a, b)` and `min(a, b)` where an argument is a tensor
            (`max(x.sum(), y.sum())`, `min(scale, 1.0)` with a tensor `scale`), and `max`/`min`
            of tensor sizes (`max(h, w)`, `max(x.shape[-2:])`, YOLOv3's `max(img_size)`, and
            sizes beside ints: WeNet's streaming `max(attention_key_size - required_cache_size, 0)`),
            and `max(t)` / `min(t)` of one tensor (speech models' `max_len = max(lengths)`,
            MusicGen's `first_start_id = min(start_ids)` over a `nonzero` column).
        """,
        why="""
            Python's `max` compares with `>`, which turns a tensor comparison into a Python
            bool. The legacy exporter records the branch taken at export time (TracerWarning
            "Converting a tensor to a Python boolean"): measured on torch 2.13
            (tests/test_values_exporters.py) it is silently wrong on other values for both
            tensor/tensor and tensor/number arguments. The dynamo exporter captures the
            comparison as `aten.maximum` and is correct, so the finding is legacy-only, except
            for `max(t)` of one tensor: the legacy trace unrolls its rows for the export-time
            length, and when that length is dynamic or comes from the data the dynamo exporter
            fails (torch.export's non-strict run: "TypeError: maximum() missing 1 required
            positional arguments: 'other'"; its strict retry cannot iterate such a tensor;
            measured on torch 2.13, tests/test_values_exporters.py MaxOfOneTensor). Sizes
            too: while the legacy exporter traces, `x.shape[i]` is a 0-d tensor, and `max(h, w)`
            keeps the export-time winner (measured: silently wrong when the other size wins).
        """,
        example="""
            def forward(self, x: torch.Tensor, y: torch.Tensor):
                return x * max(x.sum(), y.sum()) + min(x.mean(), 0.5)
        """,
        use_instead="""
            def forward(self, x: torch.Tensor, y: torch.Tensor):
                return x * torch.maximum(x.sum(), y.sum()) + torch.clamp(x.mean(), max=0.5)
        """,
        fix_safety="""
            Unsafe. `max(a, b)` returns one of its arguments unchanged, while
            `torch.maximum(a, b)` computes a new tensor: the results differ when an argument
            is NaN (`max(nan, 1)` is `nan` but `max(1, nan)` is `1`; torch propagates NaN),
            when the dtypes differ (torch promotes, `max` keeps the winner's dtype), and when
            the tensors have more than one element (`max` raises, torch broadcasts). With a
            number, `torch.clamp(t, min=c)` replaces `max(t, c)`; `max(c, t)` returned the
            Python number `c` when it won and now returns a tensor. The fix covers two
            arguments; three or more are reported only. Of sizes: safe. `_onnx_size_extreme`
            is the builtin itself unless the legacy exporter is tracing (in eager the same int,
            and dynamo's symbolic sizes keep the builtin, which it captures); while tracing, the
            max/min of the stacked size tensors, a graph value. `max(t)` of one tensor becomes
            `t.amax(0)` (`min(t)`: `t.amin(0)`): unsafe. Both give the extreme along the first
            dimension in `t`'s dtype and shape (a 0-d tensor for a 1-D `t`, shape (1,) for a
            single-column one; wider rows make the builtin raise), but the builtin returns an
            element (a view of `t`) where `amax` makes a new tensor, keeps the first of equal
            values by `>` (a NaN wins or loses by its position; `amax` propagates it), and sends
            the whole gradient to that element where `amax` splits it between equal values. A
            tuple of tensors (`x.chunk(2)`, `x.topk(k)`, `torch.where(mask)`, `as_tuple=True`,
            `return_counts=True`, or a name bound to one) is not reported: its builtin max
            compares the tensors.
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
            "https://pytorch.org/docs/stable/generated/torch.maximum.html",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        function = builtin_call(node, ctx, frozenset({"max", "min"}))
        if function is None or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return
        if _all_sizes(node, ctx):
            text = f"_onnx_size_extreme({function == 'max'}, {', '.join(ctx.segment(a) for a in node.args)})"
            fix = None if ctx.compiled_by_torchscript else Fix(  # TorchScript compiles no `*sizes` helper
                "Take the max/min of the sizes as a graph value while tracing", (ctx.replace(node, text),),
                safe=True, imports=("torch",), helpers=(SIZE_EXTREME,))
            yield ctx.report(self, node, f"Python `{function}()` of tensor sizes: while the legacy exporter traces, sizes "
                             "are tensors and it freezes the export-time winner (silently wrong when another size "
                             "wins)", fix=fix, exporters=(LEGACY,))
            return
        if len(node.args) == 1 and ctx.tensors.is_tensor(node.args[0]) and not _may_be_tuple(node.args[0], ctx):
            yield self._one_tensor(node, function, ctx)
            return
        if len(node.args) < 2:
            return
        tensors = [ctx.tensors.is_tensor(a) for a in node.args]
        if not any(tensors):
            return
        fix = self._fix(node, function, tensors, ctx) if len(node.args) == 2 else None
        yield ctx.report(
            self, node,
            f"Python `{function}()` on tensors compares them as Python booleans: the legacy exporter "
            f"freezes the export-time winner",
            fix=fix, exporters=(LEGACY,),
        )

    def _one_tensor(self, node: ast.Call, function: str, ctx: FunctionContext):
        """`max(lengths)` of one tensor: Python iterates its first dimension and compares the rows.
        torch.export's non-strict run maps the builtin to `torch.maximum` with one argument
        ("TypeError: maximum() missing 1 required positional arguments") and its strict retry
        cannot iterate a tensor of dynamic length; the legacy trace unrolls the rows of the
        export-time length and keeps that winner."""
        (tensor,) = node.args
        reduction = "amax" if function == "max" else "amin"
        text = f"{operand(ctx.segment(tensor), tensor, ATOM)}.{reduction}(0)"
        fix = Fix(f"Use `Tensor.{reduction}(0)`", (ctx.replace(node, text),), safe=False)
        return ctx.report(
            self, node,
            f"Python `{function}()` of one tensor iterates over its rows and compares them as Python booleans: "
            f"the legacy exporter freezes the export-time winner and the dynamo exporter fails when its length is "
            f"dynamic (`{'maximum' if function == 'max' else 'minimum'}() missing 1 required positional arguments`); "
            f"`Tensor.{reduction}(0)` computes it in the graph",
            fix=fix, exporters=(LEGACY, DYNAMO))

    def _fix(self, node: ast.Call, function: str, tensors: list, ctx: FunctionContext) -> Fix | None:
        torch, imports = ctx.torch_name()
        a, b = node.args
        if all(tensors):
            call = "maximum" if function == "max" else "minimum"
            text = f"{torch}.{call}({ctx.segment(a)}, {ctx.segment(b)})"
        else:
            tensor, number = (a, b) if tensors[0] else (b, a)
            if not (_is_number_literal(number) or _known_number(number, ctx)):
                return None
            bound = "min" if function == "max" else "max"
            text = f"{torch}.clamp({ctx.segment(tensor)}, {bound}={ctx.segment(number)})"
        title = f"Use `{text.split('(')[0]}`"
        return Fix(title, (ctx.replace(node, text),), safe=False, imports=imports)


# ops the tensor oracle counts as tensors that return one only for some arguments (TENSOR_TUPLES
# holds them, beside the ops that always return a tuple: split, chunk, topk, sort, ...)
TENSOR_OR_TUPLE = frozenset({"where", "nonzero", "unique", "unique_consecutive"})
TUPLE_KEYWORDS = frozenset({"as_tuple", "return_counts", "return_inverse", "return_indices"})


def _may_be_tuple(node: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """A tuple of tensors, whose builtin max compares the tensors, not one tensor's rows:
    `x.chunk(2)`, `x.topk(k)`, `torch.where(mask)` (one argument), `x.nonzero(as_tuple=True)`,
    `torch.unique(x, return_counts=True)`, or a name bound to one of those."""
    if isinstance(node, ast.Name) and depth < 3:
        return any(isinstance(v, ast.expr) and _may_be_tuple(v, ctx, depth + 1) for v in ctx.assignments(node.id))
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name not in TENSOR_OR_TUPLE:
        return name in TENSOR_TUPLES
    return (name == "where" and len(node.args) + len(node.keywords) == 1) or any(
        k.arg in TUPLE_KEYWORDS and not (isinstance(k.value, ast.Constant) and k.value.value is False)
        for k in node.keywords)


SIZE_EXTREME = Helper("_onnx_size_extreme", helper_source("size_extreme"))


def _all_sizes(node: ast.Call, ctx: FunctionContext) -> bool:
    """`max(h, w)` of sizes (with ints beside them: WeNet's `max(attention_key_size -
    required_cache_size, 0)`), or `max(x.shape[-2:])` / `max(size)` of a tuple of sizes."""
    if len(node.args) >= 2:
        sizes = [ctx.sizes.is_size(a) for a in node.args]
        return any(sizes) and all(size or (ctx.ints.is_int(a) and not _read_from_values(a, ctx))
                                  for size, a in zip(sizes, node.args))
    if len(node.args) != 1:
        return False
    (only,) = node.args
    if ctx.sizes.is_size(only):  # `x.shape[-2:]`, a name holding sizes
        return True
    if isinstance(only, ast.Name) and ctx.is_parameter(only.id) and not ctx.assignments(only.id):
        # `max(ng)` where every call passes a tuple of sizes (YOLOv3's `create_grids(self, img_size, (nx, ny))`)
        return ctx.across_calls("size tuple", only.id, lambda caller, argument: _sizes_tuple(argument, caller))
    return _sizes_tuple(only, ctx)


def _read_from_values(node: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """An int read out of a tensor's values (`int(t.max().item())`, `len(t.tolist())`): the legacy
    trace keeps the example's number, so `max(size, it)` as a graph value compares the size with that
    constant, where Python kept whichever won at export (QwenImage's `max(text_seq_len,
    int(per_sample_len.max().item()))`: the size always won, and the traced size is right)."""
    if isinstance(node, ast.Name) and depth < 3:
        values = [v.value if isinstance(v, ast.Assign) else v for v in ctx.assignments(node.id)]
        return any(isinstance(v, ast.expr) and _read_from_values(v, ctx, depth + 1) for v in values)
    for n in walk(node):
        if isinstance(n, ast.Call) and (ctx.tensors.item_receiver(n) is not None or (
                isinstance(n.func, ast.Attribute) and n.func.attr == "tolist") or (
                isinstance(n.func, ast.Name) and n.func.id in ("int", "float", "round") and n.args
                and ctx.tensors.is_tensor(n.args[0]))):
            return True
    return False


def _sizes_tuple(node: ast.AST, ctx: FunctionContext) -> bool:
    return (isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) >= 2
            and all(ctx.sizes.is_size(e) for e in node.elts))


def _known_number(node: ast.expr, ctx: FunctionContext) -> bool:
    """A Python int by its source (a parameter annotated `int`, integer arithmetic of those) or a
    number the module's `__init__` configured: icefall's `max(max_len, lengths.max())` with
    `max_len: int = 0`. Not a size, which the legacy tracer makes a tensor."""
    annotated = isinstance(node, ast.Name) and ctx.annotation(node.id) in ("int", "float") \
        and parameter_reaches(node, ctx)
    return not ctx.tensors.is_tensor(node) and not ctx.sizes.is_size(node) and (
        annotated or ctx.ints.is_int(node) or is_config_number(node, ctx))


def _is_number_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


INTERPOLATE = frozenset({"torch.nn.functional.interpolate"})


class SizeScaleFactor(Rule):
    code = "ONX404"
    triggers = ("scale_factor",)
    name = "size-scale-factor"
    summary = "`F.interpolate(scale_factor=...)` with a factor computed from sizes"
    fix_availability = "sometimes"
    default_safety = "safe"
    doc = RuleDoc(
        what="""
            Finds `F.interpolate(x, scale_factor=s)` where `s` is computed from tensor sizes
            (`s = ref.shape[-1] // x.shape[-1]`): the scale that makes one feature map match
            another, as in FPN-style decoders (pytorch/pytorch#82811).
        """,
        why="""
            Both exporters take `scale_factor` as a constant. Measured on torch 2.13 with the
            sizes dynamic (tests/realworld/interpolate_scale_from_sizes.py, bench/realworld.py):
            the dynamo exporter fails at step 1 (the factor is a SymInt where a number is
            expected) and the legacy exporter fails with "upsample_nearest2d() received an
            invalid combination of arguments".
        """,
        example="""
            def forward(self, x, ref):
                scale = ref.shape[-1] // x.shape[-1]
                return F.interpolate(x, scale_factor=scale, mode="nearest")
        """,
        use_instead="""
            def forward(self, x, ref):
                scale = ref.shape[-1] // x.shape[-1]
                return F.interpolate(x, size=[d * scale for d in x.shape[2:]], mode="nearest")
        """,
        fix_safety="""
            Offered for `mode="nearest"` (the default), no other option, an input that is a
            name and a factor that is a non-negative int size; safe. The output size is
            `floor(n * s) == n * s` either way, and the nearest kernel's source index uses the
            scale `1/s` (given a factor) or `n / (n * s)` (given a size): the same real number,
            rounded once to float32 from double or directly, which gives the same float (double
            rounding is harmless for a quotient when 53 >= 2 * 24 + 2). Checked with torch.equal
            for every factor and length below 40, float32 and uint8
            (tests/test_values_exactness.py). A float factor, other modes (their
            `align_corners`/antialias paths use the factor differently) and
            `recompute_scale_factor` get no fix.
            A bicubic, bilinear or linear resize by a float scale computed from sizes
            (ViT/DINOv2's position embeddings: `scale_factor=((h + 0.1) / math.sqrt(n), ...)`,
            which torch.export reads as a constant, silently keeping the example's output size)
            calls `_onnx_interpolate_scaled` instead: safe, eager runs F.interpolate with the same
            arguments; while exporting it builds the resize of a floating tensor as one
            interpolation matrix per resized dim from the symbolic scale (ATen's source index,
            coefficients and clamped taps, computed in float32, or float64 for float64 as ATen
            computes, the output size floor(size * scale)): equal to ATen's within float rounding
            (ATen's copy of an axis whose size stays included). An antialiased bilinear or bicubic
            resize (a thumbnail at a fixed height, `scale_factor=16 / image.shape[2]`) gets torch's
            filter weights built from the scale (resample_antialias's helper, written beside it).
            Not nearest, whose kernels disagree on the index a size keeps
            (tests/test_export_scaled_resize.py, tests/export_models/scaled_pos_embed.py,
            scale_from_height_antialias.py). The legacy exporter's tracer holds the scale as a tensor, which
            F.interpolate refuses ("upsample_bicubic2d() received an invalid combination of
            arguments"): while it traces, the same matrices are built from those tensors.
        """,
        references=("https://github.com/pytorch/pytorch/issues/82811",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if ctx.qualname(node.func) not in INTERPOLATE:
            return
        factor = next((k for k in node.keywords if k.arg == "scale_factor"), None)
        if factor is None:
            return
        if not ctx.sizes.is_size(factor.value):
            if matrix_mode(node, ctx) and size_derived(factor.value, ctx):
                fix = scaled_resize_fix(node, ctx)
                yield ctx.report(
                    self, node,
                    "`scale_factor` computed from sizes as a float: torch.export reads it as a constant, so the "
                    "exported model keeps the example's output size (wrong or failing for other sizes); resize by "
                    "the symbolic scale while exporting" + ("" if fix else
                                                          "; no automatic fix: other arguments, or TorchScript"),
                    fix=fix,
                )
            return
        fix, why = None, ""
        keywords = {k.arg for k in node.keywords}
        mode = next((k.value for k in node.keywords if k.arg == "mode"), None)
        nearest = mode is None or (isinstance(mode, ast.Constant) and mode.value == "nearest")
        if not nearest and matrix_mode(node, ctx):
            fix = scaled_resize_fix(node, ctx)
            why = ("; for this mode, resize by the symbolic scale while exporting instead" if fix else
                   "; no automatic fix: other arguments, or TorchScript")
        elif not nearest:
            why = "; no automatic fix: only mode=\"nearest\" is proven to match with `size=`"
        elif not ctx.ints.is_nonnegative_int(factor.value):
            why = "; no automatic fix: the factor is not proven an int (a float factor's output size is floored)"
        elif keywords - {"scale_factor", "mode"} or len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
            why = "; no automatic fix: other options, or an input that is not a plain name"
        else:
            value = ctx.segment(factor.value)
            used = {n.id for n in walk(factor.value) if isinstance(n, ast.Name)}
            var = next(v for v in ("d", "dim", "size_", "_d") if v not in used)
            scale = operand(value, factor.value, UNARY)  # the right operand of `*`
            text = f"size=[{var} * {scale} for {var} in {node.args[0].id}.shape[2:]]"
            fix = Fix("Pass the output size instead", (ctx.replace(factor, text),), safe=True)
        yield ctx.report(
            self, node,
            "`scale_factor` computed from sizes: both exporters need it as a constant (dynamo fails, "
            "legacy fails in upsample); pass `size=` computed from the sizes instead" + why,
            fix=fix,
        )


