"""ONX201 on NeMo's `get_mask_from_lengths`: `if not max_len: max_len = torch.max(lengths).item()`,
then `torch.arange(0, max_len)`. The legacy exporter bakes the longest length in (the mask and the
frames it keeps stay the export-time length: silently wrong for others); the test before the binding reads the parameter,
never the number, so the name can stay the 0-d tensor (unsafe only because `torch.arange` takes a
0-d tensor but no one-element tensor of higher rank)."""
import torch
from torch import nn


def get_mask_from_lengths(lengths, max_len=None):
    if not max_len:
        max_len = torch.max(lengths).item()
    ids = torch.arange(0, max_len, device=lengths.device, dtype=torch.long)
    return (ids < lengths.unsqueeze(1)).bool()


class MaskedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, lengths):
        mask = get_mask_from_lengths(lengths)
        return self.proj(x[:, : mask.shape[1]]) * mask.unsqueeze(-1)  # the longest length's frames


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return MaskedEncoder()


def example_inputs():
    return (torch.randn(2, 7, 4), torch.tensor([7, 5]))


def probe_inputs():
    return [(torch.randn(3, 9, 4), torch.tensor([9, 2, 6])), (torch.randn(1, 4, 4), torch.tensor([4]))]


DYNAMIC = {0: {0: "b", 1: "t"}, 1: {0: "b"}}
