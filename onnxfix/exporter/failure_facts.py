"""What a failed or finished export says about itself: the graph node each exporter was
translating when it failed (with its source line), every operator the dynamo exporter has no
translation for, the error chain's frames, the node onnxruntime failed in, the op histogram.
The diagnosis stage (guard_findings, locations, repair_candidates) reads these facts off the
Verdict that verify.py fills. Imports torch."""

from __future__ import annotations

import re
import traceback
from pathlib import Path

import torch

from onnxfix.exporter.errors import exception_chain
from onnxfix.exporter.result import NodeTrace, UnsupportedOp


def op_histogram(path: Path) -> dict[str, int]:
    import onnx

    counts: dict[str, int] = {}
    for node in onnx.load(str(path), load_external_data=False).graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


def failing_node_traces(exc: BaseException) -> list[NodeTrace]:
    """The graph node each exporter was translating when it failed, found in the traceback.

    The dynamo exporter's ConversionError names an FX node (``Error when translating node
    %linalg_inv_ex``) without its source; the legacy exporter's UnsupportedOperatorError names
    only the operator. Both raise while a local ``node`` holds that node, and the node carries
    its source: ``node.meta["stack_trace"]`` (FX), ``node.sourceRange()`` (TorchScript).
    """
    found: list[NodeTrace] = []
    for current in exception_chain(exc):
        tb = current.__traceback__
        while tb is not None:
            trace = _node_trace(tb.tb_frame.f_locals.get("node"))
            if trace and trace not in found:
                found.append(trace)
            tb = tb.tb_next
    # the innermost frame holding a node is the one that failed, unless it is a TorchScript list or
    # constant the op's symbolic was reading (a `prim::ListConstruct` of traced sizes "not
    # constant"): then the op being translated is the failure (UCM-Net's `F.layer_norm(x, [H, W])`)
    ops = [t for t in found if not (t.style == "ts" and t.node.startswith(("prim::", "onnx::")))]
    return (ops or found)[-1:]


def untranslatable_ops(exc: BaseException) -> list[UnsupportedOp]:
    """Every operator of the captured graph the dynamo exporter cannot translate, in graph order.

    The exporter stops at the first node it has no ONNX function for. The frame that was
    translating holds the graph after ``run_decompositions`` (``exported_program``) and the
    translation table (``registry``): ask the table about every node, as the exporter's own
    report does (torch/onnx/_internal/exporter/_analysis.py), without exporting again.
    """
    from torch.onnx._internal.exporter import _registration

    for current in exception_chain(exc):
        tb = current.__traceback__
        while tb is not None:
            frame = tb.tb_frame.f_locals
            program, registry = frame.get("exported_program"), frame.get("registry")
            if isinstance(program, torch.export.ExportedProgram) and isinstance(registry, _registration.ONNXRegistry):
                return _untranslatable(program, registry)
            tb = tb.tb_next
    return []


def _untranslatable(program, registry) -> list[UnsupportedOp]:
    from torch.onnx._internal.exporter import _dispatching

    found: list[UnsupportedOp] = []
    for module in program.graph_module.modules():  # control-flow subgraphs included
        if not isinstance(module, torch.fx.GraphModule):
            continue
        for node in module.graph.nodes:
            # other targets (getitem, with_effects, onnx ops) are handled by the exporter itself
            if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
                continue
            if node.target.namespace == "onnx":
                continue
            try:
                function, _ = _dispatching.dispatch(node, registry)
            except Exception:  # the dispatcher's own failure: no translation either
                function = None
            if function is None:
                op = UnsupportedOp(repr(node.target), node.meta.get("stack_trace") or "", _decomposition_of(node))
                if op not in found:
                    found.append(op)
    return found


def _decomposition_of(node) -> str:
    """The onnxfix decomposition of the torch call the node came from (meta "torch_fn":
    ('linalg_inv_1', 'builtin_function_or_method.linalg_inv'), method calls by their name)."""
    from onnxfix.decompositions import DECOMPOSITIONS

    if str(node.target).startswith("aten.sym_"):
        return ""  # a size or stride query (`x.stride()`: ONX208), not the torch call it sits in
    called = (node.meta.get("torch_fn") or ("", ""))[1].partition(".")[2]
    custom = _custom_op_target(node)
    if custom:
        return next((d.key for d in DECOMPOSITIONS if custom in d.targets), "")
    if not called:
        return ""
    for whole in (True, False):  # torch.linalg.inv is "linalg_inv"; a method call names only "inverse"
        for decomposition in (d for d in DECOMPOSITIONS if not d.wraps_op and d.named_by_op):
            for target in decomposition.targets:
                parts = target.split(".")
                if called == ("_".join(parts[1:]) if whole else parts[-1]):
                    return decomposition.key
    return ""


def _custom_op_target(node) -> str:
    """'torch.ops.transformers.grouped_mm_fallback' for a node of a custom (non-ATen) op."""
    namespace = getattr(node.target, "namespace", "")
    if not namespace or namespace in ("aten", "prims"):
        return ""
    return f"torch.ops.{namespace}.{node.target.name().partition('::')[2].split('.')[0]}"


def error_frames(exc: BaseException) -> list[list]:
    """Frames of the error chain, the root cause's last: its last user frame is where it broke."""
    frames: list[list] = []
    for current in exception_chain(exc):
        for frame in traceback.extract_tb(current.__traceback__):
            entry = [frame.filename, frame.lineno or 0, frame.name]
            if entry not in frames:
                frames.append(entry)
    return frames


def _node_trace(node) -> NodeTrace | None:
    if isinstance(node, torch.fx.Node):
        stack = node.meta.get("stack_trace") or ""
        return NodeTrace(node.name, stack, "py") if stack else None
    if isinstance(node, torch._C.Node):
        try:
            return NodeTrace(node.kind(), node.sourceRange(), "ts")
        except RuntimeError:
            return None
    return None


ORT_NODE = re.compile(r"running (\w+) node\. Name:'([^']*)'")


def onnx_node_traces(path: Path, message: str) -> list[NodeTrace]:
    """onnxruntime names the node it failed in; the dynamo exporter stores its source there."""
    import onnx

    match = ORT_NODE.search(message)
    if not match:
        return []
    for node in onnx.load(str(path), load_external_data=False).graph.node:
        if node.name == match.group(2):
            props = {p.key: p.value for p in node.metadata_props}
            stack = props.get("pkg.torch.onnx.stack_trace", "")
            return [NodeTrace(f"{node.op_type} {node.name}", stack, "py")] if stack else []
    return []
