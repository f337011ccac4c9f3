"""x-transformers' memory mask (commit 4e1a520, "now ONNX exportable"): the padding mask extended
over the memory tokens with `F.pad(mask, ..., value=torch.any(mem))`, the pad value a tensor. dynamo
cannot read the value out of the tensor (a data-dependent guard); the legacy exporter records it as
a constant (wrong where the memory is all zeros). pad_tensor_value keeps the value a graph value
while exporting; then the legacy exporter's own `any` of floats is the first wrong value (it casts
to int64 and sums: values below 1 count as false), which any_nonzero repairs."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}, "mem": {0: "batch", 1: "mem_len"}}


class MemoryMask(nn.Module):
    def forward(self, x, mask, mem):
        attend = torch.any(mem * 0.1)
        mask = F.pad(mask, (mem.shape[1], 0), value=attend)
        keys = torch.cat([mem, x], dim=1)
        scores = x @ keys.transpose(1, 2)
        return scores.masked_fill(~mask[:, None, :], -1e4).softmax(-1) @ keys


def make_model():
    return MemoryMask().eval()


def _inputs(batch, length, memory, seed, empty=False):
    g = torch.Generator().manual_seed(seed)
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[:, length - 2:] = False
    mem = torch.zeros(batch, memory, 8) if empty else torch.randn(batch, memory, 8, generator=g)
    return (torch.randn(batch, length, 8, generator=g), mask, mem)


def example_inputs():
    return _inputs(2, 6, 3, 0)


def probe_inputs():
    return [_inputs(3, 5, 2, 1, empty=True), _inputs(1, 7, 4, 2)]
