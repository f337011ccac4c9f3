"""Export-time repairs of values the legacy exporter traced but stops on (exporter/legacy_gaps.py),
each named by its error: unflatten_traced_sizes on nn.Unflatten built from the input's shape
(tests/export_models/unflatten_from_shape.py), copy_symbolic on a whole-tensor copy_
(tests/export_models/manual_cast_copy.py). After `onnxfix export --fix` each model matches eager on
other sizes, and the torch settings are restored after the export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from onnxfix.cli import main as cli_main
from onnxfix.exporter.legacy_gaps import copy_symbolic, unflatten_traced_sizes

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


# the layer's call is also ONX519's (the legacy unflatten's later sizes are constants), kept by the loop
LAYER_CALL = "+        return self.head(_onnx_unflatten(tokens, unflatten.dim, unflatten.unflattened_size))\n"


@pytest.mark.parametrize("model, error, repair, written", [
    ("unflatten_from_shape", "unflattened_size must be tuple of ints, but found element of type Tensor",
     "unflatten_traced_sizes", LAYER_CALL),
    ("manual_cast_copy", "Exporting the operator 'aten::copy' to ONNX", "copy_symbolic", ""),
])
def test_a_value_the_legacy_exporter_stops_on_is_exported_by_the_repair_its_error_names(capsys, model, error, repair,
                                                                                         written):
    cli_main(["export", "--format", "json", f"{MODELS / model}.py:make_model", "--exporter", "legacy", "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and error in before["error"], before
    fix = target["fix"]
    assert fix["decompositions"] == [repair]
    assert written in fix["diff"] and bool(written) == bool(fix["diff"]), fix["diff"]
    (after,) = fix["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]


def test_the_repairs_change_nothing_outside_the_export_and_check_what_they_do_not_take():
    check = torch.nn.Unflatten._require_tuple_int
    with unflatten_traced_sizes() as used:
        layer = torch.nn.Unflatten(1, (torch.tensor(2), 3))
        assert layer(torch.arange(6.0).reshape(1, 6)).shape == (1, 2, 3)
        with pytest.raises(TypeError, match="found element of type float"):
            torch.nn.Unflatten(1, (torch.tensor(2), 3.0))  # what is no size is refused as before
        with pytest.raises(TypeError):
            torch.nn.Unflatten(1, (torch.tensor(2.0), 3))  # a float tensor is no size
    assert used == {"unflatten_traced_sizes": 1}
    assert torch.nn.Unflatten._require_tuple_int is check
    from torch.onnx._internal.torchscript_exporter import registration
    with copy_symbolic() as used:
        assert registration.registry.is_registered_op("aten::copy", 20)
    assert not registration.registry.is_registered_op("aten::copy", 20)
    mine = lambda g, self, src, non_blocking: g.op("Identity", src)  # noqa: E731 - a user's own, at opset 18
    torch.onnx.register_custom_op_symbolic("aten::copy", mine, 18)
    try:
        with copy_symbolic() as used:  # steps aside, whatever opset the export asks for
            assert registration.registry.get_function_group("aten::copy").get(17) is None
        assert used == {} and registration.registry.get_function_group("aten::copy").get(18) is mine
    finally:
        torch.onnx.unregister_custom_op_symbolic("aten::copy", 18)
