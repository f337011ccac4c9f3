"""joliGEN `unet_mha` generator (guided-diffusion style UNet used as GAN / diffusion generator): every
`AttentionBlock.forward` calls `checkpoint(self._forward, (x,), self.parameters(), True)`, i.e. always goes
through the custom `CheckpointFunction` (torch.autograd.Function) even at inference; the ONNX export of the
generator had to be excluded for unet_mha until the commit passed `self.use_checkpoint` instead of `True`.

Source: https://github.com/jolibrain/joliGEN/commit/b4c3cfde314f1aef5b59e4d4c4dfec7e8f82ac2b
"""
import math

import torch
import torch.nn as nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-50"


def gamma_embedding(gammas, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(
        -math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half
    ).to(device=gammas.device)
    args = gammas[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    return embedding


class GroupNorm32(nn.GroupNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


def normalization(channels):
    return GroupNorm32(8, channels)


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
        input_grads = torch.autograd.grad(
            output_tensors, ctx.input_tensors + ctx.input_params, output_grads, allow_unused=True
        )
        del ctx.input_tensors
        del ctx.input_params
        del output_tensors
        return (None, None) + input_grads


class ResBlock(nn.Module):
    def __init__(self, channels, emb_channels, use_checkpoint=False):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.in_layers = nn.Sequential(normalization(channels), nn.SiLU(), nn.Conv2d(channels, channels, 3, padding=1))
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(emb_channels, channels))
        self.out_layers = nn.Sequential(normalization(channels), nn.SiLU(), nn.Conv2d(channels, channels, 3, padding=1))

    def forward(self, x, emb):
        return checkpoint(self._forward, (x, emb), self.parameters(), self.use_checkpoint)

    def _forward(self, x, emb):
        h = self.in_layers(x)
        emb_out = self.emb_layers(emb).type(h.dtype)
        while len(emb_out.shape) < len(h.shape):
            emb_out = emb_out.unsqueeze(-1)
        h = self.out_layers(h + emb_out)
        return x + h


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


class UNet(nn.Module):
    def __init__(self, in_channel=3, inner_channel=16, out_channel=3):
        super().__init__()
        self.inner_channel = inner_channel
        emb_dim = inner_channel * 4
        self.cond_embed = nn.Sequential(nn.Linear(inner_channel, emb_dim), nn.SiLU(), nn.Linear(emb_dim, emb_dim))
        self.conv_in = nn.Conv2d(in_channel, inner_channel, 3, padding=1)
        self.down = nn.Conv2d(inner_channel, inner_channel, 3, stride=2, padding=1)
        self.res1 = ResBlock(inner_channel, emb_dim)
        self.attn = AttentionBlock(inner_channel, num_heads=2)
        self.res2 = ResBlock(inner_channel, emb_dim)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.out = nn.Sequential(normalization(inner_channel * 2), nn.SiLU(),
                                 nn.Conv2d(inner_channel * 2, out_channel, 3, padding=1))

    def forward(self, input, gammas=None):
        if gammas is None:
            b = input.shape[0]
            gammas = torch.ones((b,)).to(input.device)
        gammas = gammas.view(-1)
        emb = self.cond_embed(gamma_embedding(gammas, self.inner_channel))

        h0 = self.conv_in(input.type(torch.float32))
        h = self.down(h0)
        h = self.res1(h, emb)
        h = self.attn(h)
        h = self.res2(h, emb)
        h = torch.cat([self.up(h), h0], dim=1)
        return self.out(h).type(input.dtype)


def make_model():
    return UNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 24, 40),), (torch.randn(1, 3, 48, 16),)]


def probe_inputs():
    return other_inputs()
