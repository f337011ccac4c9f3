"""sherpa-onnx's Whisper export script wraps the text decoder in `TextDecoderTensorCache`, whose forward takes the
step position as a tensor `offset` and slices with it: `positional_embedding[offset[0] : offset[0] + tokens.shape[-1]]`
and `n_layer_self_k_cache[i, :, : offset[0] + tokens.shape[-1], :]` (read, then written back in place), with the
self-attention writing `k_cache[:, -k.shape[1]:, :] = k`; running `python export-onnx.py --model small` on PyTorch 2.x
fails while exporting this decoder (the dynamo exporter cannot size slices bounded by the `offset` tensor's value).

Source: https://github.com/k2-fsa/sherpa-onnx/issues/1712
"""
import torch
from torch import nn, Tensor
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"tokens": {0: "n_audio", 1: "n_tokens"}, "n_layer_self_k_cache": {1: "n_audio"}, "n_layer_self_v_cache": {1: "n_audio"}, "n_layer_cross_k": {1: "n_audio"}, "n_layer_cross_v": {1: "n_audio"}}
BLIND = "domains-38"

N_VOCAB, N_CTX, N_STATE, N_HEAD, N_LAYER, N_AUDIO_CTX = 100, 32, 16, 2, 2, 10


class MultiHeadAttention(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.n_head = n_head
        self.query = nn.Linear(n_state, n_state)
        self.key = nn.Linear(n_state, n_state, bias=False)
        self.value = nn.Linear(n_state, n_state)
        self.out = nn.Linear(n_state, n_state)

    def qkv_attention(self, q, k, v, mask=None):
        n_batch, n_ctx, n_state = q.shape
        scale = (n_state // self.n_head) ** -0.25
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3) * scale
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 3, 1) * scale
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        qk = q @ k
        if mask is not None:
            qk = qk + mask[:n_ctx, :n_ctx]
        qk = qk.float()
        w = F.softmax(qk, dim=-1).to(q.dtype)
        return (w @ v).permute(0, 2, 1, 3).flatten(start_dim=2), qk.detach()


class MultiHeadAttentionSelf(nn.Module):
    def __init__(self, inMultiHeadAttention):
        super().__init__()
        self.multiHeadAttention = inMultiHeadAttention

    def forward(self, x, k_cache, v_cache, mask):
        q = self.multiHeadAttention.query(x)
        k = self.multiHeadAttention.key(x)
        v = self.multiHeadAttention.value(x)
        k_cache[:, -k.shape[1] :, :] = k
        v_cache[:, -v.shape[1] :, :] = v
        wv, qk = self.multiHeadAttention.qkv_attention(q, k_cache, v_cache, mask)
        return self.multiHeadAttention.out(wv), k_cache, v_cache


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = MultiHeadAttentionSelf(MultiHeadAttention(N_STATE, N_HEAD))
        self.cross_attn = MultiHeadAttention(N_STATE, N_HEAD)
        self.attn_ln = nn.LayerNorm(N_STATE)
        self.cross_attn_ln = nn.LayerNorm(N_STATE)
        self.mlp = nn.Sequential(nn.Linear(N_STATE, 4 * N_STATE), nn.GELU(), nn.Linear(4 * N_STATE, N_STATE))
        self.mlp_ln = nn.LayerNorm(N_STATE)

    def forward(self, x, self_k_cache, self_v_cache, cross_k, cross_v, mask):
        self_attn_x, self_k_cache_updated, self_v_cache_updated = self.attn(self.attn_ln(x), self_k_cache, self_v_cache, mask=mask)
        x = x + self_attn_x
        q = self.cross_attn.query(self.cross_attn_ln(x))
        wv, _ = self.cross_attn.qkv_attention(q, cross_k, cross_v)
        x = x + self.cross_attn.out(wv)
        x = x + self.mlp(self.mlp_ln(x))
        return x, self_k_cache_updated, self_v_cache_updated


class TextDecoderTensorCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.token_embedding = nn.Embedding(N_VOCAB, N_STATE)
        self.positional_embedding = nn.Parameter(torch.randn(N_CTX, N_STATE))
        self.blocks = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.ln = nn.LayerNorm(N_STATE)
        mask = torch.empty(N_CTX, N_CTX).fill_(-float("inf")).triu_(1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, tokens, n_layer_self_k_cache, n_layer_self_v_cache, n_layer_cross_k, n_layer_cross_v, offset):
        x = self.token_embedding(tokens) + self.positional_embedding[offset[0] : offset[0] + tokens.shape[-1]]
        x = x.to(n_layer_cross_k[0].dtype)
        i = 0
        for block in self.blocks:
            self_k_cache = n_layer_self_k_cache[i, :, : offset[0] + tokens.shape[-1], :]
            self_v_cache = n_layer_self_v_cache[i, :, : offset[0] + tokens.shape[-1], :]
            x, self_k_cache, self_v_cache = block(x, self_k_cache=self_k_cache, self_v_cache=self_v_cache,
                                                  cross_k=n_layer_cross_k[i], cross_v=n_layer_cross_v[i], mask=self.mask)
            n_layer_self_k_cache[i, :, : offset[0] + tokens.shape[-1], :] = self_k_cache
            n_layer_self_v_cache[i, :, : offset[0] + tokens.shape[-1], :] = self_v_cache
            i += 1
        x = self.ln(x)
        logits = torch.matmul(self.token_embedding.weight.to(x.dtype), x.permute(0, 2, 1)).permute(0, 2, 1).float()
        return logits, n_layer_self_k_cache, n_layer_self_v_cache


def make_model():
    return TextDecoderTensorCache().eval()


def _inputs(n_audio, n_tokens, offset):
    return (torch.randint(0, N_VOCAB, (n_audio, n_tokens)),
            torch.zeros(N_LAYER, n_audio, N_CTX, N_STATE), torch.zeros(N_LAYER, n_audio, N_CTX, N_STATE),
            torch.randn(N_LAYER, n_audio, N_AUDIO_CTX, N_STATE), torch.randn(N_LAYER, n_audio, N_AUDIO_CTX, N_STATE),
            torch.tensor([offset], dtype=torch.int64))


def example_inputs():
    return _inputs(1, 1, 3)


def other_inputs():
    return [_inputs(2, 3, 0), _inputs(3, 1, 7)]


def probe_inputs():
    return other_inputs()
