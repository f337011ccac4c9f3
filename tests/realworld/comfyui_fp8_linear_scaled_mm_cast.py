"""ComfyUI diffusion model with float8_e4m3fn weights (the "fp8 fast" linear path): the activation is
clamped to +-448, flattened and cast `.to(torch.float8_e4m3fn)`, then multiplied with
`torch._scaled_mm`. Exporting the UNet/DiT for TensorRT (torch.onnx.export, opset 17) stops in the
`to` symbolic with `ValueError: 24 is not a valid JitScalarType` (24 = Float8_e4m3fn).

Source: https://github.com/comfyanonymous/ComfyUI_TensorRT/issues/92
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "num_embeds"}}
BLIND = "operators-7"


class Fp8Linear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias=bias)
        self.weight = nn.Parameter(self.weight.data.to(torch.float8_e4m3fn), requires_grad=False)
        self.scale_weight = None
        self.scale_input = None

    def fp8_linear(self, input):
        dtype = self.weight.dtype
        if dtype not in [torch.float8_e4m3fn]:
            return None

        tensor_2d = False
        if len(input.shape) == 2:
            tensor_2d = True
            input = input.unsqueeze(1)

        input_shape = input.shape
        if len(input.shape) == 3:
            w = self.weight.t()
            bias = self.bias.to(input.dtype) if self.bias is not None else None

            scale_weight = self.scale_weight
            scale_input = self.scale_input
            if scale_weight is None:
                scale_weight = torch.ones((), device=input.device, dtype=torch.float32)
            if scale_input is None:
                scale_input = torch.ones((), device=input.device, dtype=torch.float32)
                input = torch.clamp(input, min=-448, max=448)
                input = input.reshape(-1, input_shape[2]).to(dtype)
            else:
                input = (input * (1.0 / scale_input).to(input.dtype)).reshape(-1, input_shape[2]).to(dtype)

            if bias is not None:
                o = torch._scaled_mm(input, w, out_dtype=bias.dtype, bias=bias, scale_a=scale_input, scale_b=scale_weight)
            else:
                o = torch._scaled_mm(input, w, out_dtype=torch.float32, scale_a=scale_input, scale_b=scale_weight)

            if isinstance(o, tuple):
                o = o[0]
            if tensor_2d:
                return o.reshape(input_shape[0], -1)
            return o.reshape((-1, input_shape[1], self.weight.shape[0]))
        return None

    def forward(self, input):
        out = self.fp8_linear(input)
        if out is not None:
            return out
        return nn.functional.linear(input, self.weight.to(input.dtype), self.bias)


class FeedForward(nn.Module):
    def __init__(self, dim=32, mult=2):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj_in = Fp8Linear(dim, dim * mult)
        self.proj_out = Fp8Linear(dim * mult, dim)

    def forward(self, x):
        h = self.proj_in(self.norm(x))
        h = nn.functional.gelu(h, approximate="tanh")
        return x + self.proj_out(h)


def make_model():
    return FeedForward().eval()


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 24, 32),), (torch.randn(1, 9, 32),)]


def probe_inputs():
    return other_inputs()
