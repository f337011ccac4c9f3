"""The quantized_as_float export repair (exporter/quantized_modules.py): a model converted by
torch.ao quantization exported as the float arithmetic of its quantized kernels on their grids
(tests/export_models/quantized_convnet.py; an FX-converted block with a quantized add and an
average pool)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from torch import nn

from onnxfix.cli import main as cli_main
from onnxfix.exporter.quantized_modules import quantized_as_float
from onnxfix.exporter.targets import load_module

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def _outputs(model, inputs):
    with torch.no_grad():
        return [model(*args) for args in inputs]


def test_the_float_forward_computes_what_the_quantized_kernels_do_and_is_restored():
    module = load_module(MODELS / "quantized_convnet.py")
    model = module.make_model()
    inputs = [module.example_inputs(), *module.probe_inputs()]
    kinds = [type(m) for m in model.modules()]
    expected = _outputs(model, inputs)
    with quantized_as_float(model):
        floated = _outputs(model, inputs)
        assert not any(isinstance(m, torch.ao.nn.quantized.Conv2d) for m in model.modules())
    assert [type(m) for m in model.modules()] == kinds and "add" not in vars(model.skip)
    assert all(torch.equal(e, f) for e, f in zip(expected, floated))


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(2)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = y + self.conv2(y)
        return torch.flatten(self.pool(y), 1)


def test_an_fx_graphs_quantized_functions_and_averages_round_as_the_kernels():
    """convert_fx's quantize_per_tensor, quantized.add and `.dequantize()` in float; the average
    pool of a quantized tensor averages its levels and rounds half to even (a float average of
    the values rounds otherwise at ties: one step off)."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    torch.manual_seed(0)
    torch.backends.quantized.engine = "fbgemm"
    prepared = prepare_fx(_Block().eval(), get_default_qconfig_mapping("fbgemm"), (torch.randn(2, 3, 12, 12),))
    for _ in range(4):
        prepared(torch.randn(2, 3, 12, 12))
    graph_module = convert_fx(prepared)
    inputs = [(torch.randn(2, 3, 12, 12),), (torch.randn(3, 3, 16, 10),)]
    code = graph_module.code
    expected = _outputs(graph_module, inputs)
    with quantized_as_float(graph_module):
        assert "quantize_per_tensor" not in graph_module.code and "grid_levels" in graph_module.code
        floated = _outputs(graph_module, inputs)
    assert graph_module.code == code
    assert all(torch.equal(e, f) for e, f in zip(expected, floated))


