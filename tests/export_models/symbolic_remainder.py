"""TimesFM's padding shift: `(idx_range - indices[:, None]) % num_seq` with num_seq a dynamic
size. The dynamo exporter's function for aten.remainder.Scalar needs a constant divisor and fails
("not 'SymbolicTensor'"); the run names remainder_symbolic, which computes the integer remainder
as t - floor(t / n) * n while exporting."""

import torch
from torch import nn


class ShiftBack(nn.Module):
    def forward(self, seq, shift):
        batch, num_seq = seq.shape
        idx_range = torch.arange(num_seq).unsqueeze(0).expand(batch, -1)
        shifted_idx = (idx_range - shift[:, None]) % num_seq
        return seq.gather(1, shifted_idx)


def make_model():
    return ShiftBack()


def example_inputs():
    return (torch.randn(2, 7), torch.tensor([1, 3]))
