"""audiolm-pytorch SoundStream: the raw audio is curtailed to a multiple of the encoder strides
(`curtail_to_multiple`), encoded by strided convs, then a local-attention transformer pads the frames to a
multiple of the window with `pad_to_multiple` (`m = seqlen / multiple; if m.is_integer(): ...`);
`torch.onnx.export(soundstream, audio, ...)` fails (the maintainer: "`m` should never be a tensor"; the
error goes away with `use_local_attn=False`).

Source: https://github.com/lucidrains/audiolm-pytorch/issues/254
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "domains-6"


def round_down_nearest_multiple(num, divisor):
    return num // divisor * divisor


def curtail_to_multiple(t, mult, from_left=False):
    data_len = t.shape[-1]
    rounded_seq_len = round_down_nearest_multiple(data_len, mult)
    seq_slice = slice(None, rounded_seq_len) if not from_left else slice(-rounded_seq_len, None)
    return t[..., seq_slice]


def pad_to_multiple(tensor, multiple, dim=-1, value=0):
    seqlen = tensor.shape[dim]
    m = seqlen / multiple
    if m.is_integer():
        return False, tensor
    remainder = math.ceil(m) * multiple - seqlen
    pad_offset = (0,) * (-1 - dim) * 2
    return True, F.pad(tensor, (*pad_offset, 0, remainder), value=value)


def look_around(x, backward=1, forward=0, pad_value=-1, dim=2):
    t = x.shape[1]
    dims = (len(x.shape) - dim) * (0, 0)
    padded_x = F.pad(x, (*dims, backward, forward), value=pad_value)
    tensors = [padded_x[:, ind:(ind + t), ...] for ind in range(forward + backward + 1)]
    return torch.cat(tensors, dim=dim)


class LocalMHA(nn.Module):
    def __init__(self, dim, window_size, heads=2, dim_head=16):
        super().__init__()
        self.heads, self.window_size, self.scale = heads, window_size, dim_head ** -0.5
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, heads * dim_head * 3, bias=False)
        self.to_out = nn.Linear(heads * dim_head, dim, bias=False)

    def forward(self, x):
        x = self.norm(x)
        b, n, _ = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: t.reshape(b, n, self.heads, -1).transpose(1, 2).flatten(0, 1), (q, k, v))

        # autopad
        orig_seq_len = q.shape[1]
        (needed_pad, q), (_, k), (_, v) = map(lambda t: pad_to_multiple(t, self.window_size, dim=-2), (q, k, v))

        bh, n, d = q.shape
        windows = n // self.window_size
        seq = torch.arange(n, device=q.device)
        b_t = seq.reshape(1, windows, self.window_size)
        bq, bk, bv = map(lambda t: t.reshape(bh, windows, self.window_size, d), (q, k, v))
        bq = bq * self.scale
        bk, bv = look_around(bk), look_around(bv)
        bq_k = look_around(b_t)
        sim = bq @ bk.transpose(-1, -2)
        sim = sim.masked_fill((bq_k == -1)[:, :, None, :], -torch.finfo(sim.dtype).max)
        out = sim.softmax(dim=-1) @ bv
        out = out.reshape(bh, n, d)
        out = out[:, :orig_seq_len, :]
        out = out.reshape(b, self.heads, orig_seq_len, d).transpose(1, 2).reshape(b, orig_seq_len, -1)
        return self.to_out(out)


class SoundStream(nn.Module):
    def __init__(self, channels=16, strides=(2, 4), attn_window_size=8):
        super().__init__()
        self.seq_len_multiple_of = math.prod(strides)
        layers, c_in = [], 1
        for s in strides:
            layers += [nn.Conv1d(c_in, channels, 2 * s, stride=s, padding=s // 2), nn.ELU()]
            c_in = channels
        self.encoder = nn.Sequential(*layers)
        self.encoder_attn = LocalMHA(channels, attn_window_size)

    def forward(self, x):
        x = curtail_to_multiple(x, self.seq_len_multiple_of)
        x = x.unsqueeze(1)
        x = self.encoder(x)
        x = x.transpose(1, 2)
        x = self.encoder_attn(x) + x
        return x


def make_model():
    return SoundStream().eval()


def example_inputs():
    return (torch.randn(1, 203),)


def other_inputs():
    return [(torch.randn(2, 517),), (torch.randn(3, 130),)]


def probe_inputs():
    return other_inputs()
