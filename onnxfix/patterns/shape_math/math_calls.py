"""ONX402: `math.*` (and NumPy rounding) of tensor sizes, with the exact integer rewrites."""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.decompositions import helper_source
from onnxfix.patterns.scalars.int_division import (
    CHUNK_COUNT, RATIO_CAVEAT, counts_chunks, has_true_division, int_of_integer_arithmetic, ratio_floor_division,
)
from onnxfix.patterns.scalars.sym_int import takes_the_traced_tensor
from onnxfix.rewriter.bindings import bound_once
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.precedence import ARITH, ATOM, COMPARE, POWER, TERM, UNARY, in_place_of, operand, precedence
from onnxfix.rewriter.rule import Edit, Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk


SIZE_ROUND = Helper("_onnx_size_round", helper_source("size_round"))
SIZE_SQRT = Helper("_onnx_size_sqrt", helper_source("size_sqrt"))
MATH_FUNCTIONS = frozenset({"math.sqrt", "math.ceil", "math.floor", "math.pow", "math.log2", "numpy.ceil", "numpy.floor"})


class MathOnSize(Rule):
    code = "ONX402"
    name = "math-on-size"
    summary = "`math.sqrt/ceil/floor/pow/log2` (or `numpy.ceil/floor`, `round()`, `.is_integer()`) of a tensor size"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds `math.sqrt`, `math.ceil`, `math.floor`, `math.pow` and `math.log2` applied to
            values computed from tensor sizes (`math.sqrt(x.size(-1))`,
            `math.ceil(x.shape[1] / patch)`), the pattern behind attention scaling, patch
            counts and pyramid levels, and `numpy.ceil` / `numpy.floor` of a size divided by
            something (`int(np.ceil(H / self.window_size))`, GroundingDINO's Swin layers). Seen
            in Segformer and CLIPSeg (`int(math.sqrt(hidden.shape[-1]))`), Swin/ViT/FocalNet
            (`math.floor(sequence_length ** 0.5)`), Llama 4 and Phi-4 patch grids. A size
            divided by a value of unknown type (`H / self.window_size`) counts: Python math on
            it reads the size all the same. Also `(n / multiple).is_integer()` (fairseq's
            and lucidrains' pad_to_multiple), directly or through a name bound to the quotient,
            and the builtin `round()` of a size quotient (torchvision's center_crop:
            `int(round((image_height - crop_height) / 2.0))`).
        """,
        why="""
            Measured on torch 2.13 with dynamic dimensions (tests/test_values_exporters.py):
            - Legacy exporter: every `math.*` call turns the traced size into a Python float
              (TracerWarning "Converting a tensor to a Python float") and the result is a
              constant, silently wrong for other sizes.
            - Dynamo exporter: `math.ceil`, `math.floor` and `math.pow` are captured
              symbolically and export correctly; `math.sqrt` of a dynamic size fails at step 3
              (no ONNX function for `torch._sym_sqrt`) and `math.log2` fails at step 1.
              `numpy.ceil` / `numpy.floor` of a size specialize it (a guard on the export-time
              value: silently wrong or failing for other sizes, tests/realworld/groundingdino_np_ceil.py).
        """,
        example="""
            def forward(self, q, k):
                scores = q @ k.transpose(-1, -2) / math.sqrt(q.size(-1))
                pad = math.ceil(q.shape[1] / 4) * 4 - q.shape[1]
                return F.pad(scores, (0, pad))
        """,
        use_instead="""
            def forward(self, q, k):
                scores = q @ k.transpose(-1, -2) / q.size(-1) ** 0.5  # unsafe fix: see below
                pad = (q.shape[1] + 3) // 4 * 4 - q.shape[1]
                return F.pad(scores, (0, pad))
        """,
        fix_safety="""
            The integer fixes are exact, and safe only when the analysis proves the arguments
            are integers of the right sign (sizes, `len`, integer constants and integer
            arithmetic of those):
            - `math.sqrt(d)` -> `_onnx_size_sqrt(math.sqrt, d)`: safe. Eager (and the legacy
              exporter, which still records the export-time value) run the call itself; under
              torch.export, where `math.sqrt` of a SymInt has no ONNX translation, the helper
              computes `d ** 0.5`, symbolic. With `--unsafe-fixes`, `d ** 0.5` itself: unsafe,
              always. `math.sqrt` is correctly rounded, `d ** 0.5` calls the C library's `pow`, which is not: for 948 of the integers
              below 2**20 (the first is 2921) the results differ in the last bit
              (tests/test_values_exactness.py checks this and the one-ulp bound). It is the
              only form measured to export in both exporters with a dynamic size, so it is
              offered for review with `--unsafe-fixes`. Negative arguments differ too:
              `(-4) ** 0.5` is complex where `math.sqrt` raises.
            - `math.ceil(a / b)` -> `(a + b - 1) // b` for integer `a` and provably
              non-negative integer `b`: safe. `ceil(a/b) == floor((a + b - 1) / b)` holds for
              every integer `a` and `b > 0`, and `a / b` as a float is exact enough for
              `|a| < 2**53`; checked exhaustively for `-512 <= a < 4096`, `1 <= b < 512`
              and on random pairs up to 2**40. With `b == 0` both raise ZeroDivisionError.
            - `math.floor(a / b)` -> `a // b` for integers `a`, `b`: safe, same argument.
            - `a / b + c` or `a / b - c` with an int `c` (EnCodec's frame count
              `(length - kernel_size) / stride + 1`): the offset stays outside,
              `(a + b - 1) // b + c`; `ceil(q + c) == ceil(q) + c` for an int `c`. A local name
              bound once to such a quotient (`math.ceil(n_frames)`) is read through when the
              names its value reads are never rebound. A parameter annotated `int` counts as an
              int (the annotation is the author's contract), never as a positive one; any item
              of a list, tuple or dict of int literals >= 0 that only `__init__` builds, also
              through a comprehension over a submodule's (DNTextSpotter's
              `self.feature_strides[idx]`), counts as a non-negative int.
            - `int(numpy.ceil(a / b))` and `int(numpy.floor(a / b))`: the same rewrites, in place
              of the `int(...)` (NumPy rounds the same float `a / b` to the same integral value;
              without the `int()` the result is a NumPy float and gets no fix). Also inside int
              arithmetic under one `int()` (fbcnn's pad to a multiple, `int(np.ceil(h / 8) * 8 - h)`
              -> `(h + 7) // 8 * 8 - h`): `+`, `-`, `*` of the rounded quotient with ints compute
              the same integer in float64 below 2**53, so the `int()` goes too (it froze the size
              under the legacy exporter).
            - A divisor of unknown type (`H / self.window_size`, an attribute or a parameter
              nothing proves an int): the same rewrites, unsafe. A float or (for `ceil`)
              negative divisor gives another value. `-(-a // b)` is not offered: both exporters
              translate `//` of ints to ONNX `Div`, which truncates, so a negative numerator
              exports wrong (measured on torch 2.13).
            - `math.pow(d, c)` -> `d ** c` (with `c` written as a float) for a non-negative
              integer `d` and a non-negative number literal `c`: safe; both call the C
              library's `pow` on the same floats.
            - `(a / b).is_integer()` -> `a % b == 0` for ints `a`, `b`: safe. For `|a| < 2**53`
              the float `a / b` is within `|a / b| * 2**-53 < 1 / |b|` of the true quotient, so it
              is integral exactly when `b` divides `a` (0 raises either way). A divisor of unknown
              type: unsafe, as above.
            - `round(a / b)` (also inside `int()`) for an int `a` and a positive whole-number
              literal `b` (`2` or `2.0`) -> `a // b + (2 * (a % b) + a // b % 2) // (b + 1)`:
              safe. Python rounds half to even; with `q, r = divmod(a, b)` the result is `q + 1`
              exactly when `2r + (q odd) > b`, and `2r + 1 < 2(b + 1)` keeps the last floor
              division 0 or 1 (tests/test_values_exactness.py, exhaustively and on random
              pairs). A numerator not proven an int: unsafe; another divisor: no fix.
            - `math.ceil(x)` / `math.floor(x)` with no integer form proven exact (a float scale,
              `math.ceil(h * 0.5)`; a divisor of unknown type) -> `_onnx_size_round(math.ceil, x)`:
              safe. Eager and torch.export run the call itself on the same value; only while the
              legacy exporter traces (`x` then a 0-d tensor) the helper rounds in the graph
              (`torch.ceil` / `torch.floor` of a float tensor, then int64). Only where every use
              takes that tensor and no branch the trace freezes on the same sizes sits beside it
              (as ONX203's `_onnx_sym_int`); the trace's float32 math rounds across an integer at
              a few sizes (`math.ceil(50 * 0.3)`). An unsafe integer form (above) is applied
              instead with `--unsafe-fixes`.
            - `round(e)` of an int computed from a size (`round(x.shape[2] * self.ratio)`, the
              ratio an int the module sets; ComfyUI's VAE output size) -> `e`: safe. `round` of an
              int returns that int; under the legacy exporter the size is a 0-d tensor, which
              has no `__round__` (a TypeError, measured on torch 2.13).
            - `math.log2`, and every other argument: no fix (report only).
        """,
        references=(
            "https://github.com/huggingface/transformers/issues/33181",
            "https://github.com/huggingface/transformers/pull/31311",
            "https://github.com/huggingface/transformers/pull/33226",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if _is_integer_test(node) and ctx.sizes.is_size_quotient(node.func.value):
            yield self._is_integer(node, ctx)
            return
        if ctx.sizes.rounds_quotient(node):
            yield self._round(node, ctx)
            return
        if _rounds_int_size(node, ctx):
            argument = node.args[0]
            fix = self._replace(node, ctx, ctx.segment(argument), precedence(argument), "Drop `round()` of an int", True)
            message = ("`round()` of an int computed from a size: the same int in eager, while the legacy exporter's "
                       "size is a 0-d tensor, which has no `__round__` (TypeError)")
            yield ctx.report(self, node, message, fix=fix, exporters=(LEGACY,))
            return
        function = ctx.qualname(node.func)
        if function not in MATH_FUNCTIONS or node.keywords or not node.args:
            return
        if not any(ctx.sizes.is_size_quotient(a) for a in node.args):
            return
        module, name = function.split(".")
        target = node
        outer_int = None
        if module == "numpy":  # a NumPy float64: only `int(numpy.ceil(a / b))` is an int
            wrapper = ctx.parent(node)
            target = wrapper if builtin_call(wrapper, ctx, frozenset({"int"})) and len(wrapper.args) == 1 else None
            if target is None and name in ("ceil", "floor"):
                outer_int = int_of_integer_arithmetic(node, ctx)
                target = node if outer_int is not None else None
        elif name in ("ceil", "floor"):  # `int(math.ceil(q))`: the int it returns already, which torch.export
            wrapper = ctx.parent(node)  # specializes (int() asks a SymInt's value): the rewrite replaces both
            if builtin_call(wrapper, ctx, frozenset({"int"})) and len(wrapper.args) == 1 and not wrapper.keywords:
                target = wrapper
        if target is None:
            fix, why = None, (f"`{function}` returns a NumPy float; only `int({function}(a / b))`, also inside "
                              f"int arithmetic (`int({function}(h / 8) * 8 - h)`), has an integer twin")
        elif counts_chunks(outer_int or target, ctx):
            fix, why = None, CHUNK_COUNT
        else:
            fix, why = getattr(self, f"_fix_{name}")(node, target, ctx)
            if outer_int is not None and fix is not None:  # `int(<int arithmetic>)` is that int
                fix = Fix(fix.title + " and drop the `int()` of the int it makes", (*fix.edits, *_unwrap(outer_int, ctx)),
                          safe=fix.safe)
        rounded_in_graph = module == "math" and name in ("ceil", "floor") and (fix is None or not fix.safe)
        if rounded_in_graph and target is not None and not counts_chunks(outer_int or target, ctx):
            fix, why = _size_round_fix(node, fix, why, ctx)
        if name in ("sqrt", "log2"):
            message = (
                f"`math.{name}` of a size: the legacy exporter records the export-time value and the "
                f"dynamo exporter cannot export it for a dynamic dimension"
            )
            exporters = (LEGACY, DYNAMO)
        elif module == "numpy":
            message = (
                f"`{function}` of a size: the legacy exporter records the export-time value as a constant "
                f"and the dynamo exporter specializes it to the export-time value"
            )
            exporters = (LEGACY, DYNAMO)
        elif target is not node and module == "math":  # `int(math.ceil(q))`
            message = (f"`int(math.{name}(...))` of a size: the legacy exporter records the export-time value as a "
                       "constant, and torch.export pins the size where `int()` asks the value it rounds")
            exporters = (LEGACY, DYNAMO)
        else:
            message = f"`math.{name}` of a size: the legacy exporter records the export-time value as a constant"
            exporters = (LEGACY,)
        if why and fix is not None and fix.safe:  # `_onnx_size_round`, maybe an integer form as its stronger
            message += f"; {why}"
        elif why:
            message += f"; fix is unsafe: {why}" if fix else f"; no automatic fix: {why}"
        yield ctx.report(self, node, message, fix=fix, exporters=exporters)

    def _is_integer(self, node: ast.Call, ctx: FunctionContext):
        """fairseq's `m = n / multiple; if m.is_integer():` before padding to a multiple."""
        (a, b, _), why = _quotient_parts(node.func.value, ctx, positive_divisor=False)
        fix = None
        if a is not None:
            text = f"{operand(ctx.segment(a), a, TERM)} % {operand(ctx.segment(b), b, UNARY)} == 0"
            fix = self._replace(node, ctx, text, COMPARE, "Use `a % b == 0`", not why)
        return self._traced_python_number(node, ctx, "`.is_integer()`", "`is_integer`", fix, why)

    def _round(self, node: ast.Call, ctx: FunctionContext):
        """torchvision's center_crop: `int(round((image_height - crop_height) / 2.0))`."""
        quotient = bound_once(node.args[0], ctx)
        fix, why = None, "only `round(a / b)` with a positive whole-number literal `b` has an integer form here"
        if isinstance(quotient, ast.BinOp) and isinstance(quotient.op, ast.Div) and _whole_number(quotient.right):
            a, divisor = quotient.left, _whole_number(quotient.right)
            why = "" if ctx.ints.is_int(a) else f"`{ctx.segment(a)}` is not proven an int (a float rounds otherwise)"
            if _pure(a):
                n = operand(ctx.segment(a), a, TERM)
                # round half to even: q + 1 exactly when 2 * r + (q odd) exceeds b (q, r = divmod(a, b))
                text = f"{n} // {divisor} + (2 * ({n} % {divisor}) + {n} // {divisor} % 2) // {divisor + 1}"
                target = node
                wrapper = ctx.parent(node)  # int(round(...)): the rewrite is an int already
                if builtin_call(wrapper, ctx, frozenset({"int"})) and len(wrapper.args) == 1:
                    target = wrapper
                fix = self._replace(target, ctx, text, ARITH, "Use integer round-half-even", not why)
            else:
                why = "the numerator is read three times and has calls in it: bind it to a name first"
        return self._traced_python_number(node, ctx, "`round()`", "`__round__`", fix, why)

    def _traced_python_number(self, node: ast.Call, ctx: FunctionContext, call: str, method: str,
                              fix: Fix | None, why: str):
        """A Python-number method of a size quotient: a tensor under legacy, a SymFloat under dynamo."""
        message = (
            f"{call} of a size quotient: the legacy exporter fails (a traced size is a tensor, which has no "
            f"{method}) and the dynamo exporter specializes it to the export-time value"
        )
        if why:
            message += f"; fix is unsafe: {why}" if fix else f"; no automatic fix: {why}"
        return ctx.report(self, node, message, fix=fix, exporters=(LEGACY, DYNAMO))

    def _replace(self, node: ast.Call, ctx: FunctionContext, text: str, level: int, title: str, safe: bool) -> Fix:
        text = in_place_of(ctx.parent(node), node, text, level)
        return Fix(title, (ctx.replace(node, text),), safe=safe)

    def _fix_sqrt(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        if len(node.args) != 1:
            return None, "`math.sqrt` takes one argument"
        (argument,) = node.args
        base = operand(ctx.segment(argument), argument, ATOM)
        # not bit-identical: pow() is not correctly rounded (tests/test_values_exactness.py)
        power = self._replace(target, ctx, f"{base} ** 0.5", POWER, "Use `d ** 0.5`", safe=False)
        unsafe = "`d ** 0.5` is not correctly rounded and can differ from `math.sqrt` in the last bit"
        if ctx.compiled_by_torchscript:  # no SymInt there, and no helper of ours
            return power, unsafe
        text = f"_onnx_size_sqrt({ctx.segment(node.func)}, {ctx.segment(argument)})"
        fix = Fix("Take the square root as `d ** 0.5` under torch.export only", (ctx.replace(node, text),), safe=True,
                  imports=("torch",), helpers=(SIZE_SQRT,), stronger=power)
        return fix, ("`_onnx_size_sqrt` is `math.sqrt` in eager and `d ** 0.5` under torch.export (the legacy "
                     f"exporter still records the export-time value); with `--unsafe-fixes` `d ** 0.5` (unsafe: {unsafe})")

    def _fix_ceil(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        (a, b, offset), why = _integer_division(node, ctx, positive_divisor=True)
        if a is None:
            return None, why
        numerator = ctx.segment(a)
        if isinstance(b, ast.Constant):
            numerator = f"{numerator} + {b.value - 1}" if b.value > 1 else numerator
        else:
            numerator = f"{numerator} + {ctx.segment(b)} - 1"
        divisor = operand(ctx.segment(b), b, UNARY)
        text = f"({numerator}) // {divisor}" if numerator != ctx.segment(a) else f"{operand(numerator, a, TERM)} // {divisor}"
        return self._with_offset(target, ctx, text, offset, "Use `(a + b - 1) // b`", not why), why

    def _fix_floor(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        (a, b, offset), why = _integer_division(node, ctx, positive_divisor=False)
        ratio = ratio_floor_division(node.args[0], ctx) if a is None and len(node.args) == 1 else None
        if ratio is not None:  # Swin's `math.floor(windows.shape[0] / (H * W / ws / ws))`
            return self._replace(target, ctx, ratio, TERM, "Divide the integer products once with `//`", False), RATIO_CAVEAT
        if a is None:
            return None, why
        text = f"{operand(ctx.segment(a), a, TERM)} // {operand(ctx.segment(b), b, UNARY)}"
        return self._with_offset(target, ctx, text, offset, "Use `a // b`", not why), why

    def _with_offset(self, target: ast.Call, ctx: FunctionContext, text: str, offset: str, title: str, safe: bool) -> Fix:
        """``ceil(a / b + c) == ceil(a / b) + c`` for an int ``c`` (likewise floor): the offset
        stays outside the integer quotient."""
        if offset:
            return self._replace(target, ctx, f"{text}{offset}", ARITH, f"{title[:-1]} + c`", safe)
        return self._replace(target, ctx, text, TERM, title, safe)

    def _fix_pow(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        if len(node.args) != 2:
            return None, "`math.pow` takes two arguments"
        base, exponent = node.args
        if not (
            isinstance(exponent, ast.Constant) and type(exponent.value) in (int, float)
            and exponent.value >= 0 and ctx.ints.is_nonnegative_int(base)
        ):
            return None, "only a non-negative int base and a non-negative number literal exponent are proven exact"
        text = f"{operand(ctx.segment(base), base, ATOM)} ** {float(exponent.value)!r}"
        return self._replace(target, ctx, text, POWER, "Use `d ** c`", True), ""

    def _fix_log2(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        return None, "no Python form the exporters capture is proven to give `math.log2`'s float"


def _size_round_fix(node: ast.Call, integer_form: Fix | None, why: str, ctx: FunctionContext):
    """`math.ceil(x)` with no integer form proven exact -> `_onnx_size_round(math.ceil, x)`: safe,
    the call itself but while the legacy exporter traces (then the rounding of the 0-d tensor in
    the graph). An unsafe integer form stays as the stronger alternative (`--unsafe-fixes`).
    (fix, the message's note); no fix where TorchScript compiles the function (no tracing state)."""
    if ctx.compiled_by_torchscript or len(node.args) != 1:
        return integer_form, why
    if not takes_the_traced_tensor(node, ctx):
        return integer_form, why + ("; " if why else "") + (
            "no `_onnx_size_round`: some use of the value needs a Python int while the legacy exporter traces, or "
            "a branch it freezes on the same sizes could disagree with a live value")
    text = f"_onnx_size_round({ctx.segment(node.func)}, {ctx.segment(node.args[0])})"
    fix = Fix("Round in the graph while the legacy exporter traces", (ctx.replace(node, text),), safe=True,
              imports=("torch",), helpers=(SIZE_ROUND,), stronger=integer_form)
    note = "`_onnx_size_round` rounds the traced size in the graph (the call itself everywhere else)"
    if integer_form is not None:
        note += f"; with `--unsafe-fixes` the integer form (unsafe: {why})"
    return fix, note


def _integer_division(node: ast.Call, ctx: FunctionContext, positive_divisor: bool):
    """((a, b, offset), why) for ``f(a / b)`` with ``a`` a proven int, also ``f(a / b + c)`` and
    ``f(a / b - c)`` with a proven int ``c`` (``offset`` is then the text `` + c``), directly or
    through a local name bound once to it (EnCodec's ``n_frames = (length - k) / stride + 1``
    then ``math.ceil(n_frames)``). ``why`` is empty when ``b`` is a proven int too (non-negative
    when ``positive_divisor``; 0 raises either way), the reason the integer form is unsafe when
    ``b`` may be anything else (``self.window_size``: a float or a negative int gives another
    value); ((None, None, ""), reason) when no integer form is right."""
    if len(node.args) != 1:
        return (None, None, ""), "one argument expected"
    return _quotient_parts(node.args[0], ctx, positive_divisor)


def _quotient_parts(argument: ast.AST, ctx: FunctionContext, positive_divisor: bool):
    """_integer_division's answer for the argument itself."""
    none = (None, None, "")
    argument = bound_once(argument, ctx)
    argument, offset = _split_offset(argument, ctx)
    if not (isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Div)):
        return none, "the argument is not a division `a / b` of ints"
    a, b = argument.left, argument.right
    if not ctx.ints.is_int(a):
        return none, f"`{ctx.segment(a)}` is not proven an int"
    if has_true_division(b):
        # `h * w / ws / ws`: a float, and `a // b` of one is a float too (`2.0`, which no size takes)
        return none, f"the divisor `{ctx.segment(b)}` is a true division (a float)"
    kind = "a positive int" if positive_divisor else "an int"
    proven = ctx.ints.is_nonnegative_int(b) if positive_divisor else ctx.ints.is_int(b)
    if isinstance(b, ast.Constant) or ctx.tensors.is_tensor(b):  # its value or kind is known: no guess
        if not proven or (isinstance(b, ast.Constant) and b.value == 0):
            return none, f"the divisor `{ctx.segment(b)}` is not proven {kind}"
        return (a, b, offset), ""
    if proven:
        return (a, b, offset), ""
    # a size sum (`n - k`), an int a run traced to a size (`window_size[0]`), an attribute: the
    # integer form is right for the positive ints it almost always is, unsafe for the others
    return (a, b, offset), f"`{ctx.segment(b)}` is not proven {kind} (a float or negative divisor rounds differently)"


def _pure(node: ast.AST) -> bool:
    """Arithmetic on names, attributes, numbers and shape reads: the same value however often read."""
    return all(
        isinstance(n, (ast.Name, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Load,
                       ast.operator, ast.unaryop, ast.Slice, ast.Tuple))
        for n in walk(node)
    )


def _whole_number(node: ast.AST) -> int | None:
    """2 of `2` or `2.0`: a positive whole-number literal divisor."""
    if (isinstance(node, ast.Constant) and type(node.value) in (int, float) and 0 < node.value < 2**53
            and node.value == int(node.value)):
        return int(node.value)
    return None


def _is_integer_test(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Attribute) and node.func.attr == "is_integer"
        and not node.args and not node.keywords
    )


def _split_offset(argument: ast.AST, ctx: FunctionContext) -> tuple[ast.AST, str]:
    """``a / b + c`` -> (``a / b``, `` + c``) for a proven int ``c``; else (argument, "")."""
    if (
        isinstance(argument, ast.BinOp) and isinstance(argument.op, (ast.Add, ast.Sub))
        and isinstance(argument.left, ast.BinOp) and isinstance(argument.left.op, ast.Div)
        and ctx.ints.is_int(argument.right)
    ):
        sign = "+" if isinstance(argument.op, ast.Add) else "-"
        return argument.left, f" {sign} {operand(ctx.segment(argument.right), argument.right, TERM)}"
    return argument, ""


def _rounds_int_size(node: ast.Call, ctx: FunctionContext) -> bool:
    """`round(e)`, one argument, `e` an int computed from a size."""
    return (isinstance(node.func, ast.Name) and node.func.id == "round" and ctx.is_builtin("round")
            and len(node.args) == 1 and not node.keywords and ctx.sizes.is_size(node.args[0])
            and bool(ctx.ints.is_int(node.args[0])))


def _unwrap(call: ast.Call, ctx: FunctionContext) -> tuple:
    """`int(e)` -> `e`, parenthesised where the call's place needs it."""
    source = ctx.file.source
    start, end = source.span(call)
    inner_start, inner_end = source.span(call.args[0])
    opening, closing = ("(", ")") if in_place_of(ctx.parent(call), call, "e", precedence(call.args[0])) != "e" else ("", "")
    return (Edit(start, inner_start, opening), Edit(inner_end, end, closing))
