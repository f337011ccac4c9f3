"""ONX101-ONX103: I-BERT's `batch_frexp` (transformers quant_modules / quant_utils): mantissa and
exponent of a scale through `np.frexp(x.cpu().numpy())`, the mantissa scaled to 31 bits and
rounded with `np.round`, back through `torch.from_numpy`. Dynamo fails on `.numpy()`, legacy bakes
the result in. Fixed (safely: `_onnx_frexp` gives NumPy's mantissa bits and int32 exponent,
`torch.round` rounds half to even as `np.round`) in torch."""
import numpy as np
import torch
from torch import nn


def batch_frexp(inputs, max_bit=31):
    shape_of_input = inputs.size()
    inputs = inputs.view(-1)
    output_m, output_e = np.frexp(inputs.cpu().numpy())
    output_m = np.round(output_m * (2**max_bit))
    return (torch.from_numpy(output_m).to(inputs.device).view(shape_of_input),
            torch.from_numpy(output_e).to(inputs.device).view(shape_of_input))


class FixedPointScale(nn.Module):
    def forward(self, x):
        m, e = batch_frexp(x)
        return m, e, m.double() / 2.0 ** (31 - e.double())  # == x


def make_model():
    return FixedPointScale()


def example_inputs():
    return (torch.tensor([[0.75, -3.0e-5, 0.0], [1.0, 1.0e6, -0.125]]),)


def probe_inputs():
    g = torch.Generator().manual_seed(0)
    return [(torch.tensor([[2.0**-20, -7.5, 3.0e10], [-0.0, 0.5, 1.0 - 2.0**-24], [0.3, 1.7e-30, -2.0]]),),
            (torch.randn(5, 3, generator=g) * 10.0 ** torch.randint(-12, 12, (5, 3), generator=g),)]


DYNAMIC = {0: {0: "rows"}}
