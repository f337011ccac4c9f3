"""CompVis latent-diffusion (Stable Diffusion v1) UNet cross-attention: `BasicTransformerBlock.forward` always goes
through `checkpoint(self._forward, (x, context), self.parameters(), self.checkpoint)` and `checkpoint=True` is the
block's default, so inference runs `CheckpointFunction.apply(...)` (a `torch.autograd.Function` that calls the block
under `torch.no_grad()`). The sdui "ONNX export tests" commit has to set `use_checkpoint=False` and walk the model to
set every `BasicTransformerBlock.checkpoint = False` before `torch.onnx.export` of the UNet works.
(einops `rearrange` calls are written out with reshape/permute; small SpatialTransformer stands in for the UNet.)

Source: https://github.com/harskish/sdui/commit/8134a5ee473672f2a1e99e65529bea995dac3ea9
"""
import torch
from torch import nn, einsum
import torch.nn.functional as F

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "context": {0: "batch", 1: "tokens"}}
BLIND = "domains-40"


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

        with torch.no_grad():
            output_tensors = ctx.run_function(*ctx.input_tensors)
        return output_tensors

    @staticmethod
    def backward(ctx, *output_grads):
        ctx.input_tensors = [x.detach().requires_grad_(True) for x in ctx.input_tensors]
        with torch.enable_grad():
            shallow_copies = [x.view_as(x) for x in ctx.input_tensors]
            output_tensors = ctx.run_function(*shallow_copies)
        input_grads = torch.autograd.grad(output_tensors, ctx.input_tensors + ctx.input_params, output_grads,
                                          allow_unused=True)
        del ctx.input_tensors
        del ctx.input_params
        del output_tensors
        return (None, None) + input_grads


class GEGLU(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2)

    def forward(self, x):
        x, gate = self.proj(x).chunk(2, dim=-1)
        return x * F.gelu(gate)


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, glu=True, dropout=0.):
        super().__init__()
        inner_dim = int(dim * mult)
        project_in = GEGLU(dim, inner_dim) if glu else nn.Sequential(nn.Linear(dim, inner_dim), nn.GELU())
        self.net = nn.Sequential(project_in, nn.Dropout(dropout), nn.Linear(inner_dim, dim))

    def forward(self, x):
        return self.net(x)


class CrossAttention(nn.Module):
    def __init__(self, query_dim, context_dim=None, heads=8, dim_head=64, dropout=0.):
        super().__init__()
        inner_dim = dim_head * heads
        context_dim = query_dim if context_dim is None else context_dim
        self.scale = dim_head ** -0.5
        self.heads = heads
        self.to_q = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_k = nn.Linear(context_dim, inner_dim, bias=False)
        self.to_v = nn.Linear(context_dim, inner_dim, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner_dim, query_dim), nn.Dropout(dropout))

    def forward(self, x, context=None, mask=None):
        h = self.heads
        q = self.to_q(x)
        context = x if context is None else context
        k = self.to_k(context)
        v = self.to_v(context)

        # rearrange(t, 'b n (h d) -> (b h) n d', h=h)
        q, k, v = map(lambda t: t.reshape(t.shape[0], t.shape[1], h, -1).permute(0, 2, 1, 3)
                      .reshape(t.shape[0] * h, t.shape[1], -1), (q, k, v))
        sim = einsum('b i d, b j d -> b i j', q, k) * self.scale
        attn = sim.softmax(dim=-1)
        out = einsum('b i j, b j d -> b i d', attn, v)
        # rearrange(out, '(b h) n d -> b n (h d)', h=h)
        out = out.reshape(-1, h, out.shape[1], out.shape[2]).permute(0, 2, 1, 3).reshape(-1, out.shape[1], h * out.shape[2])
        return self.to_out(out)


class BasicTransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, d_head, dropout=0., context_dim=None, gated_ff=True, checkpoint=True):
        super().__init__()
        self.attn1 = CrossAttention(query_dim=dim, heads=n_heads, dim_head=d_head, dropout=dropout)  # is a self-attention
        self.ff = FeedForward(dim, dropout=dropout, glu=gated_ff)
        self.attn2 = CrossAttention(query_dim=dim, context_dim=context_dim,
                                    heads=n_heads, dim_head=d_head, dropout=dropout)  # is self-attn if context is none
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
    def __init__(self, in_channels, n_heads, d_head, depth=1, dropout=0., context_dim=None):
        super().__init__()
        self.in_channels = in_channels
        inner_dim = n_heads * d_head
        self.norm = nn.GroupNorm(num_groups=8, num_channels=in_channels, eps=1e-6, affine=True)
        self.proj_in = nn.Conv2d(in_channels, inner_dim, kernel_size=1, stride=1, padding=0)
        self.transformer_blocks = nn.ModuleList(
            [BasicTransformerBlock(inner_dim, n_heads, d_head, dropout=dropout, context_dim=context_dim)
             for d in range(depth)]
        )
        self.proj_out = nn.Conv2d(inner_dim, in_channels, kernel_size=1, stride=1, padding=0)

    def forward(self, x, context=None):
        # note: if no context is given, cross-attention defaults to self-attention
        b, c, h, w = x.shape
        x_in = x
        x = self.norm(x)
        x = self.proj_in(x)
        x = x.flatten(2).transpose(1, 2)  # rearrange(x, 'b c h w -> b (h w) c')
        for block in self.transformer_blocks:
            x = block(x, context=context)
        x = x.transpose(1, 2).reshape(b, -1, h, w)  # rearrange(x, 'b (h w) c -> b c h w', h=h, w=w)
        x = self.proj_out(x)
        return x + x_in


class TinyLDMUNet(nn.Module):
    def __init__(self, context_dim=32):
        super().__init__()
        self.conv_in = nn.Conv2d(4, 32, 3, padding=1)
        self.attn = SpatialTransformer(32, n_heads=4, d_head=8, depth=1, context_dim=context_dim)
        self.conv_out = nn.Conv2d(32, 4, 3, padding=1)

    def forward(self, x, context):
        h = self.conv_in(x)
        h = self.attn(h, context=context)
        return self.conv_out(h)


def make_model():
    return TinyLDMUNet().eval()


def example_inputs():
    return (torch.randn(2, 4, 8, 8), torch.randn(2, 7, 32))


def other_inputs():
    return [(torch.randn(3, 4, 6, 10), torch.randn(3, 5, 32)), (torch.randn(1, 4, 12, 8), torch.randn(1, 9, 32))]


def probe_inputs():
    return other_inputs()
