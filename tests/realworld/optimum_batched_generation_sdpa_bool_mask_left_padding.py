"""Decoder self-attention as transformers' SDPA path runs it for batched (left-padded) generation: a
boolean 4-D causal & padding mask goes to F.scaled_dot_product_attention. The query rows of the left
padding see no key at all; eager PyTorch returns zeros there (safe softmax) but the exported ONNX model
does not, so batched inference/generation of the exported decoder goes wrong ("boolean 4D mask is
actually not supported by torch onnx exporter", fixed in Optimum by patching the graph after softmax).

Source: https://github.com/huggingface/optimum/pull/2326
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "operators-15"


class LlamaSdpaAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states, attention_mask):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)

        # boolean 4D mask: causal & padding (True = attend)
        causal_mask = torch.ones(q_len, q_len, dtype=torch.bool, device=hidden_states.device).tril()
        causal_mask = causal_mask[None, None, :, :] & attention_mask[:, None, None, :].bool()

        attn_output = F.scaled_dot_product_attention(
            query_states, key_states, value_states, attn_mask=causal_mask, dropout_p=0.0
        )
        attn_output = attn_output.transpose(1, 2).contiguous().reshape(bsz, q_len, -1)
        return self.o_proj(attn_output)


def make_model():
    return LlamaSdpaAttention().eval()


def _left_padded_mask(lengths, seq_len):
    mask = torch.zeros(len(lengths), seq_len, dtype=torch.int64)
    for i, n in enumerate(lengths):
        mask[i, seq_len - n:] = 1
    return mask


def example_inputs():
    return (torch.randn(2, 7, 32), _left_padded_mask([7, 4], 7))


def other_inputs():
    return [
        (torch.randn(3, 10, 32), _left_padded_mask([10, 6, 3], 10)),
        (torch.randn(2, 5, 32), _left_padded_mask([2, 5], 5)),
    ]


def probe_inputs():
    return other_inputs()
