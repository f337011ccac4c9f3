"""ONX603 on a loop that fills each row up to its own length: a padding mask built per
utterance, `for i in range(mask.shape[0]): mask[i, :lengths[i]] = 1`. Unrolled at export:
torch.export fails on the dynamic batch and the legacy exporter keeps the export-time rows and
lengths. Fixed (unsafe: one non-negative length per row is not in the source) by one in-place
masked fill against `torch.arange` over the time axis."""
import torch
from torch import nn


class MaskedMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, feats, lengths):
        mask = torch.zeros(feats.shape[0], feats.shape[1], dtype=feats.dtype, device=feats.device)
        for i in range(mask.shape[0]):
            mask[i, :lengths[i]] = 1
        hidden = self.proj(feats) * mask[..., None]
        return hidden.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)


def make_model():
    torch.manual_seed(0)
    return MaskedMean()


def example_inputs():
    return (torch.randn(3, 8, 6), torch.tensor([8, 5, 2]))


def probe_inputs():
    return [(torch.randn(2, 11, 6), torch.tensor([4, 11])), (torch.randn(4, 6, 6), torch.tensor([6, 1, 3, 0]))]


DYNAMIC = {0: {0: "batch", 1: "time"}, 1: {0: "batch"}}
