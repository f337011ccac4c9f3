"""torch.onnx's ATen -> ONNX function registry, built once per process instead of once per export.

torch.onnx.export(dynamo=True) rebuilds the registry from torchlib on every call: ~2.5 s, most of
the time a small model's export takes, and the fix loop exports the same model many times. The
warm process behind the fork server (zygote.py) builds it once, and every forked export starts
from that copy. Each export gets its own copy of the function table, so an export that registers
custom translations (torch.onnx.export(custom_translation_table=...)) cannot leak them into the
next one.
"""

from __future__ import annotations


def reuse_onnx_registry() -> None:
    from torch.onnx._internal.exporter import _registration
    registry_class = _registration.ONNXRegistry
    if getattr(registry_class.from_torchlib, "onnxfix_reuses", False):
        return
    build = registry_class.from_torchlib.__func__
    built: dict = {}

    def from_torchlib(cls, opset_version=_registration._constants.TORCHLIB_OPSET):
        if (cls, opset_version) not in built:
            built[cls, opset_version] = build(cls, opset_version)
        return _copy(built[cls, opset_version])

    from_torchlib.onnxfix_reuses = True
    registry_class.from_torchlib = classmethod(from_torchlib)


def _copy(registry):
    """A registry whose function table is its own (the function records themselves are shared:
    registering appends a record, it never edits one)."""
    copy = type(registry).__new__(type(registry))
    copy.__dict__.update(registry.__dict__)
    copy.functions = {target: list(records) for target, records in registry.functions.items()}
    return copy
