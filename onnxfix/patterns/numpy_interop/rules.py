"""ONX101-ONX103, each reporting its part of the function's NumPy region."""

from __future__ import annotations

from onnxfix.patterns.numpy_interop.export_sizes import export_only_size, size_fix
from onnxfix.patterns.numpy_interop.fix import region_fix
from onnxfix.patterns.numpy_interop.numbers import number_fix
from onnxfix.patterns.numpy_interop.region import (
    Region,
    TWINS,
    build_region,
    is_numpy_call,
    region_message_suffix,
)
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Rule, RuleDoc

REFERENCES = (
    "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
    "https://github.com/pytorch/pytorch/issues/61109",
    "https://github.com/huggingface/transformers/issues/18199",
)


class _NumpyRule(Rule):
    """Shared driver: build the region once per function, report this rule's part of it."""

    fix_availability = "sometimes"
    default_safety = "per-finding"
    triggers = ("numpy", "from_numpy")  # a NumPy value needs `import numpy` or `.numpy()`

    def check_function(self, ctx: FunctionContext):
        if "numpy" not in ctx.cache:
            region = build_region(ctx)
            ctx.cache["numpy"] = (region, region_fix(region))
        region, fix = ctx.cache["numpy"]
        for node in self.nodes(region):
            yield self.report_node(node, region, fix, ctx)

    def report_node(self, node, region: Region, fix, ctx: FunctionContext):
        return ctx.report(self, node, self.message(node, region) + region_message_suffix(region), fix=fix)

    def nodes(self, region: Region):
        raise NotImplementedError

    def message(self, node, region: Region) -> str:
        raise NotImplementedError


