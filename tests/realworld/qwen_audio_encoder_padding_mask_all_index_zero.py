"""Qwen-Audio-Chat audio encoder (Whisper-style `AudioEncoder`, exported by ailia-models as Qwen-Audio-Chat_encode.onnx
with `(input_audios, padding_mask, input_audio_lengths)`): the frame padding mask is reduced with
`padding_mask_ = padding_mask.all(1)` and padded frames are zeroed with the boolean index write `x[padding_mask_] = 0`
on the (B, T, D) hidden states; the export only worked after that write was replaced by a `torch.where` on a mask
expanded to x's shape.

Source: https://github.com/ailia-ai/ailia-models/issues/1609
"""
import torch
import torch.nn.functional as F
from torch import nn, Tensor

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {
    "x": {0: "batch", 2: "mel_frames"},
    "padding_mask": {0: "batch", 1: "frames"},
    "audio_lengths": {0: "batch"},
}
BLIND = "domains-11"


class MultiHeadAttention(nn.Module):
    def __init__(self, n_state: int, n_head: int):
        super().__init__()
        self.n_head = n_head
        self.query = nn.Linear(n_state, n_state)
        self.key = nn.Linear(n_state, n_state, bias=False)
        self.value = nn.Linear(n_state, n_state)
        self.out = nn.Linear(n_state, n_state)

    def forward(self, x: Tensor, mask=None):
        q, k, v = self.query(x), self.key(x), self.value(x)
        n_batch, n_ctx, n_state = q.shape
        scale = (n_state // self.n_head) ** -0.25
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3) * scale
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 3, 1) * scale
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        qk = q @ k
        if mask is not None:
            qk = qk + mask
        w = F.softmax(qk.float(), dim=-1).to(q.dtype)
        return self.out((w @ v).permute(0, 2, 1, 3).flatten(start_dim=2))


class ResidualAttentionBlock(nn.Module):
    def __init__(self, n_state: int, n_head: int):
        super().__init__()
        self.attn = MultiHeadAttention(n_state, n_head)
        self.attn_ln = nn.LayerNorm(n_state)
        self.mlp = nn.Sequential(nn.Linear(n_state, n_state * 4), nn.GELU(), nn.Linear(n_state * 4, n_state))
        self.mlp_ln = nn.LayerNorm(n_state)

    def forward(self, x: Tensor, mask=None):
        x = x + self.attn(self.attn_ln(x), mask=mask)
        x = x + self.mlp(self.mlp_ln(x))
        return x


class AudioEncoder(nn.Module):
    def __init__(self, n_mels=16, n_state=32, n_head=4, n_layer=2, output_dim=24):
        super().__init__()
        self.n_head = n_head
        self.conv1 = nn.Conv1d(n_mels, n_state, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(n_state, n_state, kernel_size=3, stride=2, padding=1)
        self.blocks = nn.ModuleList([ResidualAttentionBlock(n_state, n_head) for _ in range(n_layer)])
        self.ln_post = nn.LayerNorm(n_state)
        self.avg_pooler = nn.AvgPool1d(2, stride=2)
        self.proj = torch.nn.Linear(n_state, output_dim)

    def forward(self, x: Tensor, padding_mask: Tensor = None, audio_lengths: Tensor = None):
        x = x.to(dtype=self.conv1.weight.dtype, device=self.conv1.weight.device)
        if audio_lengths is not None:
            input_mel_len = audio_lengths[:, 0] * 2
            max_mel_len_in_batch = input_mel_len.max()
            x = x[:, :, :max_mel_len_in_batch]
        x = F.gelu(self.conv1(x))
        x = F.gelu(self.conv2(x))
        x = x.permute(0, 2, 1)  # B, L, D
        bsz = x.size(0)
        if padding_mask is not None:
            padding_mask = padding_mask.to(dtype=self.conv1.weight.dtype, device=self.conv1.weight.device)
            batch_src_len = padding_mask.size(1)
            x = x[:, :batch_src_len, :]
            padding_mask = padding_mask.view(bsz, -1, batch_src_len)
            padding_mask_ = padding_mask.all(1)
            x[padding_mask_] = 0
            key_padding_mask = padding_mask_.view(bsz, 1, 1, batch_src_len). \
                expand(-1, self.n_head, -1, -1).reshape(bsz, self.n_head, 1, batch_src_len)
            new_padding_mask = torch.zeros_like(key_padding_mask, dtype=x.dtype)
            padding_mask = new_padding_mask.masked_fill(key_padding_mask, float("-inf"))
        for block in self.blocks:
            x = block(x, mask=padding_mask)
        x = x.permute(0, 2, 1)
        x = self.avg_pooler(x)
        x = x.permute(0, 2, 1)
        x = self.ln_post(x)
        x = self.proj(x)
        return x


def make_model():
    return AudioEncoder().eval()


def _batch(b, frames):
    # input_audio_lengths[:, 0] = encoder frames, [:, 1] = frames after the 2x average pooling
    lens = [frames] + [max(2, frames - 5 * i) for i in range(1, b)]
    x = torch.randn(b, 16, 2 * frames)
    padding_mask = torch.ones(b, frames)
    for index in range(b):
        padding_mask[index, :lens[index]] = 0
    audio_lengths = torch.tensor([[n, n // 2] for n in lens], dtype=torch.int64)
    return x, padding_mask, audio_lengths


def example_inputs():
    return _batch(2, 40)


def other_inputs():
    return [_batch(3, 64), _batch(1, 22)]


def probe_inputs():
    return other_inputs()
