"""The repair stage's first step: which export-time repairs a run's failures name.

`onnxfix export` runs the exporters, then (with --fix) tries repairs in the never-worse loop
(session.py). The candidates come from what the run saw, each source a step below: the static
findings a failure links to at its own line, the operators either exporter could not translate, the op onnxruntime failed at,
an error, a traceback frame or a static finding a repair is keyed on (export_repairs.py), and facts of the example
(a dynamic dim of size 1, forward's defaults the call does not pass). Torch-free.
"""

from __future__ import annotations

import os
import re
from typing import Iterable, Iterator, Protocol

from onnxfix.decompositions import BY_KEY, key_of_op
from onnxfix.exporter.export_repairs import (
    BUFFERS_KEY, DATA_DEPENDENT, DEFAULTS_KEY, EXPORT_REPAIRS, FLOOR_KEY, GROW_KEY, RNN_LOOPS_KEY, WRAPPED_KEY,
)
from onnxfix.exporter.result import EXPORT_FAILS, OK, ORT_FAILS, SILENTLY_WRONG, Verdict
from onnxfix.rewriter.rule import Finding


class _Result(Protocol):  # session.ExporterResult
    verdict: Verdict
    findings: list


_LEGACY_UNSUPPORTED = re.compile(r"Exporting the operator 'aten::(\w+)' to ONNX opset version \d+ is not supported"
                                 r"|Unsupported: ONNX export of operator ([\w.]+),")


def decompositions_that_help(target, results: list[_Result], static: list[Finding],
                             tried: tuple[str, ...] = (), last_resort: bool = False) -> tuple[str, ...]:
    """Keys of the decompositions and repairs the run's failures name, in the order found, but
    those ``tried`` already (none when the export already ran with --decompose); with
    ``last_resort`` (the fix loop, not the hint), what is worth a try where nothing is named."""
    if target.decompose is not None:
        return ()
    failed = [r for r in results if r.verdict.verdict != OK]
    found = (*_linked_static_fixes(failed, static), *_untranslated_ops(results, failed), *_failing_nodes(failed), *_divergent_nodes(failed), *_failing_ops(failed),
             *_keyed_by_error(failed), *_keyed_by_frame(failed), *_keyed_by_static(failed, static),
             *_keyed_by_facts(failed))
    found = [key for key in found if key not in tried]
    # the torch function a failure passed through, when nothing more specific names a repair (its
    # decomposition replaces every call of the function: F.interpolate given a bad argument is not it)
    keys = tuple(dict.fromkeys(found or [k for k in _failing_functions(failed) if k not in tried]))
    return keys or (tuple(k for k in _last_resort(failed) if k not in tried) if last_resort else ())


def _last_resort(failed: list[_Result]) -> Iterator[str]:
    """Tried where nothing the run saw names a repair: a dynamo export that ran but is wrong or fails
    in onnxruntime may have truncated a floor division of sizes (ComfyUI's SD3 crop)."""
    if any(r.verdict.exporter == "dynamo" and r.verdict.verdict in (SILENTLY_WRONG, ORT_FAILS) for r in failed):
        yield FLOOR_KEY


def _drop_in(keys: Iterable[str]) -> Iterator[str]:
    """Decompositions with the op's own signature and return type (another: source fix only)."""
    return (key for key in keys if key in BY_KEY and BY_KEY[key].drop_in and BY_KEY[key].at_export)


def _linked_static_fixes(failed: list[_Result], static: list[Finding]) -> Iterator[str]:
    """The decompositions behind the static findings that failed exports link to at their line."""
    linked = {(link.code, link.path, link.line) for r in failed
              for f in r.findings for link in f.fixed_by if link.relation == "same-line"}
    for finding in static:
        if (finding.code, os.path.realpath(finding.path), finding.line) in linked:
            helpers = finding.fix.helpers if finding.fix else ()
            yield from _drop_in([helpers[-1].name.removeprefix("_onnx_")] if helpers else [])  # the chain ends with its own


def _untranslated_ops(results: list[_Result], failed: list[_Result]) -> Iterator[str]:
    """Every operator the dynamo exporter could not translate, found statically or not, and the ATen
    operators the legacy exporter names ("Exporting the operator 'aten::l1_loss' ... is not
    supported", "Unsupported: ONNX export of operator adaptive_avg_pool2d, input size not
    accessible"): a call through a module the rules did not see."""
    yield from _drop_in(op.decomposition for r in results for op in r.verdict.unsupported)
    # "linalg.matrix_norm" is the key linalg_matrix_norm, "_grouped_mm" grouped_mm
    yield from _drop_in(key_of_op((m.group(1) or m.group(2)).replace(".", "_").lstrip("_")) for r in failed
                        for m in _LEGACY_UNSUPPORTED.finditer(r.verdict.error or ""))


# onnxruntime failing at a node the dynamo exporter named after its ATen op ("node__grouped_mm",
# "node_full_3": an op onnxruntime has no kernel of for that dtype)
_ORT_NODE = re.compile(r"node with name 'node_(\w+?)(?:_\d+)?'")


def _failing_nodes(failed: list[_Result]) -> Iterator[str]:
    """The decomposition of the ATen op onnxruntime failed at, by the node's name."""
    yield from _drop_in(m.group(1).lstrip("_") for r in failed for m in _ORT_NODE.finditer(r.verdict.error or ""))


