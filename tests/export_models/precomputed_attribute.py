"""A speaker embedding projected once in `__init__` through a trainable layer and kept as a plain
attribute (Chatterbox's `self.cond_spkr = self.spkr_enc(emb)`): a tensor with a grad_fn, which the
legacy tracer refuses to record as a constant ("Cannot insert a Tensor that requires grad"); no
flag can be switched off on it (it is no leaf), so gradients_off detaches it while exporting."""
import torch
from torch import nn


class Conditioning(nn.Module):
    def __init__(self):
        super().__init__()
        self.spkr_enc = nn.Linear(6, 4)
        self.emb = nn.Embedding(10, 4)
        self.cond_spkr = self.spkr_enc(torch.randn(1, 6))[:, None]

    def forward(self, tokens):
        cond = self.cond_spkr.expand(tokens.shape[0], -1, -1)
        return torch.cat((cond, self.emb(tokens)), dim=1)


def make_model():
    torch.manual_seed(0)
    return Conditioning().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randint(0, 10, (2, 5)),)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randint(0, 10, (3, 8)),)]
