"""ONX101-ONX103: I-BERT's `batch_frexp` as transformers 5.23 has it (models/ibert/quant_modules.py):
`np.frexp(inputs.cpu().numpy())`, then a Python loop rounding each mantissa * 2**31 half up through
`decimal` into a list, `np.array` of the list, and the exponent as `float(max_bit) - output_e`
(NumPy promotes it to float64). Dynamo fails on `.numpy()`, legacy bakes the result in. Fixed
(unsafely: the loop's Python ints become int64) as one tensor expression: `_onnx_frexp`, then
`_onnx_round_half_away` of the scaled mantissa, and the exponent against a 0-d float64 tensor so
that torch promotes to float64 as NumPy does."""
import decimal

import numpy as np
import torch
from torch import nn


def batch_frexp(inputs, max_bit=31):
    shape_of_input = inputs.size()

    # trans the input to be a 1-d tensor
    inputs = inputs.view(-1)

    output_m, output_e = np.frexp(inputs.cpu().numpy())
    tmp_m = []
    for m in output_m:
        int_m_shifted = int(
            decimal.Decimal(m * (2**max_bit)).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
        )
        tmp_m.append(int_m_shifted)
    output_m = np.array(tmp_m)

    output_e = float(max_bit) - output_e

    return (
        torch.from_numpy(output_m).to(inputs.device).view(shape_of_input),
        torch.from_numpy(output_e).to(inputs.device).view(shape_of_input),
    )


class FixedPointRequant(nn.Module):
    """I-BERT's FixedPointMul without an identity: z_int * m / 2**e, rounded."""

    def forward(self, z_int, scale):
        m, e = batch_frexp(scale.double())
        return m, e, torch.round(z_int.double() * m.double() / (2.0**e))


def make_model():
    return FixedPointRequant()


def example_inputs():
    # mantissa * 2**31 ends in .5 for the last two scales: half up and half to even differ there
    ties = torch.tensor([(2**30 + 0.5) / 2**31, -(2**30 + 1.5) / 2**31], dtype=torch.float64)
    return (torch.tensor([[3.0, -7.0, 12.0, 100.0], [-1.0, 0.0, 5.0, 64.0]]),
            torch.cat([torch.tensor([0.75, 3.0e-5], dtype=torch.float64), ties]))


def probe_inputs():
    g = torch.Generator().manual_seed(0)
    return [(torch.randint(-127, 128, (3, 4), generator=g).float(), torch.tensor([2.0**-20, 0.1, 1e-12, 7.0], dtype=torch.float64)),
            (torch.randint(-127, 128, (5, 6), generator=g).float(),
             torch.rand(6, generator=g, dtype=torch.float64) * 1e-3 + 1e-6)]


DYNAMIC = {0: {0: "rows", 1: "channels"}, 1: {0: "channels"}}
