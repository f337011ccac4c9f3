"""ONX205: tensors built from shapes, sizes and Python values taken out of tensors."""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.patterns.scalars.legacy_constructors import CONSTRUCTORS
from onnxfix.patterns.scalars.size_numbers import size_number
from onnxfix.patterns.scalars.size_rows import comprehension_of_sizes
from onnxfix.patterns.scalars.shape_data import empty_shape_branch, shape_passed_in, side_effect_free
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.integers import is_whole_shape
from onnxfix.rewriter.size_lists import converted_size_list
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import assigned_just_before, enclosing_statement
from onnxfix.rewriter.tree_walk import walk


TENSOR_BUILDERS = frozenset({"torch.tensor", "torch.as_tensor"})
TAKEN_OUT = frozenset({"item", "tolist"})


AS_TENSOR_DYNAMO = ", and the dynamo exporter specializes the sizes (`torch.as_tensor`)"


class TensorFromValues(Rule):
    code = "ONX205"
    name = "tensor-from-python-values"
    summary = "`torch.tensor(...)` built from a shape or from values taken out of tensors"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    exporters = (LEGACY, DYNAMO)  # dynamo: `torch.as_tensor` forms only
    doc = RuleDoc(
        what="""
            Finds `torch.tensor(...)`, `torch.as_tensor(...)` and `t.new_tensor(...)` whose data
            is a shape (`x.shape`, `x.size()`, `x.shape[1:]`), a list or tuple holding sizes
            (`[x.shape[0], x.shape[1]]`) or Python numbers computed from them (SuperPoint's
            `[w * s - s / 2 - 0.5, h * s - s / 2 - 0.5]`, a ratio `32 / w` through a name
            assigned once) or rows of them (Deformable-DETR's per-level
            `[[h0, w0], [h1, w1]]`, also in a `@torch.jit.script` helper), a local list of
            shapes or size lists, grown only by `.append` or built by a comprehension, and
            read by nothing else (FaceBoxes' `detection_dimension.append(x.shape[2:])` per
            detection map, then `torch.tensor(detection_dimension)`; Mask2Former's
            `[(e.shape[2], e.shape[3]) for e in embeds]`), or Python numbers taken out of tensors (`.item()`,
            `.tolist()`, `int(t)`, directly or through a name); and a typed constructor given a
            list or tuple of sizes (CRNN's `preds_size = torch.IntTensor([preds.size(0)])`, its
            elements built as `torch.tensor(n, dtype=torch.int32, device="cpu")`, the typed
            constructor's own dtype and device, so the fix is safe), or `torch.Tensor` so
            given. A comprehension over rows of sizes counts too: transformers' DETR
            post-processing builds `torch.Tensor([i[0] for i in target_sizes])` where every call
            passes `target_sizes=[(height, width)]` (the rows a non-empty list or tuple literal,
            here or at every call that binds the parameter, and not changed before they are
            read; the element read is the row or one item of it). Seen in SAM3 and
            PP-DocLayout box scaling (`torch.tensor([width, height, width, height])`) and
            torchvision's anchor generator.
        """,
        why="""
            The legacy exporter registers the result as a constant (TracerWarning "torch.tensor
            results are registered as constants in the trace"): `torch.tensor(x.shape)` and
            `torch.tensor([x.shape[0], x.shape[1]])` give the export-time shape for every input
            (measured on torch 2.13, tests/test_values_exporters.py: silently wrong for other
            sizes). A single size, `torch.tensor(x.shape[0])`, stays dynamic, and so does
            `torch.stack([torch.tensor(d) ...])`. The dynamo exporter handles the `torch.tensor`
            and `new_tensor` forms, but not `torch.as_tensor(x.shape, ...)`: it specializes the
            dynamic dimensions ("Constraints violated ... your code specialized it to be a
            constant"), measured on torch 2.13 by the same test, even for a single size
            (`torch.as_tensor(x.shape[0])`, which is reported for the dynamo exporter only); the
            fixes build the elements with `torch.tensor` for that reason.
        """,
        example="""
            def forward(self, x):
                hw = torch.tensor([x.shape[2], x.shape[3]])
                return x.flatten(2) / hw.prod()
        """,
        use_instead="""
            def forward(self, x):
                hw = torch.stack([torch.tensor(x.shape[2]), torch.tensor(x.shape[3])])
                return x.flatten(2) / hw.prod()
        """,
        fix_safety="""
            - A list or tuple literal of Python numbers (sizes, int and float constants, and
              `+ - * / // %` of those) becomes
              `torch.stack([torch.tensor(a), torch.tensor(b), ...])` (same builder, same
              `dtype=`/`device=` keywords in each call): safe. Each element is an int64 or
              float32 (or the requested dtype) 0-d tensor and stacking gives the 1-d tensor
              `torch.tensor` built: where ints and floats mix, `torch.stack` promotes the int64
              elements to the float dtype `torch.tensor` infers for the list, and a size (below
              2**53) converts to it with the one rounding the list's conversion makes. For `t.new_tensor([...])` the inner calls are `t.new_tensor(a)`, which
              keep `t`'s dtype and device. Rows of sizes (`[[h0, w0], [h1, w1]]`, all of one
              length, none empty) become a stack of such stacks: safe, the same 2-d tensor
              (TorchScript compiles it too). For `torch.as_tensor` they are `torch.tensor(a)`
              (for a Python int both build the same new tensor; `as_tensor` of a size
              specializes it in the dynamo exporter).
            - `torch.Tensor([...])` gets the same stack with `dtype=torch.get_default_dtype(),
              device="cpu"` in each element: unsafe, because `torch.Tensor` follows the default
              tensor type's device (`torch.set_default_tensor_type(torch.cuda.FloatTensor)`, a
              deprecated call) and those keywords do not; under the default type it is the CPU
              tensor of the default dtype (`torch.Tensor` ignores a `with torch.device(...)`
              block, which `torch.tensor` follows: measured on torch 2.13).
            - A comprehension over known rows of sizes (`[i[0] for i in rows]`) becomes
              `torch.stack([torch.tensor(i[0]) for i in rows])`: safe for `torch.tensor` and
              the typed constructors, for the reason a list literal's stack is (the rows are
              a non-empty literal, so the stack has an element for each).
            - A list of size sequences (`sizes.append(feat.shape[2:])`, a comprehension)
              becomes `torch.stack([torch.stack([torch.tensor(d) for d in row]) for row in
              sizes])`: unsafe. For rows of one non-zero length it is the same 2-d int64
              tensor, but the analysis does not know the rows' lengths: with no rows, or empty
              ones, `torch.tensor` gives a float tensor of shape (n, 0) and `torch.stack`
              raises. Measured: tests/test_values_exporters.py (TensorFromAppendedSizes).
            - A whole shape (`torch.tensor(x.shape)`, `torch.as_tensor(x.shape)`, or a
              parameter every call binds to one: DEYO's `imgsz = x.shape[2:]` passed to its
              head) becomes `(torch.stack([torch.tensor(d) for d in x.shape]) if len(x.shape)
              else torch.tensor(x.shape))`: safe. For an empty shape (a 0-d `x`) the original
              call runs, an empty float tensor, where `torch.stack([])` would raise; the rank
              is a Python int in both exporters, so the test is not in the graph. The shape is
              read again, so this holds for a shape read without effects (a name's `.shape`,
              `.size()`); `torch.tensor(self.bn(x).shape)` gets the stack alone: unsafe.
            - `torch.as_tensor(size)` of one size becomes `torch.tensor(size)`: safe (for a
              Python int both build the same new 0-d tensor).
            - Values taken out of tensors: `torch.tensor(t.tolist(), dtype=D)` (also through a
              name assigned once, in the statement before, and read only there: `v = t.tolist()`)
              becomes `t.to(D)`
              (`device=` kept): unsafe. The values are the same (each element goes to a Python
              number and back to D; a float widens exactly), but `torch.tensor` builds a new
              leaf on the default device that does not require grad while `.to` keeps `t`'s
              device and autograd history; a value out of an integer D's range raises in
              `torch.tensor` and wraps in `.to`; an int64 beyond 2**53 is rounded twice on the
              way to float32 there, once here; a `t` of shape (0, k) gives shape (0,) there.
              Without `dtype=` the dtype is inferred from the Python numbers (float32 for a
              float64 `t`): no fix. Measured: tests/realworld/unique_tolist.py exports OK
              under both exporters after the fix. Other values taken out (`.item()`, `int(t)`):
              no fix here (see ONX201).
        """,
        references=(
            "https://github.com/pytorch/pytorch/issues/26127",
            "https://github.com/pytorch/pytorch/issues/99701",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        builder = self._builder(node, ctx)
        if builder is None or not node.args:
            return
        data = node.args[0]
        if _legacy_constructor(node, ctx):  # `torch.IntTensor([n])`: data only as a list or tuple
            by = "`torch.Tensor`" if _default_constructor(node, ctx) else "a typed constructor"
            if isinstance(data, (ast.List, ast.Tuple)) and any(ctx.sizes.is_size(e) for e in _items(data)):
                yield ctx.report(self, node, f"tensor built from a list of sizes by {by}: the legacy "
                                 "exporter records the export-time sizes as constants, and the dynamo exporter fails "
                                 "on them", fix=self._stack_fix(node, builder, data, ctx, whole=False),
                                 exporters=(LEGACY, DYNAMO))
            elif comprehension_of_sizes(data, ctx):
                yield ctx.report(self, node, f"tensor built by {by} from a comprehension over rows of sizes: the "
                                 "legacy exporter records the export-time sizes as constants, and the dynamo exporter "
                                 "fails on them", fix=self._comprehension_fix(node, builder, data, ctx),
                                 exporters=(LEGACY, DYNAMO))
            return
        as_tensor = ctx.qualname(node.func) == "torch.as_tensor"
        # as_tensor of sizes also breaks the dynamo exporter (tests/test_values_exporters.py)
        exporters, also = ((LEGACY, DYNAMO), AS_TENSOR_DYNAMO) if as_tensor else ((LEGACY,), "")
        if empty_shape_branch(node, data, ctx):
            return  # this rule's own fix: the original call, run only for an empty shape
        if is_whole_shape(data) or shape_passed_in(data, ctx):
            yield ctx.report(
                self, node,
                "tensor built from a shape: the legacy exporter records the export-time shape as a constant" + also,
                fix=self._stack_fix(node, builder, data, ctx, whole=True), exporters=exporters,
            )
        elif isinstance(data, (ast.List, ast.Tuple)) and any(size_number(e, ctx)[1] for e in _items(data)):
            sizes = any(ctx.sizes.is_size(e) for e in _items(data))
            what, values = ("sizes", "sizes") if sizes else ("numbers computed from sizes", "values")
            yield ctx.report(
                self, node,
                f"tensor built from a list of {what}: the legacy exporter records the export-time {values} as constants"
                + also,
                fix=self._stack_fix(node, builder, data, ctx, whole=False), exporters=exporters,
            )
        elif comprehension_of_sizes(data, ctx):
            yield ctx.report(
                self, node,
                "tensor built from a comprehension over rows of sizes: the legacy exporter records the export-time "
                "sizes as constants" + also,
                fix=self._comprehension_fix(node, builder, data, ctx), exporters=exporters,
            )
        elif isinstance(data, ast.Name) and len(node.args) == 1 and converted_size_list(ctx, data.id, node):
            yield ctx.report(
                self, node,
                "tensor built from a list of sizes collected by `.append` or a comprehension: the legacy exporter records the "
                "export-time sizes as constants" + also + ROWS_UNSAFE,
                fix=self._rows_fix(node, builder, data, ctx), exporters=exporters,
            )
        elif as_tensor and ctx.sizes.is_size(data):
            torch, imports = ctx.torch_name()
            fix = Fix("Use `torch.tensor`", (ctx.replace(node.func, f"{torch}.tensor"),), safe=True, imports=imports)
            yield ctx.report(
                self, node, "`torch.as_tensor` of a size: the dynamo exporter specializes the size to its "
                "export-time value; `torch.tensor` keeps it dynamic", fix=fix, exporters=(DYNAMO,),
            )
        elif not ctx.tensors.is_tensor(data) and self._taken_out_of_tensor(data, ctx):
            fix = _tolist_round_trip(node, data, ctx)
            yield ctx.report(
                self, node,
                "tensor built from Python numbers taken out of a tensor: the legacy exporter records them "
                "as constants; keep the tensor" + (TOLIST_UNSAFE if fix else ""), fix=fix,
            )

    def _builder(self, node: ast.Call, ctx: FunctionContext) -> str | None:
        if ctx.qualname(node.func) in TENSOR_BUILDERS:
            return ctx.segment(node.func)
        if _legacy_constructor(node, ctx):  # its elements: torch.tensor with its dtype and device
            return f"{ctx.torch_name()[0]}.tensor"
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "new_tensor" and ctx.tensors.is_tensor(func.value):
            return ctx.segment(func)
        return None

    def _stack_fix(self, node: ast.Call, builder: str, data: ast.expr, ctx: FunctionContext, whole: bool):
        extra = self._per_element_keywords(node, ctx)
        if len(node.args) != 1 or extra is None:
            return None
        torch, imports = ctx.torch_name()
        if _legacy_constructor(node, ctx):
            if node.keywords:
                return None  # its own `device=` (`cuda:1`) beside the type's: not repeated, not guessed
            extra = _constructor_keywords(node, ctx) + extra
        if ctx.qualname(node.func) == "torch.as_tensor":
            # as_tensor of a size specializes it in the dynamo exporter, tensor does not (measured,
            # tests/test_values_exporters.py); for a Python int both build the same new 0-d tensor
            builder = f"{torch}.tensor"
        if whole:
            # an empty shape (a 0-d tensor's, `x.shape[2:]` of a 2-d one) keeps the original
            # call: `torch.tensor(torch.Size([]))` is an empty float tensor, `torch.stack([])`
            # raises; the rank is static in both exporters, so the test stays out of the graph.
            # The shape is read up to three times: only a side-effect-free one (a name's `.shape`,
            # `.size()`), else the stack alone (unsafe for an empty shape)
            d, shape = _fresh_name(node, "d", torch), ctx.segment(data)
            stacked = f"{torch}.stack([{builder}({d}{extra}) for {d} in {shape}])"
            if not side_effect_free(data):
                return Fix("Stack 0-d tensors built from each size", (ctx.replace(node, stacked),), safe=False,
                           imports=imports)
            text = f"({stacked} if len({shape}) else {ctx.segment(node)})"
            return Fix("Stack 0-d tensors built from each size", (ctx.replace(node, text),), safe=True, imports=imports)
        rows = _rows(data)
        if rows is None or not all(size_number(e, ctx)[0] for row in rows for e in row):
            return None
        stacked = [f"{torch}.stack([" + ", ".join(f"{builder}({ctx.segment(e)}{extra})" for e in row) + "])"
                   for row in rows]
        if rows == [data.elts]:
            elements = [f"{builder}({ctx.segment(e)}{extra})" for e in data.elts]
        else:
            elements = stacked
        text = ctx.bracketed(node, f"{torch}.stack([", elements, "])")
        return Fix("Stack 0-d tensors built from each size", (ctx.replace(node, text),),
                   safe=not _default_constructor(node, ctx), imports=imports)

    def _comprehension_fix(self, node: ast.Call, builder: str, data: ast.ListComp,
                           ctx: FunctionContext) -> Fix | None:
        """`torch.tensor([row[0] for row in rows])` -> `torch.stack([torch.tensor(row[0]) for row in
        rows])`: the rows are known and none is empty, so the stack has an element for each."""
        extra = self._per_element_keywords(node, ctx)
        if len(node.args) != 1 or extra is None or (_legacy_constructor(node, ctx) and node.keywords):
            return None
        loop = data.generators[0]
        moved = [node.func, *(k.value for k in node.keywords)]  # read inside the comprehension after the fix
        if loop.target.id in {n.id for part in moved for n in walk(part) if isinstance(n, ast.Name)}:
            return None  # `x.new_tensor([x[0] for x in rows])`: the loop's `x` would hide the tensor
        if "#" in ctx.segment(data):
            return None  # a comment inside the comprehension: its text is rebuilt
        torch, imports = ctx.torch_name()
        if _legacy_constructor(node, ctx):
            extra = _constructor_keywords(node, ctx) + extra
        if ctx.qualname(node.func) == "torch.as_tensor":
            builder = f"{torch}.tensor"
        text = (f"{torch}.stack([{builder}({ctx.segment(data.elt)}{extra}) for {ctx.segment(loop.target)} "
                f"in {ctx.segment(loop.iter)}])")
        return Fix("Stack 0-d tensors built from each size", (ctx.replace(node, text),),
                   safe=not _default_constructor(node, ctx), imports=imports)

    def _rows_fix(self, node: ast.Call, builder: str, data: ast.Name, ctx: FunctionContext) -> Fix | None:
        """`torch.tensor(sizes)` of a list of size sequences -> a stack of stacks of 0-d tensors."""
        extra = self._per_element_keywords(node, ctx)
        if extra is None:
            return None
        torch, imports = ctx.torch_name()
        if ctx.qualname(node.func) == "torch.as_tensor":
            builder = f"{torch}.tensor"
        d, row = _fresh_name(node, "d", torch), _fresh_name(node, "row", torch)
        text = f"{torch}.stack([{torch}.stack([{builder}({d}{extra}) for {d} in {row}]) for {row} in {data.id}])"
        return Fix("Stack 0-d tensors built from each size", (ctx.replace(node, text),), safe=False, imports=imports)

    @staticmethod
    def _per_element_keywords(node: ast.Call, ctx: FunctionContext) -> str | None:
        """`, dtype=..., device=...` to repeat in each element's builder, or None when another
        keyword (or one that is not a plain name, attribute or constant) forbids it."""
        if any(k.arg not in ("dtype", "device") for k in node.keywords):
            return None
        if not all(isinstance(k.value, (ast.Name, ast.Attribute, ast.Constant)) for k in node.keywords):
            return None  # repeated per element, so only plain names
        return "".join(f", {k.arg}={ctx.segment(k.value)}" for k in node.keywords)

    def _taken_out_of_tensor(self, data: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
        for sub in walk(data):
            if isinstance(sub, ast.Call):
                func = sub.func
                if isinstance(func, ast.Attribute) and func.attr in TAKEN_OUT and not sub.args:
                    if ctx.tensors.is_tensor(func.value):
                        return True
                cast = builtin_call(sub, ctx, frozenset({"int", "float"}))
                if cast and len(sub.args) == 1 and ctx.tensors.is_tensor(sub.args[0]):
                    return True
            if isinstance(sub, ast.Name) and depth < 3:
                for value in ctx.assignments(sub.id):
                    if isinstance(value, ast.expr) and self._taken_out_of_tensor(value, ctx, depth + 1):
                        return True
        return False


DEFAULT_CONSTRUCTOR = "torch.Tensor"


def _legacy_constructor(node: ast.Call, ctx: FunctionContext) -> bool:
    """`torch.FloatTensor(...)` and the other typed constructors, or `torch.Tensor(...)`."""
    return ctx.qualname(node.func) in CONSTRUCTORS or _default_constructor(node, ctx)


def _default_constructor(node: ast.Call, ctx: FunctionContext) -> bool:
    return ctx.qualname(node.func) == DEFAULT_CONSTRUCTOR


def _constructor_keywords(node: ast.Call, ctx: FunctionContext) -> str:
    """The dtype and device a legacy constructor builds with, as `torch.tensor` keywords:
    `torch.IntTensor` is int32 on the CPU whatever the defaults; `torch.Tensor` is the default
    dtype on the CPU (it ignores a `with torch.device(...)` block, which `torch.tensor` follows;
    measured on torch 2.13)."""
    torch = ctx.torch_name()[0]
    if _default_constructor(node, ctx):
        return f", dtype={torch}.get_default_dtype(), device=\"cpu\""
    dtype, device = CONSTRUCTORS[ctx.qualname(node.func)]
    return f", dtype={torch}.{dtype}, device=\"{device}\""


def _fresh_name(call: ast.Call, base: str, torch: str) -> str:
    """A comprehension variable for a fix's text that none of the names the comprehension reads
    uses (the builder `row.new_tensor`, a `dtype=d` keyword, the data would otherwise read the
    variable). Names elsewhere in the function do not matter: the variable is the comprehension's."""
    taken = {n.id for n in walk(call) if isinstance(n, ast.Name)} | {torch}
    name, count = base, 0
    while name in taken:
        count += 1
        name = f"{base}{count}"
    return name


def _items(data: ast.List | ast.Tuple) -> list[ast.expr]:
    """The elements of a list literal, or of its rows when it is a list of list literals."""
    if data.elts and all(isinstance(e, (ast.List, ast.Tuple)) for e in data.elts):
        return [item for row in data.elts for item in row.elts]
    return data.elts


def _rows(data: ast.List | ast.Tuple) -> list[list[ast.expr]] | None:
    """The rows of a 1-D list literal (one row) or of a 2-D one (`[[h0, w0], [h1, w1]]`), or
    None when a row is empty or the rows differ in length: `torch.tensor([[], []])` is a float
    tensor of shape (2, 0) and `torch.stack([])` raises, and ragged rows raise in
    `torch.tensor` with another message than in `torch.stack`. A starred element is no item."""
    if not data.elts:
        return None
    nested = [isinstance(e, (ast.List, ast.Tuple)) for e in data.elts]
    if not any(nested):
        rows = [data.elts]
    elif all(nested):
        rows = [row.elts for row in data.elts]
    else:
        return None
    if not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        return None
    if any(isinstance(e, (ast.Starred, ast.List, ast.Tuple)) for row in rows for e in row):
        return None
    return rows


ROWS_UNSAFE = (
    " (unsafe fix: an empty list or empty rows give a float tensor of shape (n, 0) there, and `torch.stack` "
    "raises)"
)


TOLIST_UNSAFE = (
    " (unsafe: `.to` keeps the tensor's device and autograd history where `torch.tensor` builds a new "
    "leaf on the default device; a value out of an integer dtype's range raises there and wraps here)"
)


def _tolist_round_trip(node: ast.Call, data: ast.expr, ctx: FunctionContext) -> Fix | None:
    """`torch.tensor(t.tolist(), dtype=D)` -> `t.to(D)`, also through a name assigned once
    (`v = t.tolist()`) in the statement before and read only there: `v = t` shares `t`'s
    memory, so nothing may write to `t` in between. The values are the same: each element goes to a
    Python number and back to D (a float widens exactly to a Python float; ints stay ints). What
    static analysis cannot check makes it unsafe: `torch.tensor` builds a new tensor on the
    default device that does not require grad, `.to` keeps `t`'s device and autograd history
    (and returns `t` itself when nothing changes: unseen here, `t` has no other name); a value
    out of an integer D's range raises in `torch.tensor` and wraps in `.to`; an int64 beyond 2**53
    is rounded twice on the way to a float D; a `t` of shape (0, k) gives shape (0,). Without
    `dtype=` `torch.tensor` infers the dtype from the Python numbers (float32 for a float64 `t`):
    no fix."""
    if ctx.qualname(node.func) not in TENSOR_BUILDERS or len(node.args) != 1:
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    if "dtype" not in keywords or set(keywords) - {"dtype", "device"}:
        return None
    edits, tolist = [], data
    if isinstance(data, ast.Name):  # `v = t.tolist()` in the statement before: `v = t` shares t's memory,
        assign = assigned_just_before(data.id, enclosing_statement(node, ctx), ctx)  # so nothing may come between
        if assign is None:
            return None
        tolist = assign.value
    if not (isinstance(tolist, ast.Call) and isinstance(tolist.func, ast.Attribute) and tolist.func.attr == "tolist"
            and not tolist.args and not tolist.keywords and ctx.tensors.is_tensor(tolist.func.value)):
        return None
    if tolist is data:
        receiver = operand(ctx.segment(tolist.func.value), tolist.func.value, ATOM)
    else:
        receiver, kept = data.id, tolist.func.value  # `v = (a * 2).tolist()` -> `v = a * 2`
        text = ctx.segment(kept)
        edits.append(ctx.replace(tolist, f"({text})" if isinstance(kept, ast.NamedExpr) else text))
    dtype = ctx.segment(keywords["dtype"])
    arguments = f"device={ctx.segment(keywords['device'])}, dtype={dtype}" if "device" in keywords else dtype
    edits.append(ctx.replace(node, f"{receiver}.to({arguments})"))
    return Fix("Keep the tensor: `.to(dtype)` instead of the round trip through a list", tuple(edits), safe=False)
