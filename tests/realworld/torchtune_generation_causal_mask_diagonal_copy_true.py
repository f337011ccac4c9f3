"""torchtune generation: `get_causal_mask_from_padding_mask` builds the prompt's causal mask from the left-padding
mask with in-place writes through views, ending in `mask.diagonal(dim1=1, dim2=2).copy_(True)` (a Python bool copied
into a diagonal view); torch.compile(fullgraph=True) fails on that line ("aten::copy() Expected a value of type
'Tensor' for argument 'src' but instead found type 'bool'"). Here a tiny decoder prefill attends with that mask.

Source: https://github.com/meta-pytorch/torchtune/pull/1627
"""
import torch
from torch import nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"tokens": {0: "batch", 1: "seq"}, "padding_mask": {0: "batch", 1: "seq"}}
BLIND = "domains-34"


def get_causal_mask_from_padding_mask(padding_mask, target_seq_len=None):
    bsz, seq_len = padding_mask.shape
    target_seq_len = seq_len if target_seq_len is None else target_seq_len

    if target_seq_len < seq_len:
        raise AssertionError(
            "target_seq_len cannot be shorter than the sequence length of the padding mask."
        )

    mask = torch.tril(
        torch.ones(seq_len, target_seq_len, device=padding_mask.device, dtype=bool),
        diagonal=0,
    ).repeat(bsz, 1, 1)
    mask.narrow(2, 0, seq_len).mul_(padding_mask[:, None, :].expand(-1, seq_len, -1))
    mask.diagonal(dim1=1, dim2=2).copy_(True)
    return mask


class TinyDecoderPrefill(nn.Module):
    def __init__(self, vocab_size=50, dim=16, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.output = nn.Linear(dim, vocab_size)

    def forward(self, tokens, padding_mask):
        masks = get_causal_mask_from_padding_mask(padding_mask)
        x = self.tok_embeddings(tokens)
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.num_heads, d // self.num_heads).permute(2, 0, 3, 1, 4)
        h = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=masks[:, None, :, :])
        return self.output(h.transpose(1, 2).reshape(b, s, d))


def _left_padded(bsz, seq_len):
    padding_mask = torch.ones(bsz, seq_len, dtype=torch.bool)
    padding_mask[0, : seq_len // 3] = False  # first prompt is left-padded
    return torch.randint(0, 50, (bsz, seq_len)), padding_mask


def make_model():
    return TinyDecoderPrefill().eval()


def example_inputs():
    return _left_padded(2, 10)


def other_inputs():
    return [_left_padded(3, 13), _left_padded(1, 7)]


def probe_inputs():
    return other_inputs()
