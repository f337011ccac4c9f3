"""ONX609 on Wav2Vec2-BERT's rotary positional embedding (also SeamlessM4T's and CLVP's): the table is kept in
plain attributes with the length it was built for, and returned whenever the input has that length. Both
exporters decide the test on the example, after the warm-up call the export makes: torch.export pins the
length (the dynamic dim conflicts), the legacy trace keeps the cached table, wrong or failing for other lengths.
Fixed by rebuilding the table under export (eager keeps its cache)."""
import torch
from torch import nn


class RotaryTable(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)), persistent=False)
        self.cached_sequence_length = None
        self.cached_rotary_positional_embedding = None

    def forward(self, hidden_states):
        sequence_length = hidden_states.shape[1]
        if sequence_length == self.cached_sequence_length and self.cached_rotary_positional_embedding is not None:
            return self.cached_rotary_positional_embedding
        self.cached_sequence_length = sequence_length
        freqs = torch.einsum("i,j->ij", torch.arange(sequence_length).type_as(self.inv_freq), self.inv_freq)
        embeddings = torch.cat((freqs, freqs), dim=-1)
        self.cached_rotary_positional_embedding = torch.stack([embeddings.cos(), embeddings.sin()])
        return self.cached_rotary_positional_embedding


class Rotated(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = RotaryTable()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        cos, sin = self.table(x)
        h = self.proj(x)
        return h * cos + torch.cat((-h[..., 4:], h[..., :4]), -1) * sin


def make_model():
    torch.manual_seed(0)
    return Rotated()


def example_inputs():
    return (torch.randn(2, 10, 8),)


def probe_inputs():
    return [(torch.randn(3, 17, 8),), (torch.randn(1, 5, 8),)]


DYNAMIC = {0: {0: "batch", 1: "tokens"}}
