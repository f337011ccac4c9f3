"""ONX203: `int()` / `float()` / `bool()` of tensors and sizes."""

from __future__ import annotations

import ast
from dataclasses import replace

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.patterns.scalars.bool_casts import bool_of_tensor_report
from onnxfix.patterns.scalars.integer_items import integer_item_fix
from onnxfix.patterns.scalars.rebuilt import REBUILT_UNSAFE, rebuilt_tensor_fix
from onnxfix.patterns.scalars.size_floats import float_valued, halved_size, scaled_size
from onnxfix.patterns.scalars.int_division import (
    CHUNK_COUNT, RATIO_CAVEAT, _division_fix, _shifted_division, counts_chunks, no_floor_division, ratio_floor_division,
    rounded_in_int_arithmetic,
)
from onnxfix.patterns.scalars.square_root import isqrt_fix, size_square_root
from onnxfix.patterns.scalars.sym_int import sym_int_fix, takes_math_sqrt
from onnxfix.patterns.scalars.uses import item_use
from onnxfix.patterns.scalars.values import (
    EXACT,
    TRACING_ONLY,
    assigned_name,
    in_error_message,
    is_condition_test,
    is_zero_dim,
    name_as_tensor,
    python_use,
    python_values_tensor,
    replace_call_by_argument,
    tensor_in_place,
    tensor_operand_is_exact,
    while_tracing,
)
from onnxfix.rewriter.bindings import bound_once
from onnxfix.patterns.scalars.float_uses import CASTS, float_of_size_fix
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.precedence import ATOM, TERM, in_place_of, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.size_derived import size_derived
from onnxfix.rewriter.tree_walk import walk




def _int_map_of_sizes(node: ast.Call, ctx: FunctionContext) -> bool:
    """`map(int, x.size())` (or `x.shape`, `x.shape[2:]`) unpacked into names or made a tuple
    or list: the same ints as the size tuple gives (a map is an iterator, so only where it is
    consumed whole and at once)."""
    if not (builtin_call(node, ctx, frozenset({"map"})) and len(node.args) == 2 and not node.keywords
            and isinstance(node.args[0], ast.Name) and node.args[0].id == "int" and ctx.is_builtin("int")
            and ctx.sizes.is_size(node.args[1]) and not isinstance(node.args[1], ast.Name)):
        return False
    parent = ctx.parent(node)
    unpacked = isinstance(parent, ast.Assign) and parent.value is node and all(
        isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets)
    wrapped = builtin_call(parent, ctx, frozenset({"tuple", "list"})) if isinstance(parent, ast.Call) else None
    return unpacked or (wrapped is not None and parent.args == [node])