# the first node whose value differs from eager (exporter/divergence.py), as "OpType name": the
# dynamo exporter names a node after the ATen op it translates ("Cast node_lshift")
_DIVERGENT_NODE = re.compile(r"^\w+ node_(\w+?)(?:_\d+)?$")


def _divergent_nodes(failed: list[_Result]) -> Iterator[str]:
    """The decomposition of the ATen op whose translation first computes another value than eager
    (a uint8 shift torch.onnx casts to int8), and those written for a divergence of a function the
    eager run called at that line (weight_norm's hook, under the line calling the module)."""
    for divergence in (r.verdict.divergence or {} for r in failed):
        node = divergence.get("node", "")
        # a decomposition written for that divergence, else the op's own (two replacing one op
        # at export time would shadow each other)
        keyed = [d.key for d in BY_KEY.values() if d.repairs_divergence and re.search(d.repairs_divergence, node)]
        op = _DIVERGENT_NODE.match(node)
        yield from _drop_in(keyed or ([key_of_op(op.group(1).lstrip("_"))] if op else []))
        yield from _drop_in(divergence.get("repairs", ()))


def _failing_ops(failed: list[_Result]) -> Iterator[str]:
    """The decomposition of the ATen op the legacy exporter's symbolic failed on, for any reason
    (an argument it needs constant, a variant it rejects): the TorchScript node it was translating."""
    yield from _drop_in(trace.node.removeprefix("aten::").strip("_") for r in failed for trace in r.verdict.node_traces
                        if trace.style == "ts" and trace.node.startswith("aten::"))


# torch's own Python functions an export can fail inside (a check on a size the legacy tracer made a
# tensor: `_unpool_output_size` under F.max_unpool2d, "cond must be a bool, but got a Tensor")
_TORCH_FUNCTIONS = re.compile(r"(?:^|[\\/])torch[\\/](nn[\\/])?functional\.py$")


def _failing_functions(failed: list[_Result]) -> Iterator[str]:
    """The decomposition of the torch.nn.functional (or torch.functional) function whose frame the
    failure's traceback passes through, called through a module or a spelling the rules did not see:
    only one whose targets name that function (the key `unfold` is Tensor.unfold, not F.unfold)."""
    for r in failed:
        for path, _, function in r.verdict.error_frames:
            found = _TORCH_FUNCTIONS.search(path)
            names = {f"torch.nn.functional.{function}"} if found and found.group(1) else {f"torch.{function}"}
            if found and function in BY_KEY and names & set(BY_KEY[function].targets):
                yield from _drop_in([function])


def _keyed_by_error(failed: list[_Result]) -> Iterator[str]:
    """Repairs of the failure itself (an exporter bug with a faithful workaround, a complex value);
    a record with ``repairs_at`` only where a frame of the failure's traceback matches it."""
    patterns = [(d.key, d.repairs_error, d.repairs_at) for d in BY_KEY.values() if d.repairs_error]
    patterns += [(key, repair.error, "") for key, repair in EXPORT_REPAIRS.items()]
    for key, pattern, at in patterns:
        if any(re.search(pattern, r.verdict.error or "") and (not at or _raised_in(at, r)) for r in failed):
            yield key


def _raised_in(frame: str, result: _Result) -> bool:
    """A frame of the failure's traceback, as "path:function", matches ``frame`` (the torch function
    it was raised in, whatever the user's spelling of the call)."""
    return any(re.search(frame, f"{path}:{function}") for path, _, function in result.verdict.error_frames)


def _keyed_by_frame(failed: list[_Result]) -> Iterator[str]:
    """A failure inside a torch function a repair concerns (its message names only the user's line)."""
    for key, repair in EXPORT_REPAIRS.items():
        if repair.frame and any(_raised_in(repair.frame, r) for r in failed):
            yield key


def _keyed_by_static(failed: list[_Result], static: list[Finding]) -> Iterator[str]:
    """A failed dynamo export (silently wrong too) in code where the static rules found what a
    repair concerns (ONX205: a tensor built from sizes)."""
    if not any(r.verdict.exporter == "dynamo" for r in failed):
        return
    codes = {finding.code for finding in static}
    for key, repair in EXPORT_REPAIRS.items():
        if codes.intersection(repair.static_codes):
            yield key


def _keyed_by_facts(failed: list[_Result]) -> Iterator[str]:
    """By facts of the example rather than an error: a dynamic dim of size 1 (a legacy export that
    fails outright is the tracer's, not a specialized size's); forward's defaults that the legacy
    exporter appended as inputs; an LSTM or GRU in a failed dynamo export with a dynamic dim; a 0-d
    int64 buffer in a model whose dynamo export stopped on a data-dependent value."""
    if any(r.verdict.unit_dims and not (r.verdict.exporter == "legacy" and r.verdict.verdict == EXPORT_FAILS)
           for r in failed):
        yield GROW_KEY
    if any(r.verdict.appended_defaults for r in failed):
        yield DEFAULTS_KEY
    if any(r.verdict.wrapped_forward for r in failed):
        yield WRAPPED_KEY
    if any(r.verdict.recurrent_layers for r in failed):
        yield RNN_LOOPS_KEY
    if any(r.verdict.size_buffers and re.search(DATA_DEPENDENT, r.verdict.error or "") for r in failed):
        yield BUFFERS_KEY
