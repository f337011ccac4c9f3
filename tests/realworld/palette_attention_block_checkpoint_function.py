"""Palette (image-to-image diffusion) denoising UNet from guided-diffusion: `AttentionBlock.forward` always
calls `checkpoint(self._forward, (x,), self.parameters(), True)`, i.e. `CheckpointFunction.apply(...)`, a
`torch.autograd.Function` that runs the block under `torch.no_grad()`; exporting the UNet to ONNX fails with
"couldn't export python method" until the checkpoint call is removed.

Source: https://github.com/Janspiry/Palette-Image-to-Image-Diffusion-Models/issues/81
"""
import math

import torch
import torch.nn as nn

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "gammas": {0: "batch"}}
BLIND = "domains-13"


class GroupNorm32(nn.GroupNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


def normalization(channels):
    return GroupNorm32(32, channels)


def checkpoint(func, inputs, params, flag):
    if flag:
        args = tuple(inputs) + tuple(params)
        return CheckpointFunction.apply(func, len(inputs), *args)
    else:
        return func(*inputs)


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, length, *args):
        ctx.run_function = run_function
        ctx.input_tensors = list(args[:length])
        ctx.input_params = list(args[length:])
        with torch.no_grad():
            output_tensors = ctx.run_function(*ctx.input_tensors)
        return output_tensors

    @staticmethod
    def backward(ctx, *output_grads):
        ctx.input_tensors = [x.detach().requires_grad_(True) for x in ctx.input_tensors]
        with torch.enable_grad():
            shallow_copies = [x.view_as(x) for x in ctx.input_tensors]
            output_tensors = ctx.run_function(*shallow_copies)
        input_grads = torch.autograd.grad(output_tensors, ctx.input_tensors + ctx.input_params,
                                          output_grads, allow_unused=True)
        del ctx.input_tensors
        del ctx.input_params
        del output_tensors
        return (None, None) + input_grads


def gamma_embedding(gammas, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(
        -math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half
    ).to(device=gammas.device)
    args = gammas[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    return embedding


class QKVAttentionLegacy(nn.Module):
    def __init__(self, n_heads):
        super().__init__()
        self.n_heads = n_heads

    def forward(self, qkv):
        bs, width, length = qkv.shape
        ch = width // (3 * self.n_heads)
        q, k, v = qkv.reshape(bs * self.n_heads, ch * 3, length).split(ch, dim=1)
        scale = 1 / math.sqrt(math.sqrt(ch))
        weight = torch.einsum("bct,bcs->bts", q * scale, k * scale)
        weight = torch.softmax(weight.float(), dim=-1).type(weight.dtype)
        a = torch.einsum("bts,bcs->bct", weight, v)
        return a.reshape(bs, -1, length)


class AttentionBlock(nn.Module):
    def __init__(self, channels, num_heads=1, use_checkpoint=False):
        super().__init__()
        self.channels = channels
        self.num_heads = num_heads
        self.use_checkpoint = use_checkpoint
        self.norm = normalization(channels)
        self.qkv = nn.Conv1d(channels, channels * 3, 1)
        self.attention = QKVAttentionLegacy(self.num_heads)
        self.proj_out = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        return checkpoint(self._forward, (x,), self.parameters(), True)

    def _forward(self, x):
        b, c, *spatial = x.shape
        x = x.reshape(b, c, -1)
        qkv = self.qkv(self.norm(x))
        h = self.attention(qkv)
        h = self.proj_out(h)
        return (x + h).reshape(b, c, *spatial)


class PaletteUNet(nn.Module):
    def __init__(self, in_channel=6, inner_channel=32, out_channel=3):
        super().__init__()
        self.inner_channel = inner_channel
        cond_embed_dim = inner_channel * 4
        self.cond_embed = nn.Sequential(nn.Linear(inner_channel, cond_embed_dim), nn.SiLU(),
                                        nn.Linear(cond_embed_dim, cond_embed_dim))
        self.inp = nn.Conv2d(in_channel, inner_channel, 3, padding=1)
        self.emb_proj = nn.Linear(cond_embed_dim, inner_channel)
        self.attn = AttentionBlock(inner_channel, use_checkpoint=False)
        self.out = nn.Sequential(normalization(inner_channel), nn.SiLU(),
                                 nn.Conv2d(inner_channel, out_channel, 3, padding=1))

    def forward(self, x, gammas):
        gammas = gammas.view(-1, )
        emb = self.cond_embed(gamma_embedding(gammas, self.inner_channel))
        h = self.inp(x) + self.emb_proj(emb)[..., None, None]
        h = self.attn(h)
        return self.out(h)


def make_model():
    return PaletteUNet().eval()


def example_inputs():
    return (torch.randn(2, 6, 16, 16), torch.rand(2))


def other_inputs():
    return [(torch.randn(3, 6, 24, 20), torch.rand(3)), (torch.randn(1, 6, 8, 12), torch.rand(1))]


def probe_inputs():
    return other_inputs()
