"""ONX603: a bool attention mask filled per sample up to its effective length in a loop over a batch
size unpacked from the input's shape (HunyuanVideo's transformer, diffusers#11457): the loop is
unrolled for the example's batch; the rewrite is one `|` with a position < length comparison."""
import torch
from torch import nn


class MaskedMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, hidden_states: torch.Tensor, text_mask: torch.Tensor):
        batch_size, sequence_length, _ = hidden_states.shape
        lengths = text_mask.sum(dim=1, dtype=torch.int)
        attention_mask = torch.zeros(batch_size, sequence_length, device=hidden_states.device, dtype=torch.bool)
        for i in range(batch_size):
            attention_mask[i, : lengths[i]] = True
        weights = attention_mask.unsqueeze(-1).to(hidden_states.dtype)
        return (self.proj(hidden_states) * weights).sum(1) / weights.sum(1).clamp(min=1.0)


def make_model():
    torch.manual_seed(0)
    return MaskedMean().eval()


def _inputs(batch, length, valid):
    torch.manual_seed(batch + length)
    text_mask = torch.zeros(batch, length, dtype=torch.long)
    for row, n in enumerate(valid):
        text_mask[row, :n] = 1
    return (torch.randn(batch, length, 4), text_mask)


def example_inputs():
    return _inputs(2, 6, [3, 5])


def probe_inputs():
    return [_inputs(3, 8, [8, 1, 4]), _inputs(1, 5, [2])]


DYNAMIC = {0: {0: "batch", 1: "length"}, 1: {0: "batch", 1: "length"}}
