"""The record every decomposition declares (no torch here: the static path reads it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

PYTORCH = "https://github.com/pytorch/pytorch/issues/"


@dataclass(frozen=True)
class Proof:
    """The case a decomposition is proven on, as text (evaluated by the tests, never here): in
    eager, the helper against the original (tests/test_decompositions_records.py); exported with
    a dynamic batch, onnxruntime against eager on other values and another batch size
    (tests/decomposition_exports.py). The catalog probe measures the original expression when
    the record names no catalog case."""

    original: str  # expression over `params` calling the torch op (`*x` unpacks a tuple result)
    helper: str  # the same expression calling _onnx_<key>, as the source fix writes it
    # Expression over g (a torch.Generator), b (the batch size), torch and the generators of
    # onnxfix/exporter/proof_inputs.py: the inputs, one per parameter.
    inputs: str
    params: str = "a"  # forward's parameters, comma-separated
    static: tuple[int, ...] = ()  # inputs whose first dimension is not the dynamic batch
    rtol: float = 1e-4  # onnxruntime against eager
    # The decomposition against the original, run in eager on these inputs: 0 is bit-identical
    # (NaN where NaN); otherwise |decomposition - original| <= decomposition_tol * (1 + |original|),
    # the float rounding measured on ATen's kernels with ATEN_CPU_CAPABILITY=default and without
    # (AVX2). A helper whose decomposition is not bit-identical BY CONSTRUCTION (exact ops, or
    # ATen's own ops in its order: never a bit-identity measured on one CPU kernel path) is guarded
    # (``if not torch.onnx.is_in_onnx_export(): return <the op>``): in eager it is the op itself,
    # bit for bit, and the tolerance applies to its export branch (the flag forced True).
    decomposition_tol: float = 0.0


class NegativeInt:
    """A `when_literals` value that any negative int literal matches (a dim counted from the end)."""

    def __repr__(self) -> str:
        return "NEGATIVE"


NEGATIVE = NegativeInt()


def literal_matches(expected, given) -> bool:
    """A call's literal argument ``given`` is the ``expected`` of a `when_literals` entry: True,
    False and None by identity (`True`, not `1`), NEGATIVE any negative int, else equal. Read
    from the source by the static selection (variants.py) and from the values by the export-time
    table (decompose.Entry.applies)."""
    if expected is NEGATIVE:
        return isinstance(given, int) and not isinstance(given, bool) and given < 0
    if any(expected is singleton for singleton in (True, False, None)):
        return given is expected
    return not isinstance(given, bool) and given == expected  # `True == 1` is no literal 1


@dataclass(frozen=True)
class Decomposition:
    key: str  # module name in this package, and the helper is _onnx_<key>
    targets: tuple[str, ...]  # "torch.linalg.inv", "Tensor.inverse" (a method)
    # The decomposition gives the same value as eager up to float rounding, for every input it
    # documents (a guarded helper is safe whatever this says: in eager it is the op itself).
    exact: bool
    # Catalog case ids measuring the original op (onnxfix/exporter/catalog_cases.py); () to
    # measure the proof's original expression instead.
    cases: tuple[str, ...]
    evidence: tuple[str, ...]  # public reports of users hitting the op
    notes: str  # what differs from eager / limits (static sizes, memory)
    requires: tuple[str, ...] = ()  # other decompositions whose helpers this one calls
    # Only calls passing this keyword (or enough positionals) are decomposed (scatter: reduce).
    when_present: tuple[str, int] | None = None
    # Only calls passing each of these arguments, by keyword or at its position (None: keyword only),
    # as this literal (an omitted argument counts as None; NEGATIVE: any negative int) are decomposed:
    # sort with `stable=True`, batch_norm on batch statistics (`training` True and no running
    # statistics), repeat_interleave along a dim counted from the end.
    when_literals: tuple[tuple[str, int | None, object], ...] = ()
    error_bound: str = ""  # for approximate decompositions: the measured bound
    # The helper returns what the op returns. False: it returns another type (torch.fft's complex
    # spectra as real pairs), the source fix rewrites the call's consumers too, and
    # `onnxfix export --decompose` does not substitute it.
    drop_in: bool = True
    # A custom operator's library: the module whose import registers ``torch.ops.<ns>.<op>``
    # (torch itself knows nothing of it). Imported before a target or a proof is resolved.
    registered_by: str = ""
    # An exporter error (a regex on the verdict's error) this decomposition repairs at export time
    # wherever the failing op came from: `onnxfix export` names it in its --decompose-ops hint.
    repairs_error: str = ""
    # With repairs_error: named only where a frame of the failure's traceback, as "path:function",
    # matches this regex: an error as common as a data-dependent guard names the record only where
    # it was raised inside its op (torch/nn/functional.py's `pad`, however the user spelled the call).
    repairs_at: str = ""
    # The record repairs one argument pattern of an op that otherwise exports (F.pad with a tensor
    # value, site_applies says which calls): an exporter naming the op does not name it
    # (named_by_op), and its table counts only the calls with the pattern (counts_call).
    one_pattern: bool = False
    # The first value that differs from eager (a regex on the divergent ONNX node, "MatMul
    # node_scaled_dot_product_attention") this decomposition repairs: the op's translation computes
    # another value for some inputs (a fully masked attention row).
    repairs_divergence: str = ""
    # Named when the eager run called the op on the first divergent line (the search compares a
    # line's last value, so the op may be any call on it, a module hook's too: weight_norm's).
    named_at_line: bool = False
    # The exporter whose translation of the op corrupts values elsewhere in the graph ("legacy":
    # its repeat_interleave symbolic rewrites a constant other nodes share): that exporter's
    # divergence or runtime failure names it wherever the run called the op, a library's code too.
    repairs_anywhere: str = ""
    # False: no source rule reports the targets (`Tensor.__mul__` with a Python complex: every
    # product would be a finding); only the export-time repair naming the key substitutes it.
    static: bool = True
    # The helper takes the torch function it replaces first (`_onnx_x(op, *args, **kwargs)`): one
    # helper for several ops, applied at export time only (a source fix could not name `op`).
    wraps_op: bool = False
    # Another record's export-time repair takes these calls (conv_groups' F.conv2d: conv_weight_shape
    # wraps every convolution and calls this helper where it applies), so this one is a source fix
    # only: substituted at export time it would shadow the wrapper's other repairs of the same op.
    at_export_by: str = ""
    # With wraps_op: the export-time repair takes every torch call, not only ``targets`` (which
    # then document what it was first written for): float32_compute, for any op onnxruntime has
    # no float64 / bfloat16 kernel of.
    every_op: bool = False
    # An export-time-only record (static=False) whose helper takes the op's own arguments: which
    # of the calls it intercepts its decomposition rewrites, f(args, kwargs) on the op's call (the
    # others run the op itself). A kept run's calls where it holds are written into the source;
    # without it the record stays export-time only.
    site_applies: Callable[[tuple, dict], bool] | None = None
    # ATen ops its targets dispatch to under other names, which an exporter's failure names
    # ("aten::_upsample_nearest_exact2d" is F.interpolate's): `key_of_op` maps them to this record.
    aten: tuple[str, ...] = ()
    # Integer arguments the helper only computes with (`_onnx_kthvalue`'s `k - 1` in a comparison),
    # so a 0-d int64 tensor serves for the int: ONX203's legacy forms (`_onnx_sym_int`) may feed
    # them. Only for ops the legacy exporter never translates, whose calls the helper always takes.
    tensor_arguments: tuple[str, ...] = ()
    # The op written as one TorchScript expression over the helper's parameters (`{input}`), for a
    # call in a function TorchScript compiles (`@torch.jit.script`, `script_if_tracing`), where no
    # helper compiles (its export guard is Python TorchScript lacks) and eager runs the expression
    # too: so it must compute the op's value exactly, by construction (what ATen's composite is,
    # or exact ops such as comparisons), never a rounding measured equal on one CPU.
    scripted: str = ""
    # The ONX5xx rule that reports the op and writes the fix: its `keys` are the records naming it.
    rule: str = field(kw_only=True)
    proof: Proof = field(kw_only=True)

    @property
    def at_export(self) -> bool:
        return not self.at_export_by

    @property
    def written_from_run(self) -> bool:
        """A call `onnxfix export` decomposed is rewritten at its line: a static record's, and an
        export-time-only record's whose helper takes the op's own arguments and which says which
        calls it rewrites (pixel_shuffle's rank, repeat_interleave's lost rank: invisible to the
        source, proven by the run). A helper taking the op as its first argument, or returning
        another type, stays export-time only."""
        return self.static or (self.drop_in and not self.wraps_op and self.site_applies is not None)

    @property
    def named_by_op(self) -> bool:
        """An exporter naming the op (an untranslated node, a failing ATen op) names this record. Not
        a record of one argument pattern: it would only stand in for the op's real repair."""
        return not self.one_pattern

    def counts_call(self, args: tuple, kwargs: dict) -> bool:
        """Whether a call its export-time table intercepted is one its repair is about: every call of
        the op, or, for one argument pattern's record, the calls with the pattern (elsewhere its
        helper runs the op, and a repair naming it applied nothing)."""
        return not self.one_pattern or self.site_applies is None or self.site_applies(args, kwargs)

    @property
    def helper(self) -> str:
        return f"_onnx_{self.key}"

    @property
    def catalog_cases(self) -> tuple[str, ...]:
        """The catalog cases the rule reads: those declared, else the one the catalog derives
        from the proof (its original expression, onnxfix/exporter/catalog_cases.py)."""
        return self.cases or (f"{self.key} (proof)",)


def call_argument(args: tuple, kwargs: dict, position: int, name: str):
    """An op call's argument, given by position or by keyword (None when absent): for site_applies."""
    return args[position] if len(args) > position else kwargs.get(name)


def proven(key: str, targets: tuple[str, ...], notes: str, rule: str, original: str, inputs: str, *,
           params: str = "a", static: tuple[int, ...] = (), requires: tuple[str, ...] = (), tol: float = 1e-6,
           rtol: float = 1e-4, exact: bool = True, evidence: tuple[str, ...] = (),
           cases: tuple[str, ...] = (), scripted: str = "") -> Decomposition:
    """A record whose proof calls the helper where ``original`` calls ``targets[0]`` (the registry
    tables of one-call ops: registry_legacy_elementwise.py, registry_legacy_composite.py)."""
    helper = original.replace(targets[0] + "(", f"_onnx_{key}(", 1)
    return Decomposition(key, targets, exact, cases, evidence, notes, requires=requires, rule=rule, scripted=scripted,
                         proof=Proof(original, helper, inputs, params=params, static=static, rtol=rtol,
                                     decomposition_tol=tol))
