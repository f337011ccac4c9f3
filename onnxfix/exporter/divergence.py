"""First divergence: the first user line whose ONNX value differs from eager PyTorch.

When an export is SILENTLY-WRONG or ORT-FAILS on some input, the output-level symptom is far
from the cause. This runs the model eagerly on that input under a TorchFunctionMode that files
every tensor a torch call returns under the user line that made it (the innermost frame in the
user's files), then walks the ONNX graph in order, line by line (a node's line: the dynamo
exporter's ``pkg.torch.onnx.stack_trace`` metadata, the legacy exporter's doc_string, written
when exporting with ``verbose=True``): for each line, the last node's output is computed in
onnxruntime (the graph sliced to what that value needs) and compared with the last tensor eager
PyTorch made at that line. The first line that differs, or that onnxruntime cannot compute,
is the place to look.

Worker side (imports torch); verify.py calls it on the failing probe.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch
from torch.overrides import TorchFunctionMode

from onnxfix.exporter.comparison import Runtime, compare
from onnxfix.exporter.errors import describe
from onnxfix.exporter.locations import PY_FRAME, TS_FRAME, is_user_file
from onnxfix.exporter.model_io import exporter_args
from onnxfix.exporter.result import NodeTrace

ORT_NODE = re.compile(r"while running \w+ node\. Name:'([^']+)'")  # onnxruntime's failing node
MAX_LINES = 200  # lines checked at most: one onnxruntime session each


@dataclass
class Divergence:
    trace: NodeTrace | None  # None: no line differs, only ``repairs`` named
    detail: str
    repairs: tuple[str, ...] = ()  # the records the eager run's calls name (named_ops)


class _LineValues(TorchFunctionMode):
    """Every tensor a torch call returns filed under the innermost user line on the stack, and the
    calls of the ops ``watched`` (the records a call names, ``named_ops``): under that line (a
    module's hooks and torch's own code under the line that called the module: `weight_norm`'s
    `torch._weight_norm` under `self.act(x)`) and in ``called``, made from any file."""

    def __init__(self, watched: dict | frozenset = frozenset()):
        super().__init__()
        self.by_line: dict[tuple[str, int], list[torch.Tensor]] = {}
        self.calls_by_line: dict[tuple[str, int], set] = {}
        self.called: set = set()
        # func -> the calls that name its record (site_applies: `d + 1e-9`, not every add), or None
        self.watched = watched if isinstance(watched, dict) else dict.fromkeys(watched)
        self._user: dict[object, bool] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        watched, tensor = func in self.watched and _names(self.watched[func], args, kwargs), isinstance(result, torch.Tensor)
        if watched:
            self.called.add(func)
        where = self._user_line() if watched or tensor else None
        if where is not None:
            if watched:
                self.calls_by_line.setdefault(where, set()).add(func)
            if tensor:
                self.by_line.setdefault(where, []).append(result.detach().clone())
        return result

    def _user_line(self) -> tuple[str, int] | None:
        frame = sys._getframe(2)
        while frame is not None:
            code = frame.f_code
            user = self._user.get(code)
            if user is None:
                user = self._user[code] = is_user_file(code.co_filename)
            if user:
                return os.path.realpath(code.co_filename), frame.f_lineno
            frame = frame.f_back
        return None


def _names(applies, args: tuple, kwargs: dict | None) -> bool:
    """A watched call names its record: always, or where the record's site_applies holds."""
    return applies is None or bool(applies(args, kwargs or {}))


def eager_by_line(model: torch.nn.Module, args: tuple, watched: dict | frozenset = frozenset()) -> _LineValues:
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    recorder = _LineValues(watched)
    with torch.no_grad(), recorder:
        model(*cloned)
    return recorder


def node_line(node) -> tuple[tuple[str, int] | None, NodeTrace | None]:
    """The user line of an ONNX node, from either exporter's record of its source."""
    props = {p.key: p.value for p in node.metadata_props}
    stack = props.get("pkg.torch.onnx.stack_trace", "")
    if stack:
        frames = [(f, int(n)) for f, n in PY_FRAME.findall(stack) if is_user_file(f)]
        if frames:
            return (os.path.realpath(frames[-1][0]), frames[-1][1]), NodeTrace(f"{node.op_type} {node.name}", stack, "py")
    if node.doc_string:
        frames = [(f, int(n)) for f, n in TS_FRAME.findall(node.doc_string) if is_user_file(f)]
        if frames:
            trace = NodeTrace(f"{node.op_type} {node.name}", node.doc_string, "ts")
            return (os.path.realpath(frames[0][0]), frames[0][1]), trace
    return None, None