FIX_SAFETY = """
    The fix rewrites the function's whole NumPy round trip at once (`.numpy()` dropped,
    numpy functions replaced by their torch twins with `axis`->`dim`, `keepdims`->`keepdim`,
    `concatenate`->`cat`, `expand_dims`->`unsqueeze`, `clip`->`clamp`, NumPy dtypes by torch
    dtypes, `torch.from_numpy(a)` unwrapped, `torch.tensor(a)` turned into `a.clone()`). It is
    offered only when every array goes back into torch. `.cpu()` and `.detach()` are kept, so
    device and autograd behave as before. It is safe when every step is exact in torch: data
    movement, comparisons, `where`/`clip`/`maximum`, creation with the dtype NumPy would have
    used (`np.zeros(n)` becomes `torch.zeros(n, dtype=torch.float64)`). Where a step may differ
    in the last bits (transcendental functions, reductions, matmul), each rewritten expression
    keeps its NumPy original for eager: `(torch.tanh(x) if torch.onnx.is_in_onnx_export() else
    torch.from_numpy(np.tanh(x.numpy())))`. Both exporters set that flag while tracing and eager
    never does, so eager outputs are bit-identical and only the exported model computes in
    torch (equal up to rounding): safe. It stays unsafe, still guarded, where the exported
    model may differ beyond rounding: type promotion (true division, arithmetic with float
    constants, a NumPy scalar in arithmetic with a tensor), `numpy.dot` of N-d arrays. A Python
    float added to, subtracted from or multiplied with an array becomes a 0-d float64 tensor
    (`float(k) - e` -> `torch.tensor(float(k), dtype=torch.float64) - e`): torch then promotes
    as NumPy does (float64 with an int array, the array's own dtype with a float one), where a
    bare Python float would give torch's default float32.
    Arrays kept in lists (EfficientDet's anchors: `boxes_level.append(boxes)`, then
    `np.concatenate(boxes_level, axis=1)`) become lists of tensors when every use of the list is
    an append of an array or an argument of a rewritten call (torch.cat / stack / vstack take a
    list as NumPy does). `np.append(a, b, axis=k)` becomes `torch.cat((a, b), dim=k)` (without an
    axis NumPy flattens: no fix), `np.tile(a, 2)` `torch.tile(a, (2,))`; the ndarray methods
    `reshape`, `transpose(axes)` (`permute`), `swapaxes`, `squeeze`, `copy` (`clone`) and
    `astype(D)` (`.to(D, copy=True)`: both copy, and cast floats to ints by truncation) their
    Tensor twins, a dtype held in a variable (`dtype = np.float32`, read only by those `astype`
    calls) made a torch dtype. The legacy constructors are conversions back: `torch.Tensor(a)`
    is `a.to(dtype=torch.get_default_dtype())`, `torch.LongTensor(a)` the same to int64 (each
    shares the array's memory when it has that dtype already and copies it otherwise, as `.to`
    does). A NumPy constant that meets the rewritten code (`np.zeros(3)` given to `np.maximum`)
    is translated with it, not reported: torch functions take no ndarray; one that is not a
    float64 `zeros`/`ones`/`eye` makes the fix unsafe (an int array joined with a float32 one is
    float64 in NumPy, float32 in torch). No fix where a torch twin would receive what is no
    array (`np.tile((w, h), 2)` of a tuple of sizes, a list of arrays to anything but a join, an
    ndarray attribute; numbers only where torch takes them, as in `np.add(a, 2)`), for
    `np.full` of a float fill without a dtype (float64 in NumPy, float32 in torch), nor for a
    dtype passed by position.
    Moves of elements become the torch functions torch's own NumPy layer (torch/_numpy) calls
    for them, exact (no arithmetic): `np.flip(a, axis)` (`torch.flip` with the axes as a tuple;
    without an axis no fix), `flipud`, `fliplr`, `roll` (one shift per axis: NumPy broadcasts
    them, torch does not), `rot90` (`axes`->`dims`), `repeat` (`repeat_interleave`) and
    `broadcast_to` (of a tuple, list or `.shape`); a keyword torch does not take, or repetitions
    in a Python list (by display or by name), block the fix. `np.indices(shape, dtype=D)` becomes
    the stacked "ij" `torch.meshgrid` of
    `torch.arange(n, dtype=D)` for each size (OpenPifPaf's index field), guarded: for an empty
    shape torch.meshgrid raises where NumPy returns an empty array.
    `numpy.finfo(D)` / `numpy.iinfo(D)` of a tensor's dtype (ESPnet's and FunASR's attention fill
    `float(numpy.finfo(torch.tensor(0, dtype=scores.dtype).numpy().dtype).min)`, whose `.numpy()`
    dynamo refuses) become `torch.finfo` / `torch.iinfo` of the tensor's dtype, when read for a
    limit torch's has too (min, max, eps, tiny, smallest_normal, resolution, bits: the same
    numbers). Guarded: NumPy's limit is a scalar of the type, torch's a Python number, which
    round apart in Python arithmetic. The limits of a named type (`np.finfo(np.float32).eps`)
    are constants either way: no finding.
    A loop that appends one number per element of an array to a list converted by `np.array`
    (I-BERT's `for m in mantissa: tmp.append(int(decimal.Decimal(m * 2**31).quantize(
    decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)))`) becomes one tensor expression at the
    conversion: arithmetic as written, `int(...)` as `.to(torch.int64)`, `math.floor`/`ceil`,
    and a unit `Decimal.quantize` by its rounding mode (HALF_EVEN `torch.round`, HALF_UP the
    exact `_onnx_round_half_away`, FLOOR, CEILING); the list and the loop go (their comments
    stay). Unsafe: the Python ints the loop collected become int64 (as NumPy's array of them,
    unless one overflows it), and nothing can keep the loop for eager.
    `numpy.prod` of a shape (`np.prod(x.shape)`, `np.prod(x.shape[1:])`, a name bound to one) is
    a number, not an array: it is rewritten on its own to `math.prod`, the same product as a
    Python int instead of a NumPy int64. Unsafe: for an empty shape NumPy gives the float 1.0
    and `math.prod` the int 1. Measured (tests/test_values_exporters.py, NumpyProdShape*): the
    legacy exporter bakes `np.prod` of traced sizes in (ORT-FAILS or silently wrong on other
    sizes), `math.prod` exports dynamic under both exporters.
"""