def test_the_converted_model_exports_through_the_repair(capsys):
    cli_main(["export", "--format", "json", f"{MODELS / 'quantized_convnet'}.py:make_model", "--exporter", "both",
              "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    before = {r["exporter"]: r for r in target["results"]}
    assert before["dynamo"]["verdict"] == "EXPORT-FAILS" and "PackedParamsBase" in before["dynamo"]["error"]
    assert "quantized_as_float" in target["fix"]["decompositions"]
    after = {r["exporter"]: r for r in target["fix"]["results"]}
    assert after["dynamo"]["verdict"] == "OK" and after["legacy"]["verdict"] == "OK", after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["dynamo"]["probes"])


def _converted(model: nn.Module, qconfig, example: torch.Tensor) -> nn.Module:
    model.eval().qconfig = qconfig
    prepared = torch.ao.quantization.prepare(model)
    with torch.no_grad():
        for _ in range(3):
            prepared(torch.randn_like(example) * 4)
    return torch.ao.quantization.convert(prepared)


class _Relu6Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub()
        self.conv, self.act = nn.Conv2d(3, 4, 1), nn.ReLU6()

    def forward(self, x):
        return self.dequant(self.act(self.conv(self.quant(x))))


def test_relu6_is_rounded_on_its_inputs_grid_and_qint8_activations_are_left_as_they_are():
    """ReLU6 clamps at the level nearest 6 on its input's grid (not at 6.0): simulated on the
    grid the tracker knows for its input (the conv's). qint8 activations have another range:
    left quantized, so the export fails as before instead of shipping a model off by a step."""
    torch.manual_seed(0)
    torch.backends.quantized.engine = "fbgemm"
    example = torch.randn(2, 3, 6, 6)
    relu6 = _converted(_Relu6Net(), torch.ao.quantization.get_default_qconfig("fbgemm"), example)
    inputs = [(example * 4,), (torch.randn(1, 3, 5, 7) * 4,)]
    expected = _outputs(relu6, inputs)
    with quantized_as_float(relu6):
        assert type(relu6.act).__name__ == "_Float" and type(relu6.conv).__name__ == "_Float"
        floated = _outputs(relu6, inputs)
    assert all(torch.equal(e, f) for e, f in zip(expected, floated)) and expected[0].max() > 5.9
    signed = _converted(_Relu6Net(), torch.ao.quantization.QConfig(
        activation=torch.ao.quantization.MinMaxObserver.with_args(dtype=torch.qint8),
        weight=torch.ao.quantization.default_weight_observer), example)
    assert signed.quant.dtype == torch.qint8
    with quantized_as_float(signed):
        assert type(signed.conv).__name__ == "Conv2d"  # untouched


class _SkipNet(nn.Module):
    """A U-Net step in eager mode: a transposed convolution, `torch.cat` with the skip (ATen
    requantizes to the first input's grid), ELU and LeakyReLU, an average pool of a quantized
    value (its levels averaged and rounded back), a FloatFunctional cat (rounded once, onto its
    own grid), then float ops after the DeQuantStub (on no grid: a plain resize and cat)."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub()
        self.down, self.up = nn.Conv2d(3, 4, 2, stride=2), nn.ConvTranspose2d(4, 3, 2, stride=2)
        self.up.qconfig = torch.ao.quantization.default_qconfig  # per-tensor weights (no per-channel here)
        self.elu, self.leaky = nn.ELU(0.7), nn.LeakyReLU(0.2)
        self.pool = nn.AdaptiveAvgPool2d(3)
        self.joined = torch.ao.nn.quantized.FloatFunctional()

    def forward(self, x):
        x = self.quant(x)
        y = self.elu(self.up(self.leaky(self.down(x))))
        pooled = self.dequant(self.pool(torch.cat((y, x), dim=1)))
        joined = self.dequant(self.joined.cat([y, x], dim=1))
        upsampled = nn.functional.interpolate(pooled, scale_factor=1.5, mode="bilinear")
        return torch.cat((upsampled.flatten(1), joined.flatten(1) * 0.37), dim=1)


def test_functions_between_quantized_modules_round_on_their_inputs_grid():
    torch.manual_seed(0)
    torch.backends.quantized.engine = "fbgemm"
    example = torch.randn(2, 3, 8, 8)
    model = _converted(_SkipNet(), torch.ao.quantization.get_default_qconfig("fbgemm"), example)
    assert type(model.up).__name__ == "ConvTranspose2d" and type(model.elu).__name__ == "ELU"
    inputs = [(example * 4,), (torch.randn(3, 3, 10, 6) * 4,)]
    expected = _outputs(model, inputs)
    with quantized_as_float(model):
        assert {type(m).__name__ for m in (model.up, model.elu, model.leaky)} == {"_Float"}
        floated = _outputs(model, inputs)
    assert all(torch.equal(e, f) for e, f in zip(expected, floated))


def test_an_fx_graph_with_an_op_not_simulated_is_left_as_it_is():
    """A sigmoid of a quantized value lies on a fixed grid of its own: not simulated, the graph
    stays quantized (its submodules are still swapped: the export fails as before)."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            return torch.sigmoid(self.conv(x))

    torch.manual_seed(0)
    torch.backends.quantized.engine = "fbgemm"
    prepared = prepare_fx(Gate().eval(), get_default_qconfig_mapping("fbgemm"), (torch.randn(1, 3, 4, 4),))
    prepared(torch.randn(1, 3, 4, 4))
    graph_module = convert_fx(prepared)
    code = graph_module.code
    with quantized_as_float(graph_module):
        assert graph_module.code == code


class _NormNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub()
        self.conv = nn.Conv2d(3, 4, 1)
        self.ln, self.gn, self.inorm = nn.LayerNorm([4, 6, 6]), nn.GroupNorm(2, 4), nn.InstanceNorm2d(4, affine=True)

    def forward(self, x):
        return self.dequant(self.inorm(self.gn(self.ln(self.conv(self.quant(x))))))


def test_quantized_norms_compute_in_float_then_round_onto_their_grid():
    torch.manual_seed(0)
    torch.backends.quantized.engine = "fbgemm"
    example = torch.randn(2, 3, 6, 6) * 3
    model = _converted(_NormNet(), torch.ao.quantization.get_default_qconfig("fbgemm"), example)
    inputs = [(example,), (torch.randn(3, 3, 6, 6),)]
    expected = _outputs(model, inputs)
    with quantized_as_float(model):
        assert {type(m).__name__ for m in (model.ln, model.gn, model.inorm)} == {"_Float"}
        floated = _outputs(model, inputs)
    assert all(torch.equal(e, f) for e, f in zip(expected, floated))
