"""ComfyUI's AuraFlow MMDiT (diffusion denoiser): `patchify` pads the latent to a multiple of the patch size with
`F.pad(x, (0, pad_w, 0, pad_h), mode='circular')`, the pads computed from `x.size()`, then `apply_pos_embeds` picks
`max_dim = max(h, w)`, interpolates the positional table only `if max_dim > cur_dim`, and slices it with offsets from
the latent size; ComfyUI's "ONNX tracing fixes" commit had to switch the circular pad to reflect while tracing to
export it. (Double-stream blocks dropped, one single-stream DiT block kept; comfy.ops/optimized_attention replaced
by nn.Linear/LayerNorm and F.scaled_dot_product_attention.)

Source: https://github.com/Comfy-Org/ComfyUI/commit/3b71f84b5051905be8f3311abeb39d725743d15b
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "timestep": {0: "batch"}, "context": {0: "batch"}}
BLIND = "domains-52"


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class SingleAttention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.w1q = nn.Linear(dim, dim, bias=False)
        self.w1k = nn.Linear(dim, dim, bias=False)
        self.w1v = nn.Linear(dim, dim, bias=False)
        self.w1o = nn.Linear(dim, dim, bias=False)
        self.q_norm1 = nn.LayerNorm(self.head_dim, elementwise_affine=False)
        self.k_norm1 = nn.LayerNorm(self.head_dim, elementwise_affine=False)

    def forward(self, c):
        bsz, seqlen1, _ = c.shape
        q, k, v = self.w1q(c), self.w1k(c), self.w1v(c)
        q = q.view(bsz, seqlen1, self.n_heads, self.head_dim)
        k = k.view(bsz, seqlen1, self.n_heads, self.head_dim)
        v = v.view(bsz, seqlen1, self.n_heads, self.head_dim)
        q, k = self.q_norm1(q), self.k_norm1(k)
        output = F.scaled_dot_product_attention(q.permute(0, 2, 1, 3), k.permute(0, 2, 1, 3), v.permute(0, 2, 1, 3))
        output = output.permute(0, 2, 1, 3).reshape(bsz, seqlen1, -1)
        return self.w1o(output)


class DiTBlock(nn.Module):
    # like MMDiTBlock, but it only has X
    def __init__(self, dim, heads=8, global_conddim=1024):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, elementwise_affine=False)
        self.norm2 = nn.LayerNorm(dim, elementwise_affine=False)
        self.modCX = nn.Sequential(nn.SiLU(), nn.Linear(global_conddim, 6 * dim, bias=False))
        self.attn = SingleAttention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim, bias=False), nn.SiLU(), nn.Linear(2 * dim, dim, bias=False))

    def forward(self, cx, global_cond, **kwargs):
        cxres = cx
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = self.modCX(global_cond).chunk(6, dim=1)
        cx = modulate(self.norm1(cx), shift_msa, scale_msa)
        cx = self.attn(cx)
        cx = self.norm2(cxres + gate_msa.unsqueeze(1) * cx)
        mlpout = self.mlp(modulate(cx, shift_mlp, scale_mlp))
        cx = gate_mlp.unsqueeze(1) * mlpout
        return cxres + cx


class TimestepEmbedder(nn.Module):
    def __init__(self, hidden_size, frequency_embedding_size=256):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(frequency_embedding_size, hidden_size), nn.SiLU(),
                                 nn.Linear(hidden_size, hidden_size))
        self.frequency_embedding_size = frequency_embedding_size

    @staticmethod
    def timestep_embedding(t, dim, max_period=10000):
        half = dim // 2
        freqs = 1000 * torch.exp(-math.log(max_period) * torch.arange(start=0, end=half) / half).to(t.device)
        args = t[:, None] * freqs[None]
        return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

    def forward(self, t, dtype):
        t_freq = self.timestep_embedding(t, self.frequency_embedding_size).to(dtype)
        return self.mlp(t_freq)


class MMDiT(nn.Module):
    def __init__(self, in_channels=4, out_channels=4, patch_size=2, dim=64, n_layers=1, n_heads=4,
                 global_conddim=64, cond_seq_dim=32, max_seq=16 * 16):
        super().__init__()
        self.t_embedder = TimestepEmbedder(global_conddim)
        self.cond_seq_linear = nn.Linear(cond_seq_dim, dim, bias=False)
        self.init_x_linear = nn.Linear(patch_size * patch_size * in_channels, dim)
        self.positional_encoding = nn.Parameter(torch.randn(1, max_seq, dim) * 0.02)
        self.register_tokens = nn.Parameter(torch.randn(1, 8, dim) * 0.02)
        self.single_layers = nn.ModuleList([DiTBlock(dim, n_heads, global_conddim) for _ in range(n_layers)])
        self.final_linear = nn.Linear(dim, patch_size * patch_size * out_channels, bias=False)
        self.modF = nn.Sequential(nn.SiLU(), nn.Linear(global_conddim, 2 * dim, bias=False))
        self.out_channels = out_channels
        self.patch_size = patch_size
        self.h_max = round(max_seq**0.5)
        self.w_max = round(max_seq**0.5)

    def unpatchify(self, x, h, w):
        c = self.out_channels
        p = self.patch_size
        x = x.reshape(shape=(x.shape[0], h, w, p, p, c))
        x = torch.einsum("nhwpqc->nchpwq", x)
        imgs = x.reshape(shape=(x.shape[0], c, h * p, w * p))
        return imgs

    def patchify(self, x):
        B, C, H, W = x.size()
        pad_h = (self.patch_size - H % self.patch_size) % self.patch_size
        pad_w = (self.patch_size - W % self.patch_size) % self.patch_size

        x = torch.nn.functional.pad(x, (0, pad_w, 0, pad_h), mode='circular')
        x = x.view(B, C, (H + 1) // self.patch_size, self.patch_size, (W + 1) // self.patch_size, self.patch_size)
        x = x.permute(0, 2, 4, 1, 3, 5).flatten(-3).flatten(1, 2)
        return x

    def apply_pos_embeds(self, x, h, w):
        h = (h + 1) // self.patch_size
        w = (w + 1) // self.patch_size
        max_dim = max(h, w)

        cur_dim = self.h_max
        pos_encoding = self.positional_encoding.reshape(1, cur_dim, cur_dim, -1).to(x)

        if max_dim > cur_dim:
            pos_encoding = F.interpolate(pos_encoding.movedim(-1, 1), (max_dim, max_dim), mode="bilinear").movedim(1, -1)
            cur_dim = max_dim

        from_h = (cur_dim - h) // 2
        from_w = (cur_dim - w) // 2
        pos_encoding = pos_encoding[:, from_h:from_h + h, from_w:from_w + w]
        return x + pos_encoding.reshape(1, -1, self.positional_encoding.shape[-1])

    def forward(self, x, timestep, context):
        b, c, h, w = x.shape
        x = self.init_x_linear(self.patchify(x))  # B, T_x, D
        x = self.apply_pos_embeds(x, h, w)

        c = self.cond_seq_linear(context)  # B, T_c, D
        c = torch.cat([self.register_tokens.to(c).repeat(c.size(0), 1, 1), c], dim=1)
        global_cond = self.t_embedder(timestep, x.dtype)  # B, D

        c_len = c.size(1)
        cx = torch.cat([c, x], dim=1)
        for layer in self.single_layers:
            cx = layer(cx, global_cond)
        x = cx[:, c_len:]

        fshift, fscale = self.modF(global_cond).chunk(2, dim=1)
        x = modulate(x, fshift, fscale)
        x = self.final_linear(x)
        x = self.unpatchify(x, (h + 1) // self.patch_size, (w + 1) // self.patch_size)[:, :, :h, :w]
        return x


def make_model():
    return MMDiT().eval()


def example_inputs():
    return (torch.randn(2, 4, 21, 26), torch.rand(2), torch.randn(2, 7, 32))


def other_inputs():
    return [(torch.randn(3, 4, 30, 17), torch.rand(3), torch.randn(3, 7, 32)),
            (torch.randn(1, 4, 40, 23), torch.rand(1), torch.randn(1, 7, 32))]


def probe_inputs():
    return other_inputs()
