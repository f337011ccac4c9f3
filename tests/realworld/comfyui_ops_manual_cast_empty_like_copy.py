"""ComfyUI comfy/ops.py manual-cast layers: when the stored weight dtype differs from the input dtype (e.g. fp16
weights, fp32 compute), `cast_bias_weight` calls `cast_to`, which builds `r = torch.empty_like(weight, dtype=dtype,
device=device)` and fills it with `r.copy_(weight, non_blocking=...)`. The commit "Fix onnx export." rewrites
cast_to to use `weight.to(dtype=dtype, copy=copy)`; the TorchScript-based exporter stops at the in-place copy
("Exporting the operator 'aten::copy' to ONNX ... is not supported").

Source: https://github.com/Comfy-Org/ComfyUI/commit/8ae23d8e80620835495248cd29d5ae17c80622ca
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
BLIND = "operators-48"


def device_supports_non_blocking(device):
    return False  # trimmed comfy.model_management


def cast_to(weight, dtype=None, device=None, non_blocking=False, copy=True):
    if not copy and (dtype is None or weight.dtype == dtype) and (device is None or weight.device == device):
        return weight
    r = torch.empty_like(weight, dtype=dtype, device=device)
    r.copy_(weight, non_blocking=non_blocking)
    return r


def cast_bias_weight(s, input=None, dtype=None, device=None, bias_dtype=None):
    if input is not None:
        if dtype is None:
            dtype = input.dtype
        if bias_dtype is None:
            bias_dtype = dtype
        if device is None:
            device = input.device

    bias = None
    non_blocking = device_supports_non_blocking(device)
    if s.bias is not None:
        has_function = s.bias_function is not None
        bias = cast_to(s.bias, bias_dtype, device, non_blocking=non_blocking, copy=has_function)
        if has_function:
            bias = s.bias_function(bias)

    has_function = s.weight_function is not None
    weight = cast_to(s.weight, dtype, device, non_blocking=non_blocking, copy=has_function)
    if has_function:
        weight = s.weight_function(weight)
    return weight, bias


class CastWeightBiasOp:
    comfy_cast_weights = False
    weight_function = None
    bias_function = None


class manual_cast:
    class Linear(torch.nn.Linear, CastWeightBiasOp):
        comfy_cast_weights = True

        def forward_comfy_cast_weights(self, input):
            weight, bias = cast_bias_weight(self, input)
            return torch.nn.functional.linear(input, weight, bias)

        def forward(self, *args, **kwargs):
            if self.comfy_cast_weights:
                return self.forward_comfy_cast_weights(*args, **kwargs)
            else:
                return super().forward(*args, **kwargs)


class MLPEmbedder(nn.Module):
    """Flux-style MLP built from manual-cast ops; weights stored in fp16, compute in the input dtype."""

    def __init__(self, in_dim=32, hidden_dim=64, operations=manual_cast):
        super().__init__()
        self.in_layer = operations.Linear(in_dim, hidden_dim, bias=True)
        self.silu = nn.SiLU()
        self.out_layer = operations.Linear(hidden_dim, hidden_dim, bias=True)

    def forward(self, x):
        return self.out_layer(self.silu(self.in_layer(x)))


def make_model():
    return MLPEmbedder().half().eval()


def example_inputs():
    return (torch.randn(2, 10, 32),)


def other_inputs():
    return [(torch.randn(3, 17, 32),), (torch.randn(1, 4, 32),)]


def probe_inputs():
    return other_inputs()
