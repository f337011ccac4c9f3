"""NeMo FastPitch inference: predicted durations go through `regulate_len` (`max_len = dec_lens.max()`,
`torch.arange(max_len)`), then the decoder builds its padding mask with `mask_from_lens`, which does
`max_len = int(lens.max().item())`, so the mel length is a Python int taken from predicted durations; the PR
"Fastpitch export" changed this (and more) to make FastPitch exportable to ONNX.

Source: https://github.com/NVIDIA/NeMo/pull/2300
"""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"text": {0: "batch", 1: "tokens"}}
BLIND = "domains-45"


def mask_from_lens(lens, max_len: Optional[int] = None):
    if max_len is None:
        max_len = int(lens.max().item())
    ids = torch.arange(0, max_len, device=lens.device, dtype=lens.dtype)
    mask = torch.lt(ids, lens.unsqueeze(1))
    return mask


def regulate_len(durations, enc_out, pace=1.0, mel_max_len=None):
    """If target=None, then predicted durations are applied"""
    dtype = enc_out.dtype
    reps = durations.float() / pace
    reps = (reps + 0.5).long()
    dec_lens = reps.sum(dim=1)

    max_len = dec_lens.max()
    reps_cumsum = torch.cumsum(F.pad(reps, (1, 0, 0, 0), value=0.0), dim=1)[:, None, :]
    reps_cumsum = reps_cumsum.to(dtype)

    range_ = torch.arange(max_len).to(enc_out.device)[None, :, None]
    mult = (reps_cumsum[:, :, :-1] <= range_) & (reps_cumsum[:, :, 1:] > range_)
    mult = mult.to(dtype)
    enc_rep = torch.matmul(mult, enc_out)

    if mel_max_len:
        enc_rep = enc_rep[:, :mel_max_len]
        dec_lens = torch.clamp_max(dec_lens, mel_max_len)
    return enc_rep, dec_lens


class PositionalEmbedding(nn.Module):
    def __init__(self, demb):
        super(PositionalEmbedding, self).__init__()
        self.demb = demb
        inv_freq = 1 / (10000 ** (torch.arange(0.0, demb, 2.0) / demb))
        self.register_buffer('inv_freq', inv_freq)

    def forward(self, pos_seq, bsz=None):
        sinusoid_inp = torch.ger(pos_seq, self.inv_freq)
        pos_emb = torch.cat([sinusoid_inp.sin(), sinusoid_inp.cos()], dim=1)
        return pos_emb[None, :, :]


class MultiHeadAttn(nn.Module):
    def __init__(self, n_head, d_model, d_head):
        super(MultiHeadAttn, self).__init__()
        self.n_head = n_head
        self.d_head = d_head
        self.scale = 1 / (d_head ** 0.5)
        self.qkv_net = nn.Linear(d_model, 3 * n_head * d_head)
        self.o_net = nn.Linear(n_head * d_head, d_model, bias=False)
        self.layer_norm = nn.LayerNorm(d_model)

    def forward(self, inp, attn_mask=None):
        residual = inp
        n_head, d_head = self.n_head, self.d_head

        head_q, head_k, head_v = torch.chunk(self.qkv_net(inp), 3, dim=-1)
        head_q = head_q.view(inp.size(0), inp.size(1), n_head, d_head)
        head_k = head_k.view(inp.size(0), inp.size(1), n_head, d_head)
        head_v = head_v.view(inp.size(0), inp.size(1), n_head, d_head)

        q = head_q.permute(0, 2, 1, 3).reshape(-1, inp.size(1), d_head)
        k = head_k.permute(0, 2, 1, 3).reshape(-1, inp.size(1), d_head)
        v = head_v.permute(0, 2, 1, 3).reshape(-1, inp.size(1), d_head)

        attn_score = torch.bmm(q, k.transpose(1, 2))
        attn_score.mul_(self.scale)

        if attn_mask is not None:
            attn_mask = attn_mask.unsqueeze(1)
            attn_mask = attn_mask.repeat(n_head, attn_mask.size(2), 1)
            attn_score.masked_fill_(attn_mask, -float('inf'))

        attn_prob = F.softmax(attn_score, dim=2)
        attn_vec = torch.bmm(attn_prob, v)

        attn_vec = attn_vec.view(n_head, inp.size(0), inp.size(1), d_head)
        attn_vec = attn_vec.permute(1, 2, 0, 3).contiguous().view(inp.size(0), inp.size(1), n_head * d_head)
        return self.layer_norm(residual + self.o_net(attn_vec))


class FFTransformerDecoder(nn.Module):
    def __init__(self, n_head=2, d_model=32, d_head=16):
        super(FFTransformerDecoder, self).__init__()
        self.pos_emb = PositionalEmbedding(d_model)
        self.dec_attn = MultiHeadAttn(n_head, d_model, d_head)

    def forward(self, input, seq_lens, conditioning=0):
        return self._forward(input, mask_from_lens(seq_lens).unsqueeze(2), conditioning)

    def _forward(self, inp, mask, conditioning):
        pos_seq = torch.arange(inp.size(1), device=inp.device, dtype=inp.dtype)
        pos_emb = self.pos_emb(pos_seq) * mask
        out = inp + pos_emb + conditioning
        out = self.dec_attn(out, attn_mask=~mask.squeeze(2))
        out *= mask
        return out, mask


class FastPitchInfer(nn.Module):
    def __init__(self, n_symbols=40, d_model=32, n_mel_channels=20, max_token_duration=75):
        super().__init__()
        self.word_emb = nn.Embedding(n_symbols, d_model, padding_idx=0)
        self.enc_conv = nn.Conv1d(d_model, d_model, 3, padding=1)
        self.duration_predictor = nn.Sequential(nn.Conv1d(d_model, d_model, 3, padding=1), nn.ReLU())
        self.dur_fc = nn.Linear(d_model, 1)
        self.max_token_duration = max_token_duration
        self.pace = 1.0
        self.decoder = FFTransformerDecoder(d_model=d_model)
        self.proj = nn.Linear(d_model, n_mel_channels, bias=True)

    def forward(self, text):
        pace = self.pace
        enc_mask = (text != 0).unsqueeze(2)
        enc_out = self.enc_conv(self.word_emb(text).transpose(1, 2)).transpose(1, 2) * enc_mask
        log_durs_predicted = self.dur_fc(self.duration_predictor(enc_out.transpose(1, 2)).transpose(1, 2))
        log_durs_predicted = (log_durs_predicted * enc_mask).squeeze(-1)
        durs_predicted = torch.clamp(torch.exp(log_durs_predicted) - 1, 0, self.max_token_duration)

        len_regulated, dec_lens = regulate_len(durs_predicted, enc_out, pace)

        # Output FFT
        dec_out, _ = self.decoder(input=len_regulated, seq_lens=dec_lens)
        spect = self.proj(dec_out)
        return spect, dec_lens


def make_model():
    model = FastPitchInfer().eval()
    with torch.no_grad():
        model.dur_fc.bias.fill_(1.2)  # a trained predictor gives a few frames per token
    return model


def example_inputs():
    return (torch.randint(1, 40, (2, 12)),)


def other_inputs():
    return [(torch.randint(1, 40, (3, 20)),), (torch.randint(1, 40, (1, 7)),)]


def probe_inputs():
    return other_inputs()
