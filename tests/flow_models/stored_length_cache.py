"""ONX609, a cache keyed by a stored length: ESM's (and GPT-NeoX's older) rotary embedding keeps
its cos/sin tables in plain attributes with the length they were built for, and rebuilds them
only when `seq_len != self._seq_len_cached`; the body computes through locals and stores the
length as well. The eager call before export fills the cache at the example's length: the legacy
trace keeps the tables as constants (onnxruntime fails for other lengths) and torch.export pins
the length. Fixed safely: the tables are rebuilt under export (eager keeps its cache)."""
import torch
from torch import nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))
        self._seq_len_cached = None
        self._cos_cached = None
        self._sin_cached = None

    def _update_cos_sin_tables(self, x):
        seq_len = x.shape[-2]
        if seq_len != self._seq_len_cached or self._cos_cached.device != x.device:
            self._seq_len_cached = seq_len
            t = torch.arange(x.shape[-2], device=x.device).type_as(self.inv_freq)
            freqs = t[:, None] * self.inv_freq[None, :]
            emb = torch.cat((freqs, freqs), dim=-1)
            self._cos_cached = emb.cos()[None, :, :]
            self._sin_cached = emb.sin()[None, :, :]
        return self._cos_cached, self._sin_cached

    def forward(self, q):
        cos, sin = self._update_cos_sin_tables(q)
        half = torch.cat((-q[..., 4:], q[..., :4]), dim=-1)
        return q * cos + half * sin


def make_model():
    torch.manual_seed(0)
    model = RotaryEmbedding().eval()
    model(torch.zeros(2, 6, 8))  # an eager call at the example's length
    return model


def example_inputs():
    return (torch.randn(2, 6, 8),)


def probe_inputs():
    return [(torch.randn(3, 9, 8),), (torch.randn(1, 4, 8),)]


DYNAMIC = {0: {0: "batch", 1: "length"}}
