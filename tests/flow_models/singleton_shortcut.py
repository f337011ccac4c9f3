"""ONX616 on transformers' `_prepare_decoder_attention_mask` (LLaMA, OPT, BART before 4.36): the causal mask
is built only `if input_shape[-1] > 1`, None (no mask) for one new token. A decoder with past exported with one
new token, as Optimum exports it, keeps no causal mask and attends non-causally when fed several tokens:
silently wrong under both exporters. Fixed by building the mask for every length under export (for one token
it masks nothing)."""
import torch
from torch import nn


def _make_causal_mask(input_ids_shape, dtype, past_key_values_length=0):
    bsz, tgt_len = input_ids_shape
    mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min)
    mask_cond = torch.arange(mask.size(-1))
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
    mask = torch.cat([torch.zeros(tgt_len, past_key_values_length, dtype=dtype), mask], dim=-1)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_key_values_length)


class DecoderWithPast(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def _prepare_decoder_attention_mask(self, input_shape, inputs_embeds, past_key_values_length):
        combined_attention_mask = None
        if input_shape[-1] > 1:
            combined_attention_mask = _make_causal_mask(input_shape, inputs_embeds.dtype, past_key_values_length)
        return combined_attention_mask

    def forward(self, x, past_key, past_value):
        batch_size, seq_length = x.shape[:2]
        mask = self._prepare_decoder_attention_mask((batch_size, seq_length), x, past_key.shape[1])
        keys = torch.cat([past_key, self.k(x)], dim=1)
        values = torch.cat([past_value, self.v(x)], dim=1)
        scores = self.q(x) @ keys.transpose(1, 2) / 8 ** 0.5
        if mask is not None:
            scores = scores + mask[:, 0]
        return scores.softmax(-1) @ values


def make_model():
    torch.manual_seed(0)
    return DecoderWithPast()


def example_inputs():
    return (torch.randn(2, 1, 8), torch.randn(2, 4, 8), torch.randn(2, 4, 8))


def probe_inputs():
    return [(torch.randn(3, 5, 8), torch.randn(3, 6, 8), torch.randn(3, 6, 8)),
            (torch.randn(1, 3, 8), torch.randn(1, 2, 8), torch.randn(1, 2, 8))]


DYNAMIC = {0: {0: "batch", 1: "tokens"}, 1: {0: "batch", 1: "past"}, 2: {0: "batch", 1: "past"}}
