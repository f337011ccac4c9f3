"""A decoder's attention mask merged from bool masks with masked_fill (onnxscript#932's
`causal.masked_fill(key_padding, True)`, and an in-place `masked_fill_(..., False)` re-opening the
diagonal): torch.onnx writes an ONNX Where between bool values, which onnxruntime's CPU provider has
no kernel for ("Could not find an implementation for Where"). float32_compute, named by that error,
fills the masks as uint8 0 / 1 and reads them back as bool while exporting."""
import torch
from torch import nn


class MergedMaskAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, lengths):
        t = x.shape[1]
        key_padding = torch.arange(t).unsqueeze(0) >= lengths.unsqueeze(1)
        mask = torch.ones(t, t, dtype=torch.bool).triu(1).unsqueeze(0).masked_fill(key_padding.unsqueeze(1), True)
        mask.masked_fill_(torch.eye(t, dtype=torch.bool).unsqueeze(0), False)
        scores = self.proj(x) @ x.transpose(1, 2)
        return scores.masked_fill(mask, -1e4).softmax(-1)


def make_model():
    torch.manual_seed(0)
    return MergedMaskAttention()


def _inputs(batch, steps, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, steps, 8, generator=g), torch.randint(1, steps + 1, (batch,), generator=g)


def example_inputs():
    return _inputs(2, 6, 0)


def probe_inputs():
    return [_inputs(3, 9, 1), _inputs(1, 4, 2)]


DYNAMIC = {0: {0: "batch", 1: "steps"}, 1: {0: "batch"}}
