"""torch.onnx's function registry is built once per process (onnxfix/exporter/onnx_registry.py):
every export gets its own function table, so what one export registers is not seen by the next."""

import pytest

pytest.importorskip("torch")


def test_registry_is_built_once_and_each_export_gets_its_own_table():
    from torch.onnx._internal.exporter import _registration

    from onnxfix.exporter.onnx_registry import reuse_onnx_registry
    reuse_onnx_registry()
    reuse_onnx_registry()  # idempotent: still one cache
    first = _registration.ONNXRegistry.from_torchlib()
    second = _registration.ONNXRegistry.from_torchlib()
    assert first is not second and first.functions is not second.functions
    assert first.functions.keys() == second.functions.keys() and len(first.functions) > 300
    target = next(iter(first.functions))
    first.functions[target].append("registered by one export")
    first.functions["custom::op"] = ["another"]
    third = _registration.ONNXRegistry.from_torchlib()
    assert "registered by one export" not in third.functions[target]
    assert "custom::op" not in third.functions
    assert third.opset_version == first.opset_version
