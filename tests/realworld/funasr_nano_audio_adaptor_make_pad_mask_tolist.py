"""Fun-ASR-Nano (FunAudioLLM, loaded with trust_remote_code / remote_code="./model.py") projects the
SenseVoice encoder output into the Qwen3 LLM with a Transformer adaptor that downsamples frames by k and
masks its attention blocks with funasr's `make_pad_mask(olens)`, which calls `lengths.tolist()` and
`int(max(lengths))`. optimum-intel's Fun-ASR export notes that these mask ops "use .tolist() which bakes
trace-time constants" and patches the attention layers to run without any mask.

Source: https://github.com/huggingface/optimum-intel/pull/1801
"""
import math

import numpy
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "frames"}, "ilens": {0: "batch"}}
BLIND = "domains-44"


def make_pad_mask(lengths, xs=None, length_dim=-1, maxlen=None):
    if length_dim == 0:
        raise ValueError("length_dim cannot be 0: {}".format(length_dim))

    if not isinstance(lengths, list):
        lengths = lengths.tolist()
    bs = int(len(lengths))
    if maxlen is None:
        if xs is None:
            maxlen = int(max(lengths))
        else:
            maxlen = xs.size(length_dim)
    else:
        assert xs is None
        assert maxlen >= int(max(lengths))

    seq_range = torch.arange(0, maxlen, dtype=torch.int64)
    seq_range_expand = seq_range.unsqueeze(0).expand(bs, maxlen)
    seq_length_expand = seq_range_expand.new(lengths).unsqueeze(-1)
    mask = seq_range_expand >= seq_length_expand
    return mask


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head, n_feat, dropout_rate=0.0):
        super().__init__()
        self.d_k = n_feat // n_head
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout_rate)

    def forward_qkv(self, query, key, value):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        return q, k, v

    def forward_attention(self, value, scores, mask):
        n_batch = value.size(0)
        if mask is not None:
            mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
            min_value = float(numpy.finfo(torch.tensor(0, dtype=scores.dtype).numpy().dtype).min)
            scores = scores.masked_fill(mask, min_value)
            self.attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)  # (batch, head, time1, time2)
        else:
            self.attn = torch.softmax(scores, dim=-1)  # (batch, head, time1, time2)
        p_attn = self.dropout(self.attn)
        x = torch.matmul(p_attn, value)  # (batch, head, time1, d_k)
        x = x.transpose(1, 2).contiguous().view(n_batch, -1, self.h * self.d_k)  # (batch, time1, d_model)
        return self.linear_out(x)  # (batch, time1, d_model)

    def forward(self, query, key, value, mask):
        q, k, v = self.forward_qkv(query, key, value)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        return self.forward_attention(v, scores, mask)


class EncoderLayer(nn.Module):
    def __init__(self, size, self_attn, ffn_dim):
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = nn.Sequential(nn.Linear(size, ffn_dim), nn.ReLU(), nn.Linear(ffn_dim, size))
        self.norm1 = nn.LayerNorm(size)
        self.norm2 = nn.LayerNorm(size)

    def forward(self, x, mask):
        residual = x
        x = self.norm1(x)
        x = residual + self.self_attn(x, x, x, mask)
        residual = x
        x = self.norm2(x)
        x = residual + self.feed_forward(x)
        return x, mask


class Transformer(nn.Module):
    def __init__(self, downsample_rate=2, encoder_dim=32, llm_dim=64, ffn_dim=128, n_layer=2, attention_heads=4):
        super().__init__()
        self.k = downsample_rate
        self.encoder_dim = encoder_dim
        self.llm_dim = llm_dim
        self.linear1 = nn.Linear(self.encoder_dim * self.k, ffn_dim)
        self.relu = nn.ReLU()
        self.linear2 = nn.Linear(ffn_dim, self.llm_dim)
        self.blocks = nn.ModuleList(
            [EncoderLayer(llm_dim, MultiHeadedAttention(attention_heads, llm_dim), llm_dim // 4) for i in range(n_layer)]
        )

    def forward(self, x, ilens=None):
        batch_size, seq_len, dim = x.size()
        # num_frames_to_discard = seq_len % self.k
        chunk_num = (seq_len - 1) // self.k + 1
        pad_num = chunk_num * self.k - seq_len
        x = F.pad(x, (0, 0, 0, pad_num, 0, 0), value=0.0)
        seq_len = x.size(1)

        x = x.contiguous()
        x = x.view(batch_size, chunk_num, dim * self.k)
        x = self.linear1(x)
        x = self.relu(x)
        x = self.linear2(x)

        olens = None
        olens = (ilens - 1) // self.k + 1
        masks = (~make_pad_mask(olens)[:, None, :]).to(x.device)

        if self.blocks is not None:
            for layer, block in enumerate(self.blocks):
                x, masks = block(x, masks)
        return x, olens


def make_model():
    return Transformer().eval()


def _inputs(lengths):
    return (torch.randn(len(lengths), max(lengths), 32), torch.tensor(lengths, dtype=torch.int64))


def example_inputs():
    return _inputs([40, 31])


def other_inputs():
    return [_inputs([57, 57, 20]), _inputs([23])]


def probe_inputs():
    return other_inputs()
