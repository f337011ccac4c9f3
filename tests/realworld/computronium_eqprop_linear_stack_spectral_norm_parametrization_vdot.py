"""computronium's kernel export wraps an EqProp model's bound Linear stack (layers carrying
`torch.nn.utils.parametrizations.spectral_norm`) into an nn.Sequential with inter-layer activations and
exports it to ONNX; the export failed ("Exporting the operator 'aten::vdot' to ONNX opset version 11 is not
supported", from the spectral-norm parametrization's sigma = vdot(u, W v)), so the project later strips the
parametrization "for ONNX export compatibility" before exporting.

Source: https://github.com/autonull/computronium/blob/7e84268a3471a9260a113ff290253f2e524e7c88/computronium/acceleration/export.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch"}}   # nn.Sequential.forward(input)
BLIND = "operators-59"


class EqPropModel(nn.Module):
    """Layered EqProp model: embed -> hidden -> head, spectral-normed so the settle map contracts."""

    def __init__(self, input_dim=64, hidden_dim=32, output_dim=10, use_spectral_norm=True):
        super().__init__()
        dims = [input_dim, hidden_dim, hidden_dim, output_dim]
        layers = []
        for d_in, d_out in zip(dims[:-1], dims[1:]):
            layer = nn.Linear(d_in, d_out)
            if use_spectral_norm:
                layer = torch.nn.utils.parametrizations.spectral_norm(layer)
            layers.append(layer)
        self._layers = nn.ModuleList(layers)
        self._activation = "tanh"


def _build_export_module(stack, activation):
    """Wrap the Linear stack with inter-layer activations for ONNX export (before the strip was added)."""
    layers = []
    for i, layer in enumerate(stack):
        layers.append(layer)
        if i < len(stack) - 1 and not isinstance(activation, nn.Identity):
            layers.append(activation)
    return nn.Sequential(*layers)


def make_model():
    kernel = EqPropModel()
    kernel.train()
    with torch.no_grad():                      # a few power iterations, as training would run
        for _ in range(3):
            for layer in kernel._layers:
                layer(torch.zeros(1, layer.in_features))
    module = _build_export_module(list(kernel._layers), nn.Tanh())
    return module.eval()


def example_inputs():
    return (torch.randn(1, 64),)


def other_inputs():
    return [(torch.randn(5, 64),), (torch.randn(3, 64),)]


def probe_inputs():
    return other_inputs()
