"""ONX4xx: Python arithmetic on values taken from tensor shapes."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.precedence import ATOM, POWER, TERM, UNARY, in_place_of, operand
from onnxfix.rewriter.rule import DYNAMO, LEGACY, Fix, Rule, RuleDoc

OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^", ast.MatMult: "@",
}
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
            (`b, s = x.shape[:2]`), through arithmetic, or through an alias (`r = s`).
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
        if not isinstance(target, ast.Name) or type(node.op) not in OPERATORS:
            return
        if not ctx.sizes.is_size(target):
            return
        value = ctx.segment(node.value)
        if not isinstance(node.value, ATOMIC):
            value = f"({value})"
        operator = OPERATORS[type(node.op)]
        fix = Fix(
            title=f"Rewrite as `{target.id} = {target.id} {operator} ...`",
            edits=(ctx.replace(node, f"{target.id} = {target.id} {operator} {value}"),),
            safe=True,
        )
        yield ctx.report(
            self,
            node,
            f"in-place `{operator}=` on `{target.id}`, a value taken from a tensor shape: the legacy "
            f"exporter mutates the traced size and exports a wrong model",
            fix=fix,
        )



MATH_FUNCTIONS = frozenset({"math.sqrt", "math.ceil", "math.floor", "math.pow", "math.log2", "numpy.ceil", "numpy.floor"})


class MathOnSize(Rule):
    code = "ONX402"
    name = "math-on-size"
    summary = "`math.sqrt/ceil/floor/pow/log2` (or `numpy.ceil/floor`) of a tensor size"
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
            it reads the size all the same.
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
            - `math.sqrt(d)` -> `d ** 0.5`: unsafe, always. `math.sqrt` is correctly rounded,
              `d ** 0.5` calls the C library's `pow`, which is not: for 948 of the integers
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
            - `int(numpy.ceil(a / b))` and `int(numpy.floor(a / b))`: the same rewrites, in place
              of the `int(...)` (NumPy rounds the same float `a / b` to the same integral value;
              without the `int()` the result is a NumPy float and gets no fix).
            - A divisor of unknown type (`H / self.window_size`, an attribute or a parameter
              nothing proves an int): the same rewrites, unsafe. A float or (for `ceil`)
              negative divisor gives another value. `-(-a // b)` is not offered: both exporters
              translate `//` of ints to ONNX `Div`, which truncates, so a negative numerator
              exports wrong (measured on torch 2.13).
            - `math.pow(d, c)` -> `d ** c` (with `c` written as a float) for a non-negative
              integer `d` and a non-negative number literal `c`: safe; both call the C
              library's `pow` on the same floats.
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
        function = ctx.qualname(node.func)
        if function not in MATH_FUNCTIONS or node.keywords or not node.args:
            return
        if not any(ctx.sizes.is_size_quotient(a) for a in node.args):
            return
        module, name = function.split(".")
        target = node
        if module == "numpy":  # a NumPy float64: only `int(numpy.ceil(a / b))` is an int
            wrapper = ctx.parent(node)
            target = wrapper if builtin_call(wrapper, ctx, frozenset({"int"})) and len(wrapper.args) == 1 else None
        if target is None:
            fix, why = None, f"`{function}` returns a NumPy float; only `int({function}(a / b))` has an integer twin"
        else:
            fix, why = getattr(self, f"_fix_{name}")(node, target, ctx)
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
        else:
            message = f"`math.{name}` of a size: the legacy exporter records the export-time value as a constant"
            exporters = (LEGACY,)
        if why:
            message += f"; fix is unsafe: {why}" if fix else f"; no automatic fix: {why}"
        yield ctx.report(self, node, message, fix=fix, exporters=exporters)

    def _replace(self, node: ast.Call, ctx: FunctionContext, text: str, level: int, title: str, safe: bool) -> Fix:
        text = in_place_of(ctx.parent(node), node, text, level)
        return Fix(title, (ctx.replace(node, text),), safe=safe)

    def _fix_sqrt(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        if len(node.args) != 1:
            return None, "`math.sqrt` takes one argument"
        (argument,) = node.args
        base = operand(ctx.segment(argument), argument, ATOM)
        # not bit-identical: pow() is not correctly rounded (tests/test_values_exactness.py)
        fix = self._replace(target, ctx, f"{base} ** 0.5", POWER, "Use `d ** 0.5`", safe=False)
        return fix, "`d ** 0.5` is not correctly rounded and can differ from `math.sqrt` in the last bit"

    def _fix_ceil(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        (a, b), why = _integer_division(node, ctx, positive_divisor=True)
        if a is None:
            return None, why
        numerator = ctx.segment(a)
        if isinstance(b, ast.Constant):
            numerator = f"{numerator} + {b.value - 1}" if b.value > 1 else numerator
        else:
            numerator = f"{numerator} + {ctx.segment(b)} - 1"
        divisor = operand(ctx.segment(b), b, UNARY)
        text = f"({numerator}) // {divisor}" if numerator != ctx.segment(a) else f"{operand(numerator, a, TERM)} // {divisor}"
        return self._replace(target, ctx, text, TERM, "Use `(a + b - 1) // b`", not why), why

    def _fix_floor(self, node: ast.Call, target: ast.Call, ctx: FunctionContext):
        (a, b), why = _integer_division(node, ctx, positive_divisor=False)
        if a is None:
            return None, why
        text = f"{operand(ctx.segment(a), a, TERM)} // {operand(ctx.segment(b), b, UNARY)}"
        return self._replace(target, ctx, text, TERM, "Use `a // b`", not why), why

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


def _integer_division(node: ast.Call, ctx: FunctionContext, positive_divisor: bool):
    """((a, b), why) for ``f(a / b)`` with ``a`` a proven int: ``why`` empty when ``b`` is a
    proven int too (non-negative when ``positive_divisor``; 0 raises either way), the reason the
    integer form is unsafe when ``b`` may be anything else (``self.window_size``: a float or a
    negative int gives another value); ((None, None), reason) when no integer form is right."""
    none = (None, None)
    if len(node.args) != 1:
        return none, "one argument expected"
    (argument,) = node.args
    if not (isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Div)):
        return none, "the argument is not a division `a / b` of ints"
    a, b = argument.left, argument.right
    if not ctx.ints.is_int(a):
        return none, f"`{ctx.segment(a)}` is not proven an int"
    if isinstance(b, ast.Constant) or ctx.sizes.is_size(b) or ctx.tensors.is_tensor(b):
        ok = ctx.ints.is_nonnegative_int(b) if positive_divisor else ctx.ints.is_int(b)
        if not ok or (isinstance(b, ast.Constant) and b.value == 0):
            kind = "a positive int" if positive_divisor else "an int"
            return none, f"the divisor `{ctx.segment(b)}` is not proven {kind}"
        return (a, b), ""
    if ctx.ints.is_nonnegative_int(b) or (not positive_divisor and ctx.ints.is_int(b)):
        return (a, b), ""
    kind = "a positive int" if positive_divisor else "an int"
    return (a, b), f"`{ctx.segment(b)}` is not proven {kind} (a float or negative divisor rounds differently)"


class BuiltinMaxMin(Rule):
    code = "ONX403"
    name = "builtin-max-min-on-tensors"
    summary = "Python `max()`/`min()` comparing tensors"
    fix_availability = "sometimes"
    default_safety = "unsafe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds the builtins `max(a, b)` and `min(a, b)` where an argument is a tensor
            (`max(x.sum(), y.sum())`, `min(scale, 1.0)` with a tensor `scale`).
        """,
        why="""
            Python's `max` compares with `>`, which turns a tensor comparison into a Python
            bool. The legacy exporter records the branch taken at export time (TracerWarning
            "Converting a tensor to a Python boolean"): measured on torch 2.13
            (tests/test_values_exporters.py) it is silently wrong on other values for both
            tensor/tensor and tensor/number arguments. The dynamo exporter captures the
            comparison as `aten.maximum` and is correct, so the finding is legacy-only.
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
            arguments; three or more are reported only.
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
            "https://pytorch.org/docs/stable/generated/torch.maximum.html",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        function = builtin_call(node, ctx, frozenset({"max", "min"}))
        if function is None or len(node.args) < 2:
            return
        tensors = [ctx.tensors.is_tensor(a) for a in node.args]
        if not any(tensors):
            return
        fix = self._fix(node, function, tensors, ctx) if len(node.args) == 2 else None
        yield ctx.report(
            self, node,
            f"Python `{function}()` on tensors compares them as Python booleans: the legacy exporter "
            f"freezes the export-time winner",
            fix=fix,
        )

    def _fix(self, node: ast.Call, function: str, tensors: list, ctx: FunctionContext) -> Fix | None:
        torch, imports = ctx.torch_name()
        a, b = node.args
        if all(tensors):
            call = "maximum" if function == "max" else "minimum"
            text = f"{torch}.{call}({ctx.segment(a)}, {ctx.segment(b)})"
        else:
            tensor, number = (a, b) if tensors[0] else (b, a)
            if not _is_number_literal(number):
                return None
            bound = "min" if function == "max" else "max"
            text = f"{torch}.clamp({ctx.segment(tensor)}, {bound}={ctx.segment(number)})"
        title = f"Use `{text.split('(')[0]}`"
        return Fix(title, (ctx.replace(node, text),), safe=False, imports=imports)


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
        """,
        references=("https://github.com/pytorch/pytorch/issues/82811",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if ctx.qualname(node.func) not in INTERPOLATE:
            return
        factor = next((k for k in node.keywords if k.arg == "scale_factor"), None)
        if factor is None or not ctx.sizes.is_size(factor.value):
            return
        fix, why = None, ""
        keywords = {k.arg for k in node.keywords}
        mode = next((k.value for k in node.keywords if k.arg == "mode"), None)
        nearest = mode is None or (isinstance(mode, ast.Constant) and mode.value == "nearest")
        if not nearest:
            why = "; no automatic fix: only mode=\"nearest\" is proven to match with `size=`"
        elif not ctx.ints.is_nonnegative_int(factor.value):
            why = "; no automatic fix: the factor is not proven an int (a float factor's output size is floored)"
        elif keywords - {"scale_factor", "mode"} or len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
            why = "; no automatic fix: other options, or an input that is not a plain name"
        else:
            value = ctx.segment(factor.value)
            used = {n.id for n in ast.walk(factor.value) if isinstance(n, ast.Name)}
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


RULES = [InplaceShapeMath, MathOnSize, BuiltinMaxMin, SizeScaleFactor]
