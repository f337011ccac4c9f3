"""transformers 4.36 SDPA mask preparation: `AttentionMaskConverter._unmask_unattended` finds the
left-padded rows with `torch.where(indices > 0)[0]`, returns early when there are none, and builds an
index tensor with `torch.arange(torch.max(indices))` before an in-place masked assignment; optimum's
model patcher replaces it with an identity function during ONNX export.

Source: https://github.com/huggingface/optimum/pull/1590
"""
from typing import Union

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-35"


class AttentionMaskConverter:
    @staticmethod
    def _unmask_unattended(
        expanded_mask: torch.Tensor, attention_mask: torch.Tensor, unmasked_value: Union[bool, float]
    ):
        # Get the index of the first non-zero value for every sample in the batch.
        # In the above example, indices = [[2], [0], [1]]]
        tmp = torch.arange(attention_mask.shape[1], 0, -1)
        indices = torch.argmax(attention_mask.cpu() * tmp, 1, keepdim=True)

        # Find the batch indexes that have unattended tokens on the leftmost side (e.g. [0, 0, 1, 1, 1]), for which the first rows of the
        # expanded mask will be completely unattended.
        left_masked_rows = torch.where(indices > 0)[0]

        if left_masked_rows.shape[0] == 0:
            return expanded_mask
        indices = indices[left_masked_rows]

        max_len = torch.max(indices)
        range_tensor = torch.arange(max_len).unsqueeze(0)
        range_tensor = range_tensor.repeat(indices.size(0), 1)

        # Avoid unmasking tokens at relevant target positions (on the row axis), by rather unmasking possibly several times the first row that should always be unmasked as we filtered out the batch above.
        range_tensor[range_tensor >= indices] = 0

        # TODO: we may drop support for 3D attention mask as the refactor from Patrick maybe dropped this case
        if expanded_mask.dim() == 4:
            num_masks = expanded_mask.shape[1]
            if num_masks == 1:
                # Broadcast [left_masked_rows, 0, range_tensor]
                mask_slice = (left_masked_rows[:, None], 0, range_tensor)
            else:
                # Broadcast [left_masked_rows, range(num_masks), range_tensor]
                mask_slice = (
                    left_masked_rows[:, None, None],
                    torch.arange(num_masks)[None, :, None],
                    range_tensor[:, None, :],
                )
        else:
            # Broadcast [left_masked_rows, range_tensor]
            mask_slice = (left_masked_rows[:, None], range_tensor)

        expanded_mask[mask_slice] = unmasked_value

        return expanded_mask


def _prepare_4d_causal_attention_mask_for_sdpa(attention_mask, input_shape, inputs_embeds):
    batch_size, query_length = input_shape
    dtype = inputs_embeds.dtype
    min_dtype = torch.finfo(dtype).min
    causal = torch.full((query_length, query_length), min_dtype, dtype=dtype).triu(1)
    padding = attention_mask[:, None, None, :].to(dtype)
    expanded_4d_mask = causal[None, None].masked_fill(padding == 0, min_dtype)

    # From PyTorch 2.1 onwards, F.scaled_dot_product_attention with the memory-efficient attention backend
    # produces nans if sequences are completely unattended in the attention mask.
    if query_length > 1:
        expanded_4d_mask = AttentionMaskConverter._unmask_unattended(
            expanded_4d_mask, attention_mask, unmasked_value=0.0
        )
    return expanded_4d_mask


class TinySdpaDecoder(nn.Module):
    def __init__(self, vocab=50, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.o_proj = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, input_ids, attention_mask):
        inputs_embeds = self.embed_tokens(input_ids)
        bsz, seq, dim = inputs_embeds.shape
        mask = _prepare_4d_causal_attention_mask_for_sdpa(attention_mask, (bsz, seq), inputs_embeds)
        q, k, v = self.qkv(inputs_embeds).view(bsz, seq, 3, self.heads, dim // self.heads).permute(2, 0, 3, 1, 4)
        attn = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        hidden = inputs_embeds + self.o_proj(attn.transpose(1, 2).reshape(bsz, seq, dim))
        return self.lm_head(hidden)


def make_model():
    return TinySdpaDecoder()


def _inputs(lengths, seq):
    # left padding, as used for batched generation
    mask = torch.zeros(len(lengths), seq, dtype=torch.long)
    for i, n in enumerate(lengths):
        mask[i, seq - n:] = 1
    return (torch.randint(0, 50, (len(lengths), seq)), mask)


def example_inputs():
    return _inputs([8, 5], 8)


def other_inputs():
    return [_inputs([11, 4, 9], 11), _inputs([6], 6), _inputs([7, 7], 7)]


def probe_inputs():
    return other_inputs()
