"""ControlNet (lllyasviel/ControlNet, ldm openaimodel) control branch as configured in cldm_v15.yaml with
`use_checkpoint: True`: every ResBlock and BasicTransformerBlock calls ldm's `checkpoint(self._forward, ...,
self.parameters(), flag)`, which with the flag set routes through `CheckpointFunction.apply(func, len(inputs),
*args)` (a torch.autograd.Function taking the bound `_forward` and the block's parameters). The ailia port
(axinc-ai/ControlNet `onnx-export` branch) had to force `flag = False if onnx_export else flag` in `checkpoint`
before `torch.onnx.export` of the control model (x, hint, timesteps, context; dynamic n/h/w) would go through.
(Tiny config: model_channels 32, one ResBlock + SpatialTransformer level, einops rearrange written as
reshape/permute.)

Source: https://github.com/axinc-ai/ControlNet/commit/9560809aafef91668b8867abb47d1d266d8b27aa
"""
import math

import torch
import torch as th
from torch import nn
import torch.nn.functional as F

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {
    "x": {0: "n", 2: "h", 3: "w"},
    "hint": {0: "n", 2: "h0", 3: "w0"},
    "timesteps": {0: "n"},
    "context": {0: "n"},
}
BLIND = "domains-71"


def checkpoint(func, inputs, params, flag):
    """
    Evaluate a function without caching intermediate activations, allowing for
    reduced memory at the expense of extra compute in the backward pass.
    """
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
        ctx.gpu_autocast_kwargs = {"enabled": torch.is_autocast_enabled(),
                                   "dtype": torch.get_autocast_gpu_dtype(),
                                   "cache_enabled": torch.is_autocast_cache_enabled()}
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
            output_tensors,
            ctx.input_tensors + ctx.input_params,
            output_grads,
            allow_unused=True,
        )
        del ctx.input_tensors
        del ctx.input_params
        del output_tensors
        return (None, None) + input_grads


def timestep_embedding(timesteps, dim, max_period=10000, repeat_only=False):
    half = dim // 2
    freqs = torch.exp(
        -math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half
    ).to(device=timesteps.device)
    args = timesteps[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        embedding = torch.cat([embedding, torch.zeros_like(embedding[:, :1])], dim=-1)
    return embedding


def zero_module(module):
    for p in module.parameters():
        p.detach().zero_()
    return module


def normalization(channels):
    return nn.GroupNorm(8, channels)


class TimestepBlock(nn.Module):
    pass


class TimestepEmbedSequential(nn.Sequential, TimestepBlock):
    def forward(self, x, emb, context=None):
        for layer in self:
            if isinstance(layer, TimestepBlock):
                x = layer(x, emb)
            elif isinstance(layer, SpatialTransformer):
                x = layer(x, context)
            else:
                x = layer(x)
        return x


class ResBlock(TimestepBlock):
    def __init__(self, channels, emb_channels, dropout, out_channels=None, use_checkpoint=False):
        super().__init__()
        self.channels = channels
        self.out_channels = out_channels or channels
        self.use_checkpoint = use_checkpoint
        self.in_layers = nn.Sequential(normalization(channels), nn.SiLU(), nn.Conv2d(channels, self.out_channels, 3, padding=1))
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(emb_channels, self.out_channels))
        self.out_layers = nn.Sequential(
            normalization(self.out_channels), nn.SiLU(), nn.Dropout(p=dropout),
            nn.Conv2d(self.out_channels, self.out_channels, 3, padding=1),
        )
        self.skip_connection = nn.Identity()

    def forward(self, x, emb):
        return checkpoint(
            self._forward, (x, emb), self.parameters(), self.use_checkpoint
        )

    def _forward(self, x, emb):
        h = self.in_layers(x)
        emb_out = self.emb_layers(emb).type(h.dtype)
        while len(emb_out.shape) < len(h.shape):
            emb_out = emb_out[..., None]
        h = h + emb_out
        h = self.out_layers(h)
        return self.skip_connection(x) + h


class CrossAttention(nn.Module):
    def __init__(self, query_dim, context_dim=None, heads=2, dim_head=16):
        super().__init__()
        inner_dim = dim_head * heads
        context_dim = context_dim or query_dim
        self.scale = dim_head ** -0.5
        self.heads = heads
        self.to_q = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_k = nn.Linear(context_dim, inner_dim, bias=False)
        self.to_v = nn.Linear(context_dim, inner_dim, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner_dim, query_dim), nn.Dropout(0.0))

    def forward(self, x, context=None):
        h = self.heads
        q = self.to_q(x)
        context = x if context is None else context
        k = self.to_k(context)
        v = self.to_v(context)
        # rearrange(t, 'b n (h d) -> (b h) n d', h=h)
        q, k, v = map(lambda t: t.reshape(t.shape[0], t.shape[1], h, -1).permute(0, 2, 1, 3).reshape(-1, t.shape[1], t.shape[2] // h), (q, k, v))
        sim = torch.einsum('b i d, b j d -> b i j', q, k) * self.scale
        sim = sim.softmax(dim=-1)
        out = torch.einsum('b i j, b j d -> b i d', sim, v)
        # rearrange(out, '(b h) n d -> b n (h d)', h=h)
        out = out.reshape(-1, h, out.shape[1], out.shape[2]).permute(0, 2, 1, 3).reshape(-1, out.shape[1], h * out.shape[2])
        return self.to_out(out)


class BasicTransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, d_head, context_dim=None, checkpoint=True):
        super().__init__()
        self.attn1 = CrossAttention(query_dim=dim, heads=n_heads, dim_head=d_head)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))
        self.attn2 = CrossAttention(query_dim=dim, context_dim=context_dim, heads=n_heads, dim_head=d_head)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.norm3 = nn.LayerNorm(dim)
        self.checkpoint = checkpoint

    def forward(self, x, context=None):
        return checkpoint(self._forward, (x, context), self.parameters(), self.checkpoint)

    def _forward(self, x, context=None):
        x = self.attn1(self.norm1(x)) + x
        x = self.attn2(self.norm2(x), context=context) + x
        x = self.ff(self.norm3(x)) + x
        return x


