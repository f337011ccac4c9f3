"""ppl.pmx (OpenPPL LLM-serving model zoo) static-batching LLaMA/Baichuan with ALiBi: `Transformer.forward` builds
the attention bias with `alibi_mask(torch.tensor(tokens.shape[1]), torch.tensor(tokens.shape[1]) + start_pos, ...)`,
and the eager path of `ALiBiMask.forward` turns both lengths into Python ints (`int(seqlen_q), int(seqlen_kv)`),
sizes a `torch.full((seqlen_q, padded_last_dim), -inf)` with them and fills it in a Python double loop, then adds
the user mask. Under `torch.onnx.is_in_onnx_export()` the library returns zeros and emits a custom
`opmx::ALiBiMask` node instead, i.e. the eager mask construction is what cannot be exported.

Source: https://github.com/OpenPPL/ppl.pmx/blob/4b3a14688667bb39377d7678744ea63135f44725/torch_function/ALiBiMask.py
"""
import math
from typing import Optional

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"tokens": {0: "batch", 1: "seqlen"}, "attn_mask": {0: "seqlen", 1: "kvlen"},
           "kv_cache": {1: "batch", 3: "cachelen"}}
BLIND = "domains-58"


def alibi_mask(seqlen_q: torch.Tensor, seqlen_kv: torch.Tensor,
               attention_mask: Optional[torch.Tensor], num_heads: int, data_type: torch.dtype):
    # eager branch of OPMX.ALiBiMask.forward (its `if torch.onnx.is_in_onnx_export(): return torch.zeros(...)`
    # export branch, paired with a custom-op symbolic, is not taken)
    def get_slopes(heads):
        tmp = []
        closest_power_of_2 = 2 ** math.floor(math.log2(heads))
        for n in range(1, closest_power_of_2+1):
            tmp.append(2**(-8 * n / closest_power_of_2))
        if closest_power_of_2 < heads:
            for n in range(1, 2*(heads-closest_power_of_2)+1, 2):
                tmp.append(2**(-4 * n / closest_power_of_2))
        return tmp

    seqlen_q, seqlen_kv = int(seqlen_q), int(seqlen_kv)
    last_dim = seqlen_kv
    padded_last_dim = (seqlen_kv + 15) // 16 * 16

    slopes = torch.tensor(get_slopes(num_heads), dtype=data_type)
    alibi_mask = torch.full((seqlen_q, padded_last_dim), float("-inf"), dtype=data_type)

    for i in range(seqlen_q-1, -1, -1):
        for j in range(seqlen_kv):
            mask = j - seqlen_kv + 1 + (seqlen_q - 1 - i)
            if mask <= 0:
                alibi_mask[i][j] = mask

    # alibi_mask shape -> (num_heads, seqlen_q, seqlen_kv)
    alibi_mask = alibi_mask.unsqueeze(0).expand(num_heads, -1, -1)
    alibi_mask = slopes.unsqueeze(1).unsqueeze(1) * alibi_mask

    if attention_mask is not None and attention_mask.numel() > 0:
        assert len(attention_mask.shape) == 2 or len(attention_mask.shape) == 3 or len(attention_mask.shape) == 4
        if len(attention_mask.shape) == 2:
            attention_mask = attention_mask.unsqueeze(0).expand(num_heads, -1, -1)
        if len(attention_mask.shape) == 4:
            batch = attention_mask.shape[0]
            alibi_mask = alibi_mask.unsqueeze(0).expand(batch, -1, -1, -1).clone()
        alibi_mask[..., :last_dim] = (alibi_mask[..., :last_dim].to(attention_mask[..., :last_dim])
                                      + attention_mask[..., :last_dim])
    return alibi_mask


class Transformer(nn.Module):
    def __init__(self, vocab_size=100, hidden_dim=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_dim // num_heads
        self.tok_embeddings = nn.Embedding(vocab_size, hidden_dim)
        self.wqkv = nn.Linear(hidden_dim, 3 * hidden_dim, bias=False)
        self.wo = nn.Linear(hidden_dim, hidden_dim, bias=False)
        self.norm = nn.LayerNorm(hidden_dim)
        self.output = nn.Linear(hidden_dim, vocab_size, bias=False)
        self.with_alibi = True
        self.fused_alibi = False

    def forward(self, tokens: torch.Tensor, attn_mask: Optional[torch.Tensor],
                start_pos: torch.Tensor, kv_cache: torch.Tensor):
        h = self.tok_embeddings(tokens)

        if self.with_alibi and not self.fused_alibi:
            attn_mask = alibi_mask(
                torch.tensor(tokens.shape[1], dtype=torch.int64),
                torch.tensor(tokens.shape[1], dtype=torch.int64) + start_pos, attn_mask, self.num_heads, h.dtype)

        # one attention layer over [cached keys/values of the previous start_pos tokens, current tokens]
        bs, seqlen, _ = h.shape
        q, k, v = self.wqkv(h).view(bs, seqlen, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        k = torch.cat([kv_cache[0], k], dim=2)
        v = torch.cat([kv_cache[1], v], dim=2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        scores = scores + attn_mask[..., :k.shape[2]]
        attn = scores.softmax(-1) @ v
        h = h + self.wo(attn.transpose(1, 2).reshape(bs, seqlen, -1))

        h = self.norm(h)
        output = self.output(h[:, -1, :])  # only compute last logits
        output = output.float()
        return output


def make_model():
    torch.manual_seed(0)
    return Transformer().eval()


def _step(bs, seqlen, cachelen):
    tokens = torch.randint(0, 100, (bs, seqlen))
    attn_mask = torch.zeros(seqlen, seqlen + cachelen)
    attn_mask[:, 0] = -1e4  # e.g. a masked (left-padded) first position
    kv_cache = torch.randn(2, bs, 4, cachelen, 8)
    return (tokens, attn_mask, torch.tensor(cachelen, dtype=torch.int64), kv_cache)


def example_inputs():
    return _step(2, 5, 3)


def other_inputs():
    return [_step(3, 7, 6), _step(1, 4, 1)]


def probe_inputs():
    return other_inputs()