class ScalarCast(Rule):
    code = "ONX203"
    python_hazard = True  # scripted code keeps it dynamic (tests/test_export_guards.py)
    name = "scalar-cast"
    summary = "`int()`, `float()` or `bool()` of a tensor or of a size expression"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds `int(...)`, `float(...)` and `bool(...)` applied to a tensor (`int(n)`,
            `float(scale)`, `bool((x > 0).all())`, also a full reduction such as
            `int(lengths.max())` of a value not known to be something else, as in ESPnet's
            `make_pad_mask`) or to a value computed from tensor sizes
            (`int(x.size(0))`, `int(x.shape[1] / 2)`). Conditions (`if bool(t):`) are left to the
            control-flow rules; casts inside f-strings and `raise` statements (error messages)
            are not reported, nor casts of a tensor built in the same expression from Python
            values (`float(torch.tensor(r).log2().round())`, torchvision's poolers), nor
            sizes of the model's own tensors (a position table's side). Seen in ViT-family position interpolation
            (`height = width = int(seq_length ** 0.5)` in DeiT, Aya Vision, SmolVLM),
            Moonshine's `int((input_lengths - 127) / 64 + 1)` (patched by optimum), and
            `range(int(rois.size(0)))` in torchvision's RoI heads. Also `int(x)` of a parameter
            that some caller binds to a size, through the callers' own parameters (transformers'
            `torch_int(height)` in ViT position interpolation): rewritten to `torch.sym_int(x)`,
            which is `int()` in eager and keeps a SymInt symbolic under torch.export. And
            `map(int, y.size())` unpacked into names or made a tuple or list (the top-down merge
            of many FPNs: `_, _, H, W = map(int, y.size())`), rewritten to the sizes themselves
            (safe: they are ints already).
        """,
        why="""
            Measured on torch 2.13 (tests/test_values_exporters.py):
            - Legacy exporter: the cast is recorded as a constant (TracerWarning "Converting a
              tensor to a Python integer/float/boolean"). `x.view(int(x.size(0)), -1)` with a
              dynamic batch is silently wrong for every other batch size; `x * float(s)` is
              wrong for every other `s`; `x * bool(t)` fails with an internal assert.
            - Dynamo exporter: `int(t)`, `float(t)`, `bool(t)` and `int(size)` export correctly
              (through its strict fallback), but `int(x.size(1) / 2)` is **silently wrong**:
              the float division specializes the slice end to the export-time value while the
              input dimension stays dynamic (other widths give the wrong output shape). A
              `float()` of a size specializes it in torch.export's non-strict mode (the dynamo
              exporter's first try; DaViT's `q * float(N) ** -0.5` stayed specialized: silently
              wrong for other image sizes, tests/realworld/timm_davit_channel_attention_v2_float_n_scale.py).
        """,
        example="""
            def forward(self, x):
                half = x[:, : int(x.size(1) / 2)]
                return half.view(int(x.size(0)), -1)
        """,
        use_instead="""
            def forward(self, x):
                half = x[:, : x.size(1) // 2]
                return half.view(x.size(0), -1)
        """,
        fix_safety="""
            - `int(size)` where the size is provably an integer (`x.size(0)`, `x.shape[1] * 2`,
              `len(t)`, integer arithmetic of those): dropping `int()` is safe, it is the
              identity on ints.
            - `int(a / b)` with `a` and `b` provably non-negative integers (sizes, non-negative
              integer constants, sums/products/floor divisions of those) becomes `a // b`:
              safe. Truncation equals flooring for non-negative quotients, and the float
              division is exact enough: for `0 <= a < 2**53` and `b > 0`,
              `int(a / b) == a // b` (a non-integer quotient is at least `1/b` from the next
              integer, more than the division's rounding error; checked exhaustively for
              `0 <= a < 4096`, `1 <= b < 512` and on random pairs up to 2**40 in
              tests/test_values_exactness.py). With `b == 0` both raise ZeroDivisionError.
              With `a` an int not proven non-negative (`(x.shape[1] - 4) / 2`): the same
              rewrite, unsafe; truncation is flooring only where the quotient is not negative.
            - `int(a / b + c)` (or `int(c + a / b)`), `c` a non-negative int literal (Moonshine's
              `int((n - 7) / 3 + 1)`), becomes `a // b + c`: exact wherever `a / b + c >= 0`
              (truncation is flooring there, and an integer shift moves the floor by itself),
              so safe for a provably non-negative `a` and unsafe otherwise; checked for `-c * b
              <= a < 4096` and on random pairs up to 2**40 (tests/test_values_exactness.py).
            - `int(a * c)` with `a` a provably non-negative integer and `c` a literal power of
              one half (0.5, 0.25, ...) becomes `a // 2**m`: safe. For `0 <= a < 2**53` the
              product is exact (a power-of-two scaling) and truncation equals flooring
              (tests/test_values_exactness.py).
            - `int(t)` / `float(t)` of a tensor used as a size or in arithmetic with a tensor,
              directly or through a name whose every use takes the tensor (`maxlen =
              int(lengths.max())` then `torch.arange(0, maxlen)`; the uses are classified as in
              ONX201, an `is None` / `is not None` test of the name counts as taking it, as in
              RLlib's `if maxlen is None: maxlen = int(lengths.max())`, and a name used anywhere
              else gets no fix, with the reason in the message): the tensor is kept while tracing
              only, `(t if torch.jit.is_tracing() else int(t))`: safe, eager computes what it
              computed, and torch.export keeps the number, which it exports where a tensor in a
              size argument fails (RLlib's `torch.ones((B, maxlen))`: dropping the cast made
              dynamo fail). In a
              function TorchScript compiles (an if-expression's branches must share a type), in
              arithmetic, and for a float tensor as a size (`t.long()`), the cast is dropped: unsafe. A 0-d tensor takes part in type promotion
              differently from a Python number, a float tensor is no valid size, and
              `int()` truncates. With run-time evidence (`onnxfix export --fix`) it is safe
              where the run proves it exact: `int(n)` as a size of an `n` that was always a
              0-d int64 tensor; `float(t)` of a 0-d float32/float64 (`int(t)` of an int64)
              tensor in arithmetic that ONX201's evidence rule proves. A size also counts as such
              where it is an element of a list the function builds and reads only whole as a size
              (PyG's `size[dim] = dim_size; src.new_zeros(size)`, torch_scatter's `size[dim] =
              int(index.max()) + 1; torch.zeros(size)`: the integer shift keeps it a size), or an
              argument for a parameter of a function of the file that reads it only as a size or
              tests it against None; not in a function TorchScript compiles (it types the list
              List[int]).
            - `float(a) / float(b)` (either cast) with `a` an int size and the other operand an
              int size, `float()` of one or a number literal -> the cast dropped: safe; Python's
              `/` converts an int exactly below 2**53 and int / int is correctly rounded, so the
              float is the same (tests/test_values_exactness.py). `float(n) ** e` with `e` a float
              literal -> `n ** e`: safe; `int.__pow__` declines a float exponent and
              `float.__rpow__` converts the int exactly, the same power. Any other `float(size)`
              (DINOv3's `float(height)`) -> `torch.sym_float(...)`: safe, `float()` for every number
              and tensor, symbolic under torch.export; for the legacy exporter, where the float only
              meets tensors in `+ - * /`, `_onnx_sym_float(...)` (a float32 graph value while it traces).
            - `int()` of any other float computed from sizes (`int(n ** 0.5)`, julius's
              `int(float_output_length)` after `float_output_length = self.new_sr * length /
              self.old_sr`, the numbers __init__ computes counting as constants) becomes
              `torch.sym_int(...)`: safe, it is `int()` for every Python number and tensor, and
              under torch.export it truncates the SymFloat symbolically where `int()` guards on
              it and silently specializes the size (measured on torch 2.13, tests/
              test_values_exporters.py). Where the project targets the legacy exporter,
              `_onnx_sym_int(...)` instead: safe, `torch.sym_int` itself but while the legacy
              exporter traces, where the float is a 0-d tensor and its int64 cast truncates
              toward zero as `int()` does, a graph value where `int()` recorded a constant. Only
              where every use of the value takes that tensor (slice bounds, size arguments,
              `range`, comparisons, `+ - *`; not `F.unfold(kernel_size=)`, `dim=`, dict keys,
              `//` of a value not proven >= 0, a returned value) and no branch the trace freezes
              on the same sizes sits beside it. The trace computes the float in float32: at a
              few sizes (`int(90 * 0.7)`) the graph's integer is one off eager's.
              `int(math.sqrt(n))` (or `numpy.sqrt`) of an integer size (the side of a square
              token grid) -> `_onnx_size_isqrt(math.sqrt, n)`: safe. In eager the helper is
              `int(math.sqrt(n))` itself, on the same value; under torch.export (a SymInt, whose
              `math.sqrt` torch.onnx cannot convert) `torch.sym_int(n ** 0.5)`, symbolic (a
              correction by one either way made torch.export's symbolic reasoning hang on nested
              grids); while the legacy exporter traces (the size a 0-d tensor), the floor of its
              float64 square root, a graph value: the integer square root, which `int(math.sqrt(n))`
              is for every `0 <= n < 2**52` (tests/test_values_exactness.py). Another square root
              of sizes (through a name, of a float quotient, scaled) is first ONX402's
              `_onnx_size_sqrt(math.sqrt, d)`, then `int()` of it `torch.sym_int` as above.
              Of `int(f)` where `f` is bound once to `a / b` whose integer form is
              unsafe (julius's `self.new_sr * length / self.old_sr`, the divisor's sign not
              proven), `--unsafe-fixes` writes `a // b` instead (the fix's stronger alternative):
              both exporters then keep it symbolic.
            - `int(t)` / `int(t.item())` of an integer tensor (cast to one in the expression, or
              a name the run saw hold integer tensors, through max/min/sum, indexing and integer
              arithmetic) where no fix above applies (torchani's `counts_max: int =
              int(counts.max())`), and the eager side of the tracing-only form: `t.item()`, safe:
              `.item()` of an integer dtype is the same Python int. torch.export stops on `int()`
              of a value from the data ("Could not extract specialized integer", FastPitch, TFT)
              and keeps `.item()`'s unbacked SymInt (onnxfix/patterns/scalars/integer_items.py).
              Not in code TorchScript compiles (`.item()` is typed a number there).
            - Anything else (`float(size)`, `bool(t)`): no fix.
        """,
        references=(
            "https://github.com/idiap/coqui-ai-TTS/pull/390",
            "https://github.com/huggingface/transformers/issues/33181",
            "https://github.com/huggingface/transformers/pull/31311",
            "https://github.com/huggingface/optimum-onnx/blob/1939f27a1d04bd9fdf4c3b17eaa70a99dcd380c6/optimum/exporters/onnx/model_patcher.py",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if _int_map_of_sizes(node, ctx):
            yield self._mapped_sizes(node, ctx)
            return
        cast = builtin_call(node, ctx, CASTS)
        if cast is None or len(node.args) != 1 or in_error_message(node, ctx):
            return
        argument = node.args[0]
        # `int(lengths.max())`: a full reduction is a tensor unless the receiver is not one
        if ctx.tensors.is_tensor(argument) or is_zero_dim(argument, ctx):
            yield from self._tensor_cast(node, cast, ctx)
        elif cast == "int" and size_square_root(argument, ctx) is not None:
            yield self._square_root_cast(node, size_square_root(argument, ctx), ctx)
        elif cast == "int" and ctx.sizes.rounds_quotient(argument):
            return  # `int(round(h / 2))`: ONX402's integer round-half-even replaces the whole cast
        elif cast == "int" and rounded_in_int_arithmetic(node, ctx):
            return  # `int(np.ceil(h / 8) * 8 - h)`: ONX402's integer ceil makes it int arithmetic, no cast
        elif cast == "int" and ctx.sizes.is_size_quotient(argument):  # `int(h / scale)`, any divisor
            yield self._size_cast(node, argument, ctx)
        elif cast == "int" and scaled_size(argument, ctx):  # `int(height * factor)`, factor a float
            yield self._sym_int_of_float(node, argument, ctx)
        elif cast == "int" and ctx.sizes.passed_a_size(argument):
            yield self._symbolic_int(node, argument, ctx)
        elif cast == "float" and _number_quotient_of_sizes(argument, ctx):
            yield self._float_of_quotient(node, argument, ctx)
        elif ctx.sizes.is_size(argument) and cast == "float":
            fix, why = float_of_size_fix(node, ctx)
            yield ctx.report(
                self, node,
                "`float()` of a size: the legacy exporter records the export-time size as a constant and "
                "torch.export's non-strict mode specializes it" + why,
                fix=fix, exporters=(LEGACY, DYNAMO),
            )

    def _float_of_quotient(self, node: ast.Call, argument: ast.BinOp, ctx: FunctionContext):
        """`float(height / math.sqrt(n))` (HF DINOv2's `scale_factor`): a true division of numbers is
        a float already, so `float()` changes nothing in eager; under torch.export it asks the
        SymFloat's value, which pins the size."""
        fix = Fix("Drop `float()`: the quotient is a float already",
                  (ctx.replace(node, in_place_of(ctx.parent(node), node, ctx.segment(argument), TERM)),), safe=True)
        return ctx.report(
            self, node,
            "`float()` of a quotient of sizes: torch.export specializes the sizes to their export-time values "
            "(float() asks the symbolic value); a true division is a float already, so dropping `float()` "
            "keeps it symbolic and changes nothing in eager",
            fix=fix, exporters=(DYNAMO,),
        )

    def _tensor_cast(self, node: ast.Call, cast: str, ctx: FunctionContext):
        if is_condition_test(node, ctx):
            return  # a branch on a tensor value: the control-flow rules report it
        if python_values_tensor(node.args[0], ctx):
            return
        if cast == "bool":
            yield bool_of_tensor_report(self, node, ctx)
            return
        use = item_use(node, ctx)
        if (use == "other" and not ctx.compiled_by_torchscript  # TorchScript types `size` List[int]
                and tensor_in_place(node, node.args[0], ctx)[1] == "size arithmetic"):
            use = "size"  # torch_scatter's `size[dim] = int(index.max()) + 1`, then `torch.zeros(size)`
        fix = None
        named, why = name_as_tensor(node, node.args[0], ctx) if use == "other" else (None, "")
        if use == "size" and cast == "int" and ctx.tensors.scalar_dtype(node.args[0]) != "int64":
            # a float tensor is no valid size (ArtSpeech's `torch.zeros(n, int(durations.sum()))`):
            # `.long()` truncates as `int()` does and keeps the tensor
            argument = node.args[0]
            fix = Fix("Keep the tensor as an int64 one (`.long()`)",
                      (ctx.replace(node, f"{operand(ctx.segment(argument), argument, ATOM)}.long()"),), safe=False)
        elif use in ("size", "arithmetic") or named is not None:
            fix = Fix(f"Drop `{cast}()` and keep the tensor", (replace_call_by_argument(node, ctx),),
                      safe=self._exact_without_cast(node, cast, use, named, ctx))
        if (fix is not None and not fix.safe and fix.title.startswith("Drop") and (use == "size" or named is not None)
                and not ctx.compiled_by_torchscript):  # TorchScript types an if-expression's branches alike
            # not the `.long()` form: its receiver was taken for a tensor that may be a number
            # (SmolVLA's `int(width / scale_factor)`: a float while tracing, which has no `.long()`)
            fix = while_tracing(node, fix.edits[0].text, ctx)
        if use == "condition":  # `range(int(n))`: a loop bound
            yield ctx.report(
                self, node,
                f"`{cast}()` of a tensor in a condition or loop bound: the legacy exporter freezes the "
                f"export-time value and the dynamo exporter fails (GuardOnDataDependentSymNode)",
                exporters=(LEGACY, DYNAMO),
            )
            return
        message = f"`{cast}()` turns a tensor into a Python number: the legacy exporter records it as a constant"
        if named is not None:
            name = assigned_name(node, ctx)
            message = (
                f"`{cast}()` of a tensor assigned to `{name}`: the legacy exporter records it as a constant; "
                f"keep `{name}` a tensor"
            )
            if fix.title == TRACING_ONLY:
                message += " while tracing (eager and torch.export keep the number)"
            elif not fix.safe:
                because = why or (
                    "`int()` truncates a float tensor, which is no valid size" if cast == "int"
                    else "the tensor's dtype is unknown"
                )
                message += f" (unsafe: {because})"
        elif fix is None and cast == "float" and (rebuilt := rebuilt_tensor_fix(node, ctx)) is not None:
            fix = rebuilt  # SpeechBrain's `torch.tensor(float(x_db.max()) - self.top_db, dtype=...)`
            message = ("`float()` in a tensor rebuilt from Python numbers: the legacy exporter records it as a "
                       f"constant; compute with the tensors (unsafe: {REBUILT_UNSAFE})")
        elif fix is None:
            message += f" (no fix: {why or 'the number is ' + python_use(node, use, ctx)})"
        exporters = (LEGACY,)
        if fix is None and cast == "int" and (read := integer_item_fix(node, ctx)) is not None:
            fix, message, exporters = read[0], message.replace(" (no fix: ", " (no legacy fix: ") + read[1], (LEGACY, DYNAMO)
        yield ctx.report(self, node, message, fix=fix, exporters=exporters)

    @staticmethod
    def _exact_without_cast(node: ast.Call, cast: str, use: str, named: str | None, ctx: FunctionContext) -> bool:
        """Only run-time evidence makes dropping the cast safe: `int(n)` as a size of an n that
        was always a 0-d int64 tensor; `float(t)`/`int(t)` in arithmetic `tensor_operand_is_exact`
        proves (`int()` of an int64 and `float()` of a float tensor only: no truncation), also
        through a name whose every use is exact (``named``, from `name_as_tensor`)."""
        argument = node.args[0]
        dtype = ctx.tensors.scalar_dtype(argument)
        if dtype is None or (cast == "int") != (dtype == "int64"):
            return False
        if use == "size":
            return True
        return tensor_operand_is_exact(argument, node, ctx) or named == EXACT

    def _symbolic_int(self, node: ast.Call, argument: ast.Name, ctx: FunctionContext):
        """transformers' `torch_int(x)`: `int(x)` of a parameter some caller binds to a size. Under
        torch.export the size is a SymInt and `int()` specializes it (ONX914); `torch.sym_int`
        returns a SymInt as it is and is `int()` for everything else."""
        fix = sym_int_fix(node, ctx, legacy=False)
        return ctx.report(
            self, node,
            f"`int({argument.id})` of a value a caller passes as a size: torch.export specializes the size to the "
            "export-time value (the exported model fails for other sizes); `torch.sym_int` keeps it symbolic and "
            "is `int()` in eager",
            fix=fix, exporters=(DYNAMO,),
        )

    def _mapped_sizes(self, node: ast.Call, ctx: FunctionContext):
        """`_, _, H, W = map(int, y.size())` (FPN's `_upsample_add`): the sizes themselves."""
        sizes = node.args[1]
        fix = Fix("Drop `map(int, ...)`: the sizes are already ints", (ctx.replace(node, ctx.segment(sizes)),), safe=True)
        return ctx.report(
            self, node,
            "`map(int, ...)` of a tensor's sizes: the legacy exporter records each size as a constant; "
            "the sizes are already ints", fix=fix, exporters=(LEGACY,),
        )

    def _size_cast(self, node: ast.Call, argument: ast.expr, ctx: FunctionContext):
        ints = ctx.ints
        if counts_chunks(node, ctx):
            return ctx.report(self, node, f"`int()` of a size: the legacy exporter records it as a constant; no automatic "
                              f"fix: {CHUNK_COUNT}", exporters=(LEGACY,))
        if ints.is_int(argument):
            fix = Fix("Drop `int()`: the size is already an int", (replace_call_by_argument(node, ctx),), safe=True)
            return ctx.report(
                self, node,
                "`int()` of a size: the legacy exporter records the size as a constant; the size is already an int",
                fix=fix, exporters=(LEGACY,),
            )
        stronger = None
        if isinstance(argument, ast.Name):  # `f = (h - k) / stride` then `int(f)`: the quotient itself
            inlined = bound_once(argument, ctx)
            division = _shifted_division(inlined, ints) if inlined is not argument else None
            if division is not None and ints.is_nonnegative_int(division[0]) and ints.is_nonnegative_int(division[1]):
                argument = inlined  # its integer form is safe: below
            elif division is not None:  # unsafe: `torch.sym_int` stays the safe fix, this one with --unsafe-fixes
                stronger = _division_fix(node, division, ints, ctx)[0]
        if isinstance(argument, ast.Name) and float_valued(argument, ctx):  # `f = n * a / b` then `int(f)`
            return self._sym_int_of_float(node, argument, ctx, stronger)
        if isinstance(argument, (ast.Name, ast.Subscript)) and ctx.sizes.is_size(argument):
            fix = Fix("Drop `int()`", (replace_call_by_argument(node, ctx),), safe=False)
            return ctx.report(
                self, node,
                f"`int()` of a size: the legacy exporter records the size as a constant (unsafe: "
                f"`{ctx.segment(argument)}` is not proven an int, where dropping `int()` is the identity; "
                f"`onnxfix export` proves it from a run)",
                fix=fix, exporters=(LEGACY,),
            )
        division = _shifted_division(argument, ints)
        if division is not None and not ints.is_nonnegative_int(division[1]) and (
                no_floor_division(division[1], ctx)):
            # `int(channels / scale_factor)` beside `int(h * scale_factor)`: maybe 0.5; a tensor
            # divisor (GPT-SoVITS's `speed` input) makes `a // b` a tensor no size argument takes
            division = None
        if division is not None:
            fix, plus, unsafe = _division_fix(node, division, ints, ctx)
            shape = "`int(a / b)`" if not plus else f"`int(a / b{plus})`"
            return ctx.report(
                self, node,
                f"{shape} on sizes: the legacy exporter records a constant and the dynamo exporter "
                f"specializes it to the export-time value (silently wrong for other sizes); use `a // b{plus}`" + unsafe,
                fix=fix, exporters=(LEGACY, DYNAMO),
            )
        ratio = ratio_floor_division(argument, ctx)
        if ratio is not None:
            text = in_place_of(ctx.parent(node), node, ratio, TERM)
            fix = Fix("Divide the integer products once with `//`", (ctx.replace(node, text),), safe=False)
            return ctx.report(
                self, node,
                "`int()` of a ratio of size products (Swin's `int(windows.shape[0] / (H * W / ws / ws))`): the legacy "
                "exporter records a constant and the dynamo exporter specializes the float math; use one floor "
                f"division of the integer products (unsafe: {RATIO_CAVEAT})",
                fix=fix, exporters=(LEGACY, DYNAMO),
            )
        halved = halved_size(argument, ints)
        if halved is not None:
            size, divisor = halved
            text = in_place_of(ctx.parent(node), node, f"{operand(ctx.segment(size), size, TERM)} // {divisor}", TERM)
            fix = Fix(f"Use floor division `// {divisor}`", (ctx.replace(node, text),), safe=True)
            return ctx.report(
                self, node,
                f"`int()` of a size times 1/{divisor}: the legacy exporter records the export-time value and "
                f"the dynamo exporter can specialize it; use `// {divisor}`",
                fix=fix, exporters=(LEGACY, DYNAMO),
            )
        return self._sym_int_of_float(node, argument, ctx)

    def _square_root_cast(self, node: ast.Call, root: ast.Call, ctx: FunctionContext):
        fix = isqrt_fix(node, root, ctx)
        return ctx.report(
            self, node,
            f"`int({ctx.qualname(root.func)}(...))` of a size: the legacy exporter records the export-time value "
            "and torch.onnx cannot convert the square root of a symbolic size; `_onnx_size_isqrt` is the same "
            "call in eager and the integer square root, symbolic, while exporting"
            + ("" if fix else " (no fix: TorchScript compiles the function)"),
            fix=fix, exporters=(LEGACY, DYNAMO),
        )

    def _sym_int_of_float(self, node: ast.Call, argument: ast.expr, ctx: FunctionContext, stronger: Fix | None = None):
        """`int()` of a float computed from sizes (julius's `int(math.ceil(new_sr * length / old_sr))`,
        `int(n ** 0.5)`): under torch.export the float is a SymFloat and `int()` guards on its value,
        specializing the size silently (measured on torch 2.13: a slice end kept the export-time
        length); `torch.sym_int` truncates it symbolically and is `int()` in eager: safe. Not
        through `math.sqrt`, which torch.onnx cannot convert on a symbolic size."""
        if takes_math_sqrt(argument, ctx):
            return ctx.report(
                self, node,
                "`int(math.sqrt(...))` of a size: the legacy exporter records the export-time value and "
                "the dynamo exporter specializes it; no fix yet: torch.onnx cannot convert `math.sqrt` of a "
                "symbolic size, which ONX402's fix takes first (`_onnx_size_sqrt`), then this one "
                "(`torch.sym_int`); or take the side from the model's configuration (e.g. "
                "`image_size // patch_size`) or pass it in",
                exporters=(LEGACY, DYNAMO),
            )
        fix = sym_int_fix(node, ctx)
        legacy = ("; with `--unsafe-fixes`, the quotient's floor division instead" if stronger else "")
        if fix is not None and stronger is not None:
            legacy_form = replace(fix.for_legacy, stronger=stronger) if fix.for_legacy else None
            fix = replace(fix, stronger=stronger, for_legacy=legacy_form)
        return ctx.report(
            self, node,
            "`int()` of a float computed from sizes: the legacy exporter records the export-time value and "
            "torch.export specializes it (silently wrong for other sizes); `torch.sym_int` keeps it symbolic and is "
            f"`int()` in eager ({_legacy_note(fix)}){legacy}"
            + ("" if fix is not None else " (no fix: TorchScript compiles the function, and has no `torch.sym_int`)"),
            fix=fix, exporters=(LEGACY, DYNAMO),
        )


def _legacy_note(fix: Fix | None) -> str:
    if fix is not None and fix.for_legacy is not None:
        return "`_onnx_sym_int` where the project targets the legacy exporter: a graph value while it traces"
    return ("the legacy exporter still records a constant: a use of the value needs a Python int while it traces, "
            "or a branch it freezes on the same sizes could disagree with a live value")


def _number_quotient_of_sizes(node: ast.expr, ctx: FunctionContext) -> bool:
    """A true division of numbers computed from sizes (`height / math.sqrt(n)`, `height` a size the
    caller passes, shifted by 0.1): a Python float whatever its operands, so `float()` of it is
    itself. Not where a side may be a tensor, or a NumPy value (`float()` makes a NumPy float a
    Python one, which meets tensors differently)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)) or not size_derived(node, ctx):
        return False
    if any(ctx.tensors.is_tensor(side) is not False and not _plain_number(side, ctx) for side in (node.left, node.right)):
        return False
    return not any(isinstance(part, (ast.Name, ast.Attribute)) and (ctx.qualname(part) or "").startswith(("numpy.", "np."))
                   for part in walk(node))


def _plain_number(node: ast.expr, ctx: FunctionContext) -> bool:
    return ctx.sizes.is_size(node) or ctx.ints.is_int(node) or size_derived(node, ctx) or (
        isinstance(node, ast.Constant) and type(node.value) in (int, float)) or (
        isinstance(node, ast.Call) and (ctx.qualname(node.func) or "").startswith("math."))

