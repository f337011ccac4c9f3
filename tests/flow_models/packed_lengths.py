"""ONX202 on T2Vec's GRU encoder: `lengths = lengths.view(-1).tolist()` handed to
`pack_padded_sequence`. The legacy exporter records the list as constants. Fixed by passing the tensor while the legacy exporter traces
(`pack_padded_sequence` makes the same int64 CPU tensor of a list); eager and torch.export keep
the list (torch.export still fails on the packed sequence's data-dependent size, which
`onnxfix export` carries as the padded batch at export time)."""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)
        self.rnn = nn.GRU(4, 4)

    def forward(self, tokens, lengths):
        embed = self.embedding(tokens)
        lengths = lengths.view(-1).tolist()
        embed = pack_padded_sequence(embed, lengths, enforce_sorted=False)
        output, hn = self.rnn(embed)
        return hn, pad_packed_sequence(output, total_length=tokens.shape[0])[0]


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return Encoder()


def example_inputs():
    return (torch.randint(0, 10, (6, 3)), torch.tensor([6, 4, 2]))


def probe_inputs():
    return [(torch.randint(0, 10, (5, 2)), torch.tensor([5, 3])), (torch.randint(0, 10, (7, 4)), torch.tensor([7, 7, 3, 1]))]


DYNAMIC = {0: {0: "t", 1: "b"}, 1: {0: "b"}}
