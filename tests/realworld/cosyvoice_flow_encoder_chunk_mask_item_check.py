"""CosyVoice2 flow text encoder: `add_optional_chunk_mask` ends with the sanity check
`if (chunk_masks.sum(dim=-1) == 0).sum().item() != 0:` (force fully masked rows to True); converting the
flow to ONNX with a recent PyTorch (dynamo exporter by default) fails there, the legacy trace only warns and
the maintainer's answer is to pass `dynamo=False`.

Source: https://github.com/Lourdle/CosyVoiceForOnnx/issues/4
"""
import logging

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "tensor_data"
DYNAMIC = {"xs": {0: "batch", 1: "token_len"}, "xs_lens": {0: "batch"}}
BLIND = "domains-26"

logger = logging.getLogger(__name__)


def subsequent_chunk_mask(size: int, chunk_size: int, num_left_chunks: int = -1,
                          device: torch.device = torch.device("cpu")) -> torch.Tensor:
    pos_idx = torch.arange(size, device=device)
    block_value = (torch.div(pos_idx, chunk_size, rounding_mode='trunc') + 1) * chunk_size
    ret = pos_idx.unsqueeze(0) < block_value.unsqueeze(1)
    return ret


def add_optional_chunk_mask(xs: torch.Tensor, masks: torch.Tensor, use_dynamic_chunk: bool,
                            use_dynamic_left_chunk: bool, decoding_chunk_size: int, static_chunk_size: int,
                            num_decoding_left_chunks: int, enable_full_context: bool = True):
    # Whether to use chunk mask or not
    if use_dynamic_chunk:
        raise NotImplementedError  # training only
    elif static_chunk_size > 0:
        num_left_chunks = num_decoding_left_chunks
        chunk_masks = subsequent_chunk_mask(xs.size(1), static_chunk_size,
                                            num_left_chunks,
                                            xs.device)  # (L, L)
        chunk_masks = chunk_masks.unsqueeze(0)  # (1, L, L)
        chunk_masks = masks & chunk_masks  # (B, L, L)
    else:
        chunk_masks = masks
    assert chunk_masks.dtype == torch.bool
    if (chunk_masks.sum(dim=-1) == 0).sum().item() != 0:
        logger.debug('get chunk_masks all false at some timestep, force set to true, make sure they are masked in futuer computation!')
        chunk_masks[chunk_masks.sum(dim=-1)==0] = True
    return chunk_masks


def make_pad_mask(lengths: torch.Tensor, max_len: int = 0) -> torch.Tensor:
    lengths = lengths.long()
    batch_size = lengths.size(0)
    max_len = max_len if max_len > 0 else lengths.max().item()
    seq_range = torch.arange(0, max_len, dtype=torch.int64, device=lengths.device)
    seq_range_expand = seq_range.unsqueeze(0).expand(batch_size, max_len)
    seq_length_expand = lengths.unsqueeze(-1)
    mask = seq_range_expand >= seq_length_expand
    return mask


class UpsampleConformerEncoder(nn.Module):
    def __init__(self, input_size=32, output_size=32, heads=4, static_chunk_size=0):
        super().__init__()
        self.embed = nn.Linear(input_size, output_size)
        self.linear_q = nn.Linear(output_size, output_size)
        self.linear_k = nn.Linear(output_size, output_size)
        self.linear_v = nn.Linear(output_size, output_size)
        self.linear_out = nn.Linear(output_size, output_size)
        self.after_norm = nn.LayerNorm(output_size)
        self.heads = heads
        self.static_chunk_size = static_chunk_size

    def self_attn(self, x, mask):
        n_batch = x.size(0)
        d_k = x.size(-1) // self.heads
        q = self.linear_q(x).view(n_batch, -1, self.heads, d_k).transpose(1, 2)
        k = self.linear_k(x).view(n_batch, -1, self.heads, d_k).transpose(1, 2)
        v = self.linear_v(x).view(n_batch, -1, self.heads, d_k).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / d_k ** 0.5
        mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
        scores = scores.masked_fill(mask, -float('inf'))
        attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        x = torch.matmul(attn, v).transpose(1, 2).contiguous().view(n_batch, -1, self.heads * d_k)
        return self.linear_out(x)

    def forward(self, xs, xs_lens, streaming: bool = False):
        T = xs.size(1)
        masks = ~make_pad_mask(xs_lens, T).unsqueeze(1)  # (B, 1, T)
        xs = self.embed(xs)
        mask_pad = masks  # (B, 1, T/subsample_rate)
        chunk_masks = add_optional_chunk_mask(xs, masks, False, False, 0,
                                              self.static_chunk_size if streaming is True else 0, -1)
        xs = xs + self.self_attn(xs, chunk_masks)
        xs = self.after_norm(xs)
        return xs * mask_pad.transpose(1, 2), masks.sum(-1).squeeze(1)


def make_model():
    return UpsampleConformerEncoder().eval()


def _inputs(b, t):
    lens = torch.randint(max(1, t // 2), t + 1, (b,))
    lens[0] = t
    return (torch.randn(b, t, 32), lens)


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(3, 20), _inputs(1, 7)]


def probe_inputs():
    return other_inputs()
