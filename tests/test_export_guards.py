"""What the export guards of torchvision mean to the two exporters, measured on the installed
torch (rewriter/export_guards.py relies on it): the TorchScript tracing state (`torchvision._is_tracing()`,
`torch._C._get_tracing_state()`, `torch.jit.is_tracing()`) is on under the legacy exporter and
off under the dynamo one; a `@torch.jit._script_if_tracing` function is compiled by TorchScript
under the legacy exporter, so a loop over a size stays a loop and `int()` / `.item()` stay
dynamic (rules with python_hazard = True), while an operator's export (`//`, ONX518) is as
wrong as when traced; dynamo runs it as plain Python and unrolls the loop."""

import io
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

import guard_models as gm


def legacy(model, args, **kwargs) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, **kwargs)
    return buffer.getvalue()


def dynamo(model, args, **kwargs) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.onnx.export(model, args, dynamo=True, **kwargs).model_proto.SerializeToString()


def run(blob: bytes, *args: torch.Tensor) -> np.ndarray:
    session = ort.InferenceSession(blob)
    return session.run(None, {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)})[0]


def ops(blob: bytes) -> list[str]:
    return [node.op_type for node in onnx.load_from_string(blob).graph.node]


@pytest.mark.parametrize("export, seen, result", [(legacy, (True, True), [2.0, 3.0]), (dynamo, (False, False), [2.0, 4.0])])
def test_the_tracing_state_is_on_under_legacy_only(export, seen, result):
    gm.SEEN.clear()
    blob = export(gm.TracingGuard(), (torch.tensor([1.0, 2.0]),))
    assert gm.SEEN[0] == seen  # the first call is the export's
    assert run(blob, torch.tensor([1.0, 2.0])).tolist() == result


def test_script_if_tracing_keeps_a_size_loop_under_legacy():
    blob = legacy(gm.RowLoop(), (torch.ones(3, 2),), input_names=["x"], dynamic_axes={"x": {0: "rows"}})
    assert "Loop" in ops(blob)
    rows = torch.arange(10.0).reshape(5, 2)
    assert run(blob, rows).tolist() == (rows * 2).tolist()


def test_script_if_tracing_is_plain_python_under_dynamo():
    blob = dynamo(gm.RowLoop(), (torch.ones(3, 2),), dynamic_shapes=({0: torch.export.Dim("rows")},))
    assert "Loop" not in ops(blob)
    graph_input = onnx.load_from_string(blob).graph.input[0]
    assert [d.dim_value for d in graph_input.type.tensor_type.shape.dim] == [3, 2]  # unrolled: rows fixed


@pytest.mark.parametrize("model", [gm.FirstN, gm.FirstIntN])
def test_script_if_tracing_keeps_item_and_int_dynamic_under_legacy(model):
    blob = legacy(model(), (torch.arange(6.0), torch.tensor(3)))
    assert run(blob, torch.arange(6.0), torch.tensor(4)).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_script_if_tracing_floor_division_is_still_wrong_under_legacy():
    a, b = torch.tensor([-7, 7, -3]), torch.tensor([2, 2, 2])
    assert gm.FloorHalves()(a, b).tolist() == [-4, 3, -2]
    assert run(legacy(gm.FloorHalves(), (a, b)), a, b).tolist() == [-3, 3, -1]


def test_a_boolean_of_guards_is_a_guard():
    """The legacy-only helpers' guard, `not torch.onnx.is_in_onnx_export() or
    torch.compiler.is_exporting()`, holds in eager and under dynamo: its body is kept from the
    legacy exporter only. A test mixing a guard with anything else decides nothing."""
    import ast

    from onnxfix.rewriter.export_guards import exporters_skipping

    def skipped(test: str) -> set[str]:
        branch = ast.parse(f"if {test}:\n    y = op(x)\n").body[0]
        return set(exporters_skipping(branch.body[0], [branch]))

    assert skipped("not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting()") == {"legacy"}
    assert skipped("torch.onnx.is_in_onnx_export() and torch.jit.is_tracing()") == {"dynamo"}
    assert skipped("not torch.onnx.is_in_onnx_export() or n > 1") == set()
