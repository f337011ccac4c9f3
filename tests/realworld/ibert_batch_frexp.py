"""I-BERT (transformers `quant_utils`): a module's forward calls `FixedPointMul.apply(...)`, whose static
`forward` calls `batch_frexp`, which does `np.frexp(inputs.cpu().numpy())`; NumPy reached through
`torch.autograd.Function.apply`.

Source: https://github.com/huggingface/transformers/pull/10153
"""
import numpy as np
import torch
from torch import nn

CLASS = "autograd-function"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch"}}


def batch_frexp(inputs, max_bit=31):
    shape_of_input = inputs.size()
    inputs = inputs.view(-1)
    output_m, output_e = np.frexp(inputs.cpu().numpy())
    output_m = np.round(output_m * (2**max_bit))
    return (torch.from_numpy(output_m).to(inputs.device).view(shape_of_input),
            torch.from_numpy(output_e).to(inputs.device).view(shape_of_input))


class FixedPointMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, pre_act, pre_act_scaling_factor, z_scaling_factor):
        new_scale = pre_act_scaling_factor / z_scaling_factor
        m, e = batch_frexp(new_scale)
        z_int = torch.round(pre_act / pre_act_scaling_factor)
        output = z_int.type(torch.double) * m.type(torch.double)
        output = torch.round(output / (2.0**e.type(torch.double)))
        return output.type(torch.float) * z_scaling_factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.clone(), None, None


class QuantAct(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("act_scaling_factor", torch.tensor([0.05]))

    def forward(self, x):
        scale = x.abs().amax().reshape(1) / 127 + 1e-8
        return FixedPointMul.apply(x, self.act_scaling_factor, scale)


def make_model():
    return QuantAct()


def example_inputs():
    return (torch.randn(2, 6),)


def other_inputs():
    return [(torch.randn(4, 6) * 3,), (torch.randn(1, 6),)]


def probe_inputs():
    return other_inputs()
