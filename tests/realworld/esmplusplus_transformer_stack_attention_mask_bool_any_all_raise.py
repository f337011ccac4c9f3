"""ESM++ (ESMC protein language model) TransformerStack validates the padding mask inside forward with
`if not bool(attention_mask.any(dim=1).all()): raise ValueError(...)` (twice) before building the 4-D
SDPA mask; the PR reports these mask-derived Python booleans give data-dependent graph breaks under
torch.compile and moves mask preparation behind torch.compiler.disable.

Source: https://github.com/Synthyra/FastPLMs/pull/41
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-80"


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.layernorm_qkv = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, d_model * 3, bias=False))
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, attention_mask_4d):
        b, l, _ = x.shape
        q, k, v = self.layernorm_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, l, self.n_heads, self.d_head).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask_4d)
        return self.out_proj(out.transpose(1, 2).reshape(b, l, -1))


class UnifiedTransformerBlock(nn.Module):
    def __init__(self, d_model, n_heads, residue_scaling_factor=1.0):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads)
        self.ffn = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))
        self.scaling_factor = residue_scaling_factor

    def forward(self, x, attention_mask_2d, attention_mask_4d):
        x = x + self.attn(x, attention_mask_4d) / self.scaling_factor
        return x + self.ffn(x) / self.scaling_factor


class TransformerStack(nn.Module):
    def __init__(self, d_model=64, n_heads=4, n_layers=2):
        super().__init__()
        self.blocks = nn.ModuleList([
            UnifiedTransformerBlock(d_model, n_heads, residue_scaling_factor=math.sqrt(n_layers / 36))
            for i in range(n_layers)])
        self.norm = nn.LayerNorm(d_model, bias=False)

    def forward(self, x, attention_mask=None, sequence_id=None):
        if sequence_id is None and attention_mask is not None:
            expected_shape = (x.shape[0], x.shape[1])
            if attention_mask.ndim != 2 or tuple(attention_mask.shape) != expected_shape:
                raise ValueError(
                    f"attention_mask must have shape {expected_shape}; "
                    f"received {tuple(attention_mask.shape)}."
                )
            attention_mask = attention_mask.to(device=x.device, dtype=torch.bool)
            if not bool(attention_mask.any(dim=1).all()):
                raise ValueError("attention_mask must keep at least one valid key per batch row.")
        attention_mask_2d, attention_mask_4d = self._sequence_id_attention_masks(
            sequence_id=attention_mask.to(device=x.device, dtype=torch.bool),
            batch_size=x.shape[0], seq_len=x.shape[1], device=x.device)
        for block in self.blocks:
            x = block(x=x, attention_mask_2d=attention_mask_2d, attention_mask_4d=attention_mask_4d)
        return self.norm(x)

    def _sequence_id_attention_masks(self, sequence_id, batch_size, seq_len, device):
        expected_shape = (batch_size, seq_len)
        if sequence_id.ndim != 2 or tuple(sequence_id.shape) != expected_shape:
            raise ValueError(
                f"sequence_id must have shape {expected_shape}; "
                f"received {tuple(sequence_id.shape)}."
            )
        if sequence_id.dtype == torch.bool:
            attention_mask_2d = sequence_id
            attention_mask_4d = sequence_id[:, None, :, None] == sequence_id[:, None, None, :]
        else:
            attention_mask_2d = sequence_id != -1
            attention_mask_4d = (sequence_id.unsqueeze(-1) == sequence_id.unsqueeze(-2)).unsqueeze(1)
        if not bool(attention_mask_2d.any(dim=1).all()):
            raise ValueError("attention_mask must keep at least one valid key per batch row.")
        return attention_mask_2d, attention_mask_4d


class ESMplusplusModel(nn.Module):
    def __init__(self, vocab_size=64, d_model=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.transformer = TransformerStack(d_model)

    def forward(self, input_ids, attention_mask):
        x = self.embed(input_ids)
        return self.transformer(x, attention_mask=attention_mask)


def make_model():
    return ESMplusplusModel()


def _inputs(lengths, seq_len):
    ids = torch.randint(4, 30, (len(lengths), seq_len))
    mask = (torch.arange(seq_len)[None, :] < torch.tensor(lengths)[:, None]).long()
    return ids * mask + (1 - mask), mask


def example_inputs():
    return _inputs([12, 9], 12)


def other_inputs():
    return [_inputs([20, 14, 7], 20), _inputs([5], 5)]


def probe_inputs():
    return other_inputs()