def legacy_with_sources(model: torch.nn.Module, args: tuple, names: list[str], dynamic, opset, path: Path) -> None:
    """The legacy exporter writes each node's source into doc_string only with verbose=True
    (it then prints the graph: swallowed)."""
    axes = {names[i]: dims for i, dims in (dynamic or {}).items()}
    with contextlib.redirect_stdout(io.StringIO()):
        torch.onnx.export(model, exporter_args(args), str(path), dynamo=False, input_names=names, dynamic_axes=axes or None,
                          opset_version=opset, verbose=True)


def first_divergence(model_path: Path, model: torch.nn.Module, args: tuple, names: list[str],
                     exporter: str = "dynamo") -> Divergence | None:
    import onnx

    ops = named_ops(exporter)
    recorded = eager_by_line(model, args, naming_calls(ops))
    eager = recorded.by_line
    proto = onnx.load(str(model_path), load_external_data=False)
    last: dict[tuple[str, int], tuple[object, NodeTrace]] = {}
    order: list[tuple[str, int]] = []
    for node in proto.graph.node:
        where, trace = node_line(node)
        if where is None or not node.output or not node.output[0]:
            continue
        if where not in last:
            order.append(where)
        last[where] = (node, trace)
    for where in order[:MAX_LINES]:
        expected = eager.get(where)
        if not expected:
            continue  # no torch call of the eager run made a tensor here (a view, a Python value)
        node, trace = last[where]
        try:
            (actual,) = _compute(proto, node.output[0], args, names, Runtime)
        except Exception as exc:  # onnxruntime cannot compute the value on this input
            message = describe(exc).splitlines()[0]
            failing_at, failing = _failing_node(proto, message)  # a node upstream (Detic's frozen Split) names the root line
            if failing is not None:
                return Divergence(failing, f"onnxruntime fails in it: {message[:200]}", _repairs_called(recorded, failing_at, ops))
            return Divergence(trace, f"onnxruntime cannot compute it: {message[:200]}", _repairs_called(recorded, where, ops))
        (error,) = compare([expected[-1]], [actual])
        if not error.ok:
            detail = error.note or f"max abs error {error.max_abs:.3g}{_phase_wrap(expected[-1], actual)}"
            return Divergence(trace, detail, tuple(dict.fromkeys(_repairs_called(recorded, where, ops) + _vanished(recorded, last, ops))))
    # no line differs, yet the outputs do: the op may sit on a line whose value the graph lost
    repairs = _vanished(recorded, last, ops)
    return Divergence(None, "", repairs) if repairs else None


def _vanished(recorded: _LineValues, last: dict, ops: dict) -> tuple[str, ...]:
    """The records named by calls on lines whose values the graph lost (onnxscript's optimizer
    folds an accumulating ScatterND into its updates: the index_put's line keeps no node)."""
    return tuple(dict.fromkeys(key for line in recorded.calls_by_line if line not in last
                               for key in _repairs_called(recorded, line, ops)))


def _phase_wrap(expected: torch.Tensor, actual) -> str:
    """Why, where the values differ only by 2 pi on the negative real axis (eager's pi, onnxruntime's
    -pi, or the reverse): an angle there takes the sign of an imaginary part that is 0 in exact
    arithmetic (a real signal's DC and Nyquist bins, a symmetric frame), which rounding decides."""
    import numpy as np

    if expected.is_complex() or not expected.is_floating_point():
        return ""
    want = expected.detach().cpu().double().numpy()
    got = np.asarray(actual, dtype=np.float64)
    if want.shape != got.shape:
        return ""
    diff = np.abs(want - got)
    # on either side of the branch cut: each near +-pi, of opposite signs (near the cut, a phase
    # of a bin of small magnitude is rounding noise too)
    wrapped = (np.abs(diff - 2 * np.pi) < 0.1) & (np.abs(np.abs(want) - np.pi) < 0.1) & (np.sign(want) != np.sign(got))
    # every gross difference a wrap (the phase of a bin of tiny magnitude is noise as well, smaller)
    if not wrapped.any() or diff[~wrapped].max(initial=0.0) > 1.0:
        return ""
    return (f"; by 2 pi at {int(wrapped.sum())} value(s) of +-pi: a phase on the negative real axis, whose "
            "sign is that of an imaginary part 0 in exact arithmetic (a real signal's DC or Nyquist bin, a "
            "symmetric frame), which rounding decides: no export reproduces eager's there")


