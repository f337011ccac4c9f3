"""icefall streaming Zipformer ONNX wrapper: `OnnxEncoder.forward` builds `x_lens = torch.tensor([T] * N)` from the
batch size and then `src_key_padding_mask = make_pad_mask(x_lens)` (`max(max_len, lengths.max())`, `expand(n, ...)`),
so the batch size of the export example is frozen into the graph and the exported streaming encoder only works with
that batch size; the fix builds the mask with `torch.zeros(N, self.chunk_size)` so that batch size > 1 works.

Source: https://github.com/k2-fsa/icefall/pull/1148
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "N"}, "cached_key": {0: "N"}, "cached_embed_left_pad": {0: "N"}, "processed_lens": {0: "N"}}
BLIND = "domains-30"


def make_pad_mask(lengths: torch.Tensor, max_len: int = 0) -> torch.Tensor:
    assert lengths.ndim == 1, lengths.ndim
    max_len = max(max_len, lengths.max())
    n = lengths.size(0)
    seq_range = torch.arange(0, max_len, device=lengths.device)
    expaned_lengths = seq_range.unsqueeze(0).expand(n, max_len)
    return expaned_lengths >= lengths.unsqueeze(-1)


class OnnxEncoder(nn.Module):
    def __init__(self, dim=32, chunk_size=8, left_context_len=16):
        super().__init__()
        self.chunk_size = chunk_size
        self.left_context_len = left_context_len
        self.pad_length = 7 + 2 * 3
        self.encoder_embed = nn.Conv1d(80, dim, self.pad_length + 1, stride=2)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.encoder_proj = nn.Linear(dim, 16)

    def forward(self, x, cached_key, cached_embed_left_pad, processed_lens):
        N = x.size(0)
        T = self.chunk_size * 2 + self.pad_length
        x_lens = torch.tensor([T] * N, device=x.device)
        left_context_len = self.left_context_len

        x = self.encoder_embed((x + cached_embed_left_pad.mean((1, 2), keepdim=True)).transpose(1, 2)).transpose(1, 2)
        new_cached_embed_left_pad = x[:, -1:, :]
        x_lens = (x_lens - self.pad_length - 1) // 2 + 1
        assert x.size(1) == self.chunk_size, (x.size(1), self.chunk_size)

        src_key_padding_mask = make_pad_mask(x_lens)
        processed_mask = torch.arange(left_context_len, device=x.device).expand(x.size(0), left_context_len)
        processed_mask = (processed_lens.unsqueeze(1) <= processed_mask).flip(1)
        new_processed_lens = processed_lens + x_lens
        src_key_padding_mask = torch.cat([processed_mask, src_key_padding_mask], dim=1)

        kv = torch.cat([cached_key, x], dim=1)
        encoder_out, _ = self.attn(x, kv, kv, key_padding_mask=src_key_padding_mask)
        new_cached_key = kv[:, -left_context_len:, :]
        encoder_out = self.encoder_proj(encoder_out)
        return encoder_out, new_cached_key, new_cached_embed_left_pad, new_processed_lens


def make_model():
    return OnnxEncoder().eval()


def _inputs(n, processed):
    return (torch.randn(n, 29, 80), torch.randn(n, 16, 32), torch.randn(n, 1, 32),
            torch.full((n,), processed, dtype=torch.int64))


def example_inputs():
    return _inputs(1, 8)


def other_inputs():
    return [_inputs(3, 16), _inputs(2, 24)]


def probe_inputs():
    return other_inputs()
