"""transformers 4.53 builds the causal mask from position_ids with find_packed_sequence_indices:
`torch.diff(position_ids, prepend=first_dummy_value, dim=-1)` then a cumsum of the `!= 1` bool, so a
decoder exported with position_ids carries a diff(prepend=) in its mask. optimum's transformers-4.53
PR replaces the function during ONNX export ("patch find_packed_sequence_indices as it's
untraceable"); which op broke is not stated there (inference: optimum exports with the TorchScript
exporter, which has no aten::diff symbolic).

Source: https://github.com/huggingface/optimum/pull/2319
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "operators-25"


def find_packed_sequence_indices(position_ids: torch.Tensor) -> torch.Tensor:
    """
    Find the indices of the sequence to which each new query token in the sequence belongs when using packed
    tensor format (i.e. several sequences packed in the same batch dimension).
    """
    # What separate different sequences is when 2 consecutive positions_ids are separated by more than 1. So
    # taking the diff (by prepending the first value - 1 to keep correct indexing) and applying cumsum to the result
    # gives exactly the sequence indices
    # Note that we assume that a single sequence cannot span several batch dimensions, i.e. 1 single sequence
    # cannot be part of the end of the first batch dim and the start of the 2nd one for example
    first_dummy_value = position_ids[:, :1] - 1  # We just need the diff on this first value to be 1
    position_diff = torch.diff(position_ids, prepend=first_dummy_value, dim=-1)
    packed_sequence_mask = (position_diff != 1).cumsum(-1)

    # Here it would be nice to return None if we did not detect packed sequence format, i.e. if `packed_sequence_mask[:, -1] == 0`
    # but it causes issues with export
    return packed_sequence_mask


class TinyDecoderLayer(nn.Module):
    """One self-attention block whose mask is causal AND same-packed-sequence (the and_masks of
    causal_mask_function and packed_sequence_mask_function, written with broadcasting)."""

    def __init__(self, hidden=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.o_proj = nn.Linear(hidden, hidden)

    def forward(self, hidden_states, position_ids):
        b, s, d = hidden_states.shape
        packed_sequence_mask = find_packed_sequence_indices(position_ids)
        q_idx = torch.arange(s, device=hidden_states.device)
        causal = q_idx[None, :, None] >= q_idx[None, None, :]
        same_seq = packed_sequence_mask[:, :, None] == packed_sequence_mask[:, None, :]
        attn_mask = (causal & same_seq)[:, None]

        q, k, v = self.qkv(hidden_states).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        return self.o_proj(out.transpose(1, 2).reshape(b, s, d))


def make_model():
    return TinyDecoderLayer().eval()


def _inputs(b, lengths):
    pos = torch.cat([torch.arange(n) for n in lengths])[None].expand(b, -1).contiguous()
    return (torch.randn(b, pos.shape[1], 32), pos)


def example_inputs():
    return _inputs(2, [3, 4, 2])


def other_inputs():
    return [_inputs(3, [5, 1, 6]), _inputs(1, [4, 3])]


def probe_inputs():
    return other_inputs()