def named_ops(exporter: str) -> dict:
    """{torch function: (record key, named anywhere)} of the records a call names when ``exporter``'s
    export diverges or fails in onnxruntime: ``named_at_line`` (the op may be any call on the first
    divergent line, whose last value the search compares: a module hook's too), and
    ``repairs_anywhere`` for this exporter (its translation corrupts the graph elsewhere)."""
    from onnxfix.decompositions import DECOMPOSITIONS
    from onnxfix.exporter.decompose import resolve_target

    ops = {}
    for d in DECOMPOSITIONS:
        anywhere = d.repairs_anywhere == exporter
        if d.at_export and (d.named_at_line or anywhere):
            for target in d.targets:
                ops[resolve_target(target)] = (d.key, anywhere)
    return ops


def naming_calls(ops: dict) -> dict:
    """{torch function: its record's site_applies, or None}: a record that rewrites only some calls
    of its op is named only by those (kept_constant by `d + 1e-9`, not by every add)."""
    from onnxfix.decompositions import BY_KEY

    return {func: BY_KEY[key].site_applies for func, (key, _) in ops.items()}


def _repairs_called(recorded: _LineValues, where: tuple[str, int] | None, ops: dict) -> tuple[str, ...]:
    """The records named by the calls the eager run made: at the divergent line, or anywhere."""
    at_line = recorded.calls_by_line.get(where, set()) if where is not None else set()
    return tuple(dict.fromkeys(key for func, (key, anywhere) in ops.items()
                               if func in (recorded.called if anywhere else at_line)))


def _failing_node(proto, message: str) -> tuple[tuple[str, int] | None, NodeTrace | None]:
    """The line and source of the node onnxruntime names as failing ("while running Split node.
    Name:'/Split_1'"), when it has one: the value asked for may only depend on it, several lines later."""
    found = ORT_NODE.search(message)
    if found is None:
        return None, None
    node = next((n for n in proto.graph.node if n.name == found.group(1)), None)
    return node_line(node) if node is not None else (None, None)


def _compute(proto, value: str, args: tuple, names: list[str], runtime_class):
    """One value of the graph, computed in onnxruntime by the nodes it needs."""
    import onnx

    needed, wanted = [], {value}
    for node in reversed(proto.graph.node):
        if wanted & set(node.output):
            needed.append(node)
            wanted |= {i for i in node.input if i}
    sliced = onnx.ModelProto()
    sliced.CopyFrom(proto)
    del sliced.graph.node[:]
    sliced.graph.node.extend(reversed(needed))
    del sliced.graph.output[:]
    sliced.graph.output.append(onnx.ValueInfoProto(name=value))
    with tempfile.TemporaryDirectory(prefix="onnxfix-divergence-") as folder:
        path = Path(folder) / "slice.onnx"
        onnx.save(sliced, str(path))
        return runtime_class(path).run(args, names)


def find(verdict_exporter: str, path: Path, model, export_args: tuple, args: tuple, names: list[str], dynamic,
         opset, exporting=contextlib.nullcontext) -> dict:
    """The first divergence on ``args`` (exported with ``export_args``) as Verdict.divergence ({} when none is found or the
    search itself fails: the output-level finding stands alone). ``exporting``: the context the export ran in (its
    decompositions), for the legacy exporter's second export, which records each node's source line."""
    try:
        with tempfile.TemporaryDirectory(prefix="onnxfix-sources-") as folder:
            if verdict_exporter == "legacy":
                source_path = Path(folder) / "legacy.onnx"
                with exporting():
                    legacy_with_sources(model, export_args, names, dynamic, opset, source_path)
            else:
                source_path = path
            found = first_divergence(source_path, model, args, names, verdict_exporter)
    except Exception as exc:  # a diagnosis must never change the verdict
        return {"error": describe(exc)[:300]}
    if found is None:
        return {}
    if found.trace is None:  # no divergent line found, but calls on vanished lines name repairs
        return {"repairs": list(found.repairs)}
    return {"node": found.trace.node, "stack": found.trace.stack, "style": found.trace.style, "detail": found.detail,
            "repairs": list(found.repairs)}