class SpatialTransformer(nn.Module):
    def __init__(self, in_channels, n_heads, d_head, context_dim=None, use_checkpoint=True):
        super().__init__()
        inner_dim = n_heads * d_head
        self.norm = normalization(in_channels)
        self.proj_in = nn.Linear(in_channels, inner_dim)
        self.transformer_blocks = nn.ModuleList(
            [BasicTransformerBlock(inner_dim, n_heads, d_head, context_dim=context_dim, checkpoint=use_checkpoint)])
        self.proj_out = zero_module(nn.Linear(in_channels, inner_dim))

    def forward(self, x, context=None):
        b, c, h, w = x.shape
        x_in = x
        x = self.norm(x)
        x = x.permute(0, 2, 3, 1).reshape(b, h * w, c)  # rearrange(x, 'b c h w -> b (h w) c')
        x = self.proj_in(x)
        for i, block in enumerate(self.transformer_blocks):
            x = block(x, context=context)
        x = self.proj_out(x)
        x = x.reshape(b, h, w, c).permute(0, 3, 1, 2)  # rearrange(x, 'b (h w) c -> b c h w', h=h, w=w)
        return x + x_in


class ControlNet(nn.Module):
    def __init__(self, in_channels=4, hint_channels=3, model_channels=32, context_dim=24,
                 num_heads=2, use_checkpoint=True):
        super().__init__()
        self.model_channels = model_channels
        time_embed_dim = model_channels * 4
        self.time_embed = nn.Sequential(
            nn.Linear(model_channels, time_embed_dim), nn.SiLU(), nn.Linear(time_embed_dim, time_embed_dim))
        self.input_blocks = nn.ModuleList([
            TimestepEmbedSequential(nn.Conv2d(in_channels, model_channels, 3, padding=1)),
            TimestepEmbedSequential(
                ResBlock(model_channels, time_embed_dim, 0.0, use_checkpoint=use_checkpoint),
                SpatialTransformer(model_channels, num_heads, model_channels // num_heads, context_dim=context_dim,
                                   use_checkpoint=use_checkpoint)),
        ])
        self.zero_convs = nn.ModuleList([self.make_zero_conv(model_channels), self.make_zero_conv(model_channels)])
        self.input_hint_block = TimestepEmbedSequential(
            nn.Conv2d(hint_channels, 16, 3, padding=1), nn.SiLU(),
            nn.Conv2d(16, 16, 3, padding=1, stride=2), nn.SiLU(),
            zero_module(nn.Conv2d(16, model_channels, 3, padding=1)))
        self.middle_block = TimestepEmbedSequential(
            ResBlock(model_channels, time_embed_dim, 0.0, use_checkpoint=use_checkpoint))
        self.middle_block_out = self.make_zero_conv(model_channels)

    def make_zero_conv(self, channels):
        return TimestepEmbedSequential(zero_module(nn.Conv2d(channels, channels, 1, padding=0)))

    def forward(self, x, hint, timesteps, context, **kwargs):
        t_emb = timestep_embedding(timesteps, self.model_channels, repeat_only=False)
        emb = self.time_embed(t_emb)

        guided_hint = self.input_hint_block(hint, emb, context)

        outs = []

        h = x.type(torch.float32)
        for module, zero_conv in zip(self.input_blocks, self.zero_convs):
            if guided_hint is not None:
                h = module(h, emb, context)
                h += guided_hint
                guided_hint = None
            else:
                h = module(h, emb, context)
            outs.append(zero_conv(h, emb, context))

        h = self.middle_block(h, emb, context)
        outs.append(self.middle_block_out(h, emb, context))

        return outs


def make_model():
    model = ControlNet().eval()
    with torch.no_grad():  # zero convs are trained away from zero in a real checkpoint
        for p in model.parameters():
            if p.abs().sum() == 0:
                p.normal_(0, 0.05)
    return model


def example_inputs():
    return (torch.randn(2, 4, 8, 8), torch.rand(2, 3, 16, 16), torch.tensor([10.0, 500.0]), torch.randn(2, 7, 24))


def other_inputs():
    return [
        (torch.randn(3, 4, 12, 10), torch.rand(3, 3, 24, 20), torch.tensor([1.0, 250.0, 999.0]), torch.randn(3, 7, 24)),
        (torch.randn(1, 4, 6, 14), torch.rand(1, 3, 12, 28), torch.tensor([42.0]), torch.randn(1, 7, 24)),
    ]


def probe_inputs():
    return other_inputs()
