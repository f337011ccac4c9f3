"""ONX605: UDOP's encoder stack in small: the all-ones attention mask is built only when not
compiling (`not is_torchdynamo_compiling()`), and the relative position bias reads the mask's
length. Dynamo traces with the mask None and fails on `None.size(1)`; legacy (not a dynamo
compile) builds it. Fixed (unsafely: torch.compile would now build the mask too) by dropping the
guard from the condition."""
import torch
from torch import nn
from transformers.utils import is_torchdynamo_compiling


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.bias = nn.Embedding(16, 1)

    def relative_bias(self, attention_mask):
        positions = torch.arange(attention_mask.size(1), device=attention_mask.device)
        return self.bias(positions).squeeze(-1) * attention_mask

    def forward(self, input_ids: torch.Tensor, attention_mask=None):
        hidden = self.embed(input_ids)
        batch_size, seq_length = input_ids.shape
        if attention_mask is None and not is_torchdynamo_compiling():
            attention_mask = torch.ones(batch_size, seq_length, device=hidden.device)
        return hidden.sum(-1) + self.relative_bias(attention_mask)


def make_model():
    torch.manual_seed(0)
    return Encoder()


def example_inputs():
    return (torch.tensor([[3, 1, 4, 1, 5, 9, 2], [6, 5, 3, 5, 8, 9, 7]]),)


def probe_inputs():
    return [(torch.tensor([[2, 7, 1, 8, 2, 8, 1], [8, 1, 8, 2, 8, 4, 5]]),),
            (torch.tensor([[2, 7, 1, 8, 2], [8, 1, 8, 2, 8], [4, 5, 9, 0, 4]]),)]


DYNAMIC = {0: {0: "batch", 1: "sequence"}}
