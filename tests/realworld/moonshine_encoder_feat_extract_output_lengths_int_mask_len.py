"""Moonshine ASR encoder (transformers MoonshineEncoder): the attention mask is downsampled to the
conv output length computed by `_get_feat_extract_output_lengths`, which wraps the arithmetic on
`attention_mask.shape[-1]` in `int(...)`; optimum's model patcher replaces it with `//` because
"the original results in a constant integer due to the use of int(expr)", freezing the mask length
at the export audio length.

Source: https://github.com/huggingface/optimum-onnx/pull/34
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_values": {0: "batch", 1: "audio_length"}, "attention_mask": {0: "batch", 1: "audio_length"}}
BLIND = "domains-35"


def _prepare_4d_attention_mask(mask, dtype, tgt_len=None):
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


class MoonshineEncoder(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4):
        super().__init__()
        self.conv1 = nn.Conv1d(1, embed_dim, kernel_size=127, stride=64, bias=False)
        self.conv2 = nn.Conv1d(embed_dim, 2 * embed_dim, kernel_size=7, stride=3)
        self.conv3 = nn.Conv1d(2 * embed_dim, embed_dim, kernel_size=3, stride=2)
        self.groupnorm = nn.GroupNorm(num_groups=1, num_channels=embed_dim, eps=1e-5)
        self.num_heads = num_heads
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.o_proj = nn.Linear(embed_dim, embed_dim)
        self.layer_norm = nn.LayerNorm(embed_dim, bias=False)

    def _get_feat_extract_output_lengths(self, input_lengths: torch.LongTensor):
        """
        Computes the output length of the convolutional layers
        """
        output_conv1_length = int((input_lengths - 127) / 64 + 1)
        output_conv2_length = int((output_conv1_length - 7) / 3 + 1)
        output_conv3_length = int((output_conv2_length - 3) / 2 + 1)

        return output_conv3_length

    def forward(self, input_values, attention_mask=None):
        input_values = input_values.unsqueeze(1)
        hidden_states = nn.functional.tanh(self.conv1(input_values))
        hidden_states = self.groupnorm(hidden_states)
        hidden_states = nn.functional.gelu(self.conv2(hidden_states))
        hidden_states = nn.functional.gelu(self.conv3(hidden_states))
        hidden_states = hidden_states.permute(0, 2, 1)

        # attention mask downsampling
        if attention_mask is not None:
            mask_len = self._get_feat_extract_output_lengths(attention_mask.shape[-1])
            downsample_stride = 64 * 3 * 2  # conv strides
            attention_mask = attention_mask[..., ::downsample_stride][..., :mask_len]
            attention_mask = _prepare_4d_attention_mask(attention_mask, hidden_states.dtype)

        bsz, seq, dim = hidden_states.shape
        q, k, v = self.qkv(hidden_states).view(bsz, seq, 3, self.num_heads, dim // self.num_heads).permute(2, 0, 3, 1, 4)
        attn = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask)
        hidden_states = hidden_states + self.o_proj(attn.transpose(1, 2).reshape(bsz, seq, dim))
        return self.layer_norm(hidden_states)


def make_model():
    return MoonshineEncoder()


def _inputs(batch, length, valid):
    mask = torch.zeros(batch, length, dtype=torch.long)
    for i, n in enumerate(valid):
        mask[i, :n] = 1
    return (torch.randn(batch, length), mask)


def example_inputs():
    return _inputs(2, 16000, [16000, 12000])


def other_inputs():
    return [_inputs(3, 24000, [24000, 20000, 9000]), _inputs(1, 9600, [9600])]


def probe_inputs():
    return other_inputs()