class NumpyCall(_NumpyRule):
    code = "ONX101"
    name = "numpy-call"
    summary = "NumPy call on tensor data in export-time code"
    doc = RuleDoc(
        what="Finds calls to NumPy functions on tensors, arrays or sizes in code that runs under export.",
        why="""
            NumPy runs outside the graph. The legacy exporter records the result as a constant
            (TracerWarning "Converting a tensor to a NumPy array"); measured on torch 2.13,
            `torch.from_numpy(np.concatenate([a, a * 2], axis=1))` exported a graph with no
            inputs at all. The dynamo exporter's default capture fails (".numpy() is not
            supported for tensor subclasses"; `np.arange(x.shape[1])` specialises a dynamic
            dimension) and only its strict fallback gets through.
        """,
        example="""
            def forward(self, x):
                a = x.numpy()
                return torch.from_numpy(np.concatenate([a, a * 2], axis=1))
        """,
        use_instead="""
            def forward(self, x):
                a = x
                return torch.cat([a, a * 2], dim=1)
        """,
        fix_safety=FIX_SAFETY,
        references=REFERENCES,
    )

    def check_function(self, ctx: FunctionContext):
        yield from super().check_function(ctx)
        region, _ = ctx.cache["numpy"]
        for found in region.numbers:  # each on its own: a number, not part of the round trip
            fix = number_fix(found, ctx)
            message = (
                f"`numpy.{found.name}` of {'a shape' if found.name == 'prod' else 'a size'} in export-time code: the legacy exporter bakes the result in "
                f"as a constant; use `{found.twin}`" + (f" (fix is unsafe: {found.unsafe})" if found.unsafe else "")
            )
            yield ctx.report(self, found.call, message, fix=fix)

    def nodes(self, region):
        return [call for call, _ in region.calls]

    def message(self, node, region):
        name = is_numpy_call(node, region.ctx)
        twin = TWINS.get(name)
        instead = f"; use `{twin.spelled or 'torch.' + twin.torch}`" if twin else ""
        if twin and twin.helper:
            instead = f"; use `_onnx_{twin.helper}` (exportable ops, `torch.{twin.torch}` does not export)"
        return f"`numpy.{name}` in export-time code: the legacy exporter bakes the result in as a constant{instead}"


class TensorToNumpy(_NumpyRule):
    code = "ONX102"
    name = "tensor-numpy"
    summary = "`.numpy()` in export-time code"
    doc = RuleDoc(
        what="Finds `tensor.numpy()` (also after `.cpu()` or `.detach()`) in code that runs under export. "
        "A size turned into NumPy in a branch only the exporters run (TopFormer's, SeaFormer's and Gold-YOLO's "
        "`get_shape`: `if torch.onnx.is_in_onnx_export(): shape = [i.cpu().numpy() for i in shape]`) is fixed "
        "on its own: the traced size is kept (safe: eager never runs the branch).",
        why="""
            Converting to NumPy leaves the graph: the legacy exporter turns everything computed
            from the array into a constant, silently wrong for other inputs (torch 2.13), and the
            dynamo exporter's default capture fails with ".numpy() is not supported for tensor
            subclasses".
        """,
        example="""
            def forward(self, x):
                y = x.cpu().numpy()
                y = y * 2 + 1
                return torch.tensor(y) * x
        """,
        use_instead="""
            def forward(self, x):
                y = x.cpu()
                y = y * 2 + 1
                return y.clone() * x
        """,
        fix_safety=FIX_SAFETY,
        references=REFERENCES,
    )

    def report_node(self, node, region: Region, fix, ctx: FunctionContext):
        size = export_only_size(node, ctx)
        if size is None:
            return super().report_node(node, region, fix, ctx)
        # TopFormer's `get_shape`: the traced size itself, whatever else the region holds
        return ctx.report(self, node, SIZE_MESSAGE, fix=size_fix(node, size, ctx))

    def nodes(self, region):
        return region.sources

    def message(self, node, region):
        return "`.numpy()` in export-time code: the value leaves the graph and is baked in as a constant"


SIZE_MESSAGE = ("`.numpy()` of a size in a branch only the exporters run: the legacy exporter's traced size becomes "
                "a constant of the example's size; the size itself stays dynamic (eager never runs the branch)")


class NumpyToTensor(_NumpyRule):
    code = "ONX103"
    name = "numpy-to-tensor"
    summary = "tensor built from a NumPy array in export-time code"
    doc = RuleDoc(
        what="""
            Finds `torch.from_numpy(a)`, `torch.tensor(a)`, `torch.as_tensor(a)` on NumPy
            results in code that runs under export.
        """,
        why="""
            The legacy exporter registers the result as a constant (TracerWarning
            "torch.from_numpy results are registered as constants in the trace"), so the model
            ignores the inputs the array was computed from.
        """,
        example="""
            def forward(self, x):
                return x + torch.from_numpy(np.arange(x.shape[1], dtype=np.float32))
        """,
        use_instead="""
            def forward(self, x):
                return x + torch.arange(x.shape[1], dtype=torch.float32)
        """,
        fix_safety=FIX_SAFETY,
        references=REFERENCES,
    )

    def nodes(self, region):
        return region.sinks

    def message(self, node, region):
        return f"`{region.ctx.qualname(node.func)}` of a NumPy array: the legacy exporter registers it as a constant"


RULES = [NumpyCall, TensorToNumpy, NumpyToTensor]
