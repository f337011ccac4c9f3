"""Particle Transformer (weaver-core, jet tagging) built `for_inference`: the pair embedding takes the lower-triangle
pair indices from `torch.ones(row, col).tril(offset).nonzero().T` (the `for_onnx` replacement of torch.tril_indices),
gathers the particle pairs with them and scatters the embedded pairs back with `y[:, :, i, j] = elements`; the
maintainers report that the TorchDynamo exporter (the default since torch 2.9) "cannot trace ParT's data-dependent
pairwise path" and pin `dynamo=False`. Trimmed to the embeddings, one attention block and the pooled classifier.

Source: https://github.com/hqucms/weaver-core/pull/28
"""
import math
from functools import partial

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "seq_len"}, "v": {0: "batch", 2: "seq_len"}, "mask": {0: "batch", 2: "seq_len"}}
BLIND = "domains-7"


def delta_phi(a, b):
    return (a - b + math.pi) % (2 * math.pi) - math.pi


def delta_r2(eta1, phi1, eta2, phi2):
    return (eta1 - eta2) ** 2 + delta_phi(phi1, phi2) ** 2


def to_ptrapphim(x, eps=1e-8):
    px, py, pz, energy = x.split((1, 1, 1, 1), dim=1)
    pt = torch.sqrt(x[:, :2].square().sum(dim=1, keepdim=True))
    rapidity = 0.5 * torch.log(1 + (2 * pz) / (energy - pz).clamp(min=1e-20))
    phi = torch.atan2(py, px)
    return torch.cat((pt, rapidity, phi), dim=1)


def to_m2(x, eps=1e-8):
    return (x[:, 3:4].square() - x[:, :3].square().sum(dim=1, keepdim=True)).clamp(min=eps)


def pairwise_lv_fts_pp(xi, xj, num_outputs=4, eps=1e-8):
    pti, rapi, phii = to_ptrapphim(xi).split((1, 1, 1), dim=1)
    ptj, rapj, phij = to_ptrapphim(xj).split((1, 1, 1), dim=1)
    delta = delta_r2(rapi, phii, rapj, phij).sqrt()
    lndelta = torch.log(delta.clamp(min=eps))
    ptmin = torch.minimum(pti, ptj)
    lnkt = torch.log((ptmin * delta).clamp(min=eps))
    lnz = torch.log((ptmin / (pti + ptj).clamp(min=eps)).clamp(min=eps))
    lnm2 = torch.log(to_m2(xi + xj, eps=eps))
    return torch.cat([lnkt, lnz, lndelta, lnm2], dim=1)


def tril_indices(row, col, offset=0, *, dtype=torch.long, device="cpu"):
    return torch.ones(row, col, dtype=dtype, device=device).tril(offset).nonzero().T


class PairEmbed(nn.Module):
    def __init__(self, pairwise_lv_dim, dims, remove_self_pair=False, for_onnx=True):
        super().__init__()
        self.pairwise_lv_dim = pairwise_lv_dim
        self.remove_self_pair = remove_self_pair
        self.is_symmetric = True
        self.tril_indices_fn = tril_indices if for_onnx else torch.tril_indices
        self.out_dim = dims[-1]
        self.pairwise_lv_fts = partial(pairwise_lv_fts_pp, num_outputs=pairwise_lv_dim)
        module_list = [nn.BatchNorm1d(pairwise_lv_dim)]
        input_dim = pairwise_lv_dim
        for dim in dims:
            module_list.extend([nn.Conv1d(input_dim, dim, 1), nn.BatchNorm1d(dim), nn.GELU()])
            input_dim = dim
        self.embed = nn.Sequential(*module_list[:-1])

    def forward(self, x):
        # x: (batch, v_dim, seq_len)
        batch_size, _, seq_len = x.size()
        i, j = self.tril_indices_fn(seq_len, seq_len, offset=-1 if self.remove_self_pair else 0, device=x.device)
        xi = x[:, :, i]  # (batch, dim, num_tril_pairs)
        xj = x[:, :, j]
        x = self.pairwise_lv_fts(xi, xj)
        elements = self.embed(x)
        y = elements.new_zeros(batch_size, self.out_dim, seq_len, seq_len)
        y[:, :, i, j] = elements
        y[:, :, j, i] = elements
        return y


class Attention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.embed_dim, self.num_heads, self.head_dim = embed_dim, num_heads, embed_dim // num_heads
        self.in_proj = nn.Linear(embed_dim, 3 * embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, query, key_padding_mask=None, attn_mask=None):
        bsz, tgt_len, _ = query.shape
        # merge key padding and attention masks
        key_padding_mask = torch.zeros_like(key_padding_mask, dtype=query.dtype).masked_fill(key_padding_mask, -1e9)
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, tgt_len).expand(-1, self.num_heads, -1, -1)
        attn_mask = attn_mask + key_padding_mask
        q, k, v = self.in_proj(query).chunk(3, dim=-1)
        q = q.view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = k.view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2)
        v = v.view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2)
        q_scaled = q * math.sqrt(1.0 / float(self.head_dim))
        attn_weight = torch.softmax(q_scaled @ k.transpose(-2, -1) + attn_mask, dim=-1)
        attn_output = (attn_weight @ v).transpose(1, 2).contiguous()
        return self.out_proj(attn_output.reshape(bsz, tgt_len, self.embed_dim))


class ParticleTransformer(nn.Module):
    def __init__(self, input_dim=7, embed_dim=32, num_heads=4, num_classes=5):
        super().__init__()
        self.num_heads = num_heads
        self.input_bn = nn.BatchNorm1d(input_dim)
        self.embed = nn.Sequential(nn.LayerNorm(input_dim), nn.Linear(input_dim, embed_dim), nn.GELU())
        self.pair_embed = PairEmbed(4, (16, 16, num_heads), for_onnx=True)
        self.attn = Attention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.fc = nn.Linear(embed_dim, num_classes)

    def forward(self, x, v, mask):
        padding_mask = ~mask.squeeze(1).bool()  # (batch_size, seq_len)
        x = self.embed(self.input_bn(x).transpose(1, 2)).masked_fill(~mask.bool().transpose(1, 2), 0)
        attn_mask = self.pair_embed(v)  # (batch_size, num_heads, seq_len, seq_len)
        x = x + self.attn(x, key_padding_mask=padding_mask, attn_mask=attn_mask)
        m = ~padding_mask.unsqueeze(-1)
        x_cls = self.norm((x * m).sum(dim=1) / m.float().sum(dim=1).clamp(min=1))
        return torch.softmax(self.fc(x_cls), dim=1)


def make_model():
    return ParticleTransformer().eval()


def _jets(b, n):
    pt = torch.rand(b, 1, n) * 50 + 1
    eta, phi = torch.randn(b, 1, n) * 0.4, torch.randn(b, 1, n) * 0.4
    v = torch.cat([pt * torch.cos(phi), pt * torch.sin(phi), pt * torch.sinh(eta), pt * torch.cosh(eta) + 0.1], 1)
    mask = torch.ones(b, 1, n)
    mask[:, :, n - n // 4:] = 0
    return torch.randn(b, 7, n), v, mask


def example_inputs():
    return _jets(2, 16)


def other_inputs():
    return [_jets(3, 24), _jets(1, 9)]


def probe_inputs():
    return other_inputs()
