"""LightGlue keypoint matcher (frame-to-frame point matching/tracking): with early stopping enabled
(`depth_confidence=0.95`), each layer computes token confidences and `if self.stop(...): break`s out of the
layer loop on a tensor condition; the ONNX port reported it could not export this dynamic control flow
(early stopping / adaptive pruning). Reduced: einops replaced by view/permute, pruning off, tuple output.

Source: https://github.com/cvg/LightGlue/issues/8
"""
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"kpts0": {1: "m"}, "kpts1": {1: "n"}, "desc0": {1: "m"}, "desc1": {1: "n"}}
BLIND = "domains-4"


def normalize_keypoints(kpts, size):
    shift = size.float().to(kpts) / 2
    scale = size.max(1).values.float().to(kpts) / 2
    return (kpts - shift[:, None]) / scale[:, None, None]


class TokenConfidence(nn.Module):
    def __init__(self, dim):
        super(TokenConfidence, self).__init__()
        self.token = nn.Sequential(nn.Linear(dim, 1), nn.Sigmoid())

    def forward(self, desc0, desc1):
        return (self.token(desc0.detach().float()).squeeze(-1),
                self.token(desc1.detach().float()).squeeze(-1))


class Transformer(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.Wqkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)
        self.ffn = nn.Sequential(nn.Linear(2 * embed_dim, 2 * embed_dim), nn.LayerNorm(2 * embed_dim),
                                 nn.GELU(), nn.Linear(2 * embed_dim, embed_dim))

    def _forward(self, x):
        b, n, _ = x.shape
        qkv = self.Wqkv(x).view(b, n, self.num_heads, -1, 3).transpose(1, 2)
        q, k, v = qkv[..., 0], qkv[..., 1], qkv[..., 2]
        context = F.scaled_dot_product_attention(q, k, v)
        message = self.out_proj(context.transpose(1, 2).reshape(b, n, -1))
        return x + self.ffn(torch.cat([x, message], -1))

    def forward(self, x0, x1):
        return self._forward(x0), self._forward(x1)


class CrossTransformer(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.heads = num_heads
        self.scale = (embed_dim // num_heads) ** -0.5
        self.to_qk = nn.Linear(embed_dim, embed_dim)
        self.to_v = nn.Linear(embed_dim, embed_dim)
        self.to_out = nn.Linear(embed_dim, embed_dim)
        self.ffn = nn.Sequential(nn.Linear(2 * embed_dim, 2 * embed_dim), nn.LayerNorm(2 * embed_dim),
                                 nn.GELU(), nn.Linear(2 * embed_dim, embed_dim))

    def forward(self, x0, x1):
        split = lambda t: t.view(t.shape[0], t.shape[1], self.heads, -1).transpose(1, 2)
        qk0, qk1, v0, v1 = map(split, (self.to_qk(x0), self.to_qk(x1), self.to_v(x0), self.to_v(x1)))
        qk0, qk1 = qk0 * self.scale**0.5, qk1 * self.scale**0.5
        sim = qk0 @ qk1.transpose(-1, -2)
        m0 = F.softmax(sim, dim=-1) @ v1
        m1 = F.softmax(sim.transpose(-2, -1), dim=-1) @ v0
        merge = lambda t: t.transpose(1, 2).reshape(t.shape[0], t.shape[2], -1)
        m0, m1 = self.to_out(merge(m0)), self.to_out(merge(m1))
        return x0 + self.ffn(torch.cat([x0, m0], -1)), x1 + self.ffn(torch.cat([x1, m1], -1))


class MatchAssignment(nn.Module):
    def __init__(self, dim):
        super(MatchAssignment, self).__init__()
        self.matchability = nn.Linear(dim, 1, bias=True)
        self.final_proj = nn.Linear(dim, dim, bias=True)

    def forward(self, desc0, desc1):
        mdesc0, mdesc1 = self.final_proj(desc0), self.final_proj(desc1)
        d = mdesc0.shape[-1]
        sim = (mdesc0 / d**.25) @ (mdesc1 / d**.25).transpose(1, 2)
        z0, z1 = self.matchability(desc0), self.matchability(desc1)
        b, m, n = sim.shape
        certainties = F.logsigmoid(z0) + F.logsigmoid(z1).transpose(1, 2)
        scores0 = F.log_softmax(sim, 2)
        scores1 = F.log_softmax(sim.transpose(-1, -2).contiguous(), 2).transpose(-1, -2)
        scores = sim.new_full((b, m + 1, n + 1), 0)
        scores[:, :m, :n] = (scores0 + scores1 + certainties)
        scores[:, :-1, -1] = F.logsigmoid(-z0.squeeze(-1))
        scores[:, -1, :-1] = F.logsigmoid(-z1.squeeze(-1))
        return scores, sim


class LightGlue(nn.Module):
    def __init__(self, **conf):
        super().__init__()
        self.conf = conf = SimpleNamespace(**{
            'input_dim': 32, 'descriptor_dim': 32, 'n_layers': 4, 'num_heads': 2,
            'filter_threshold': 0.1, 'depth_confidence': 0.95, 'width_confidence': -1, **conf})
        self.input_proj = nn.Identity()
        h, n, d = conf.num_heads, conf.n_layers, conf.descriptor_dim
        self.posenc = nn.Linear(2, d)
        self.self_attn = nn.ModuleList([Transformer(d, h) for _ in range(n)])
        self.cross_attn = nn.ModuleList([CrossTransformer(d, h) for _ in range(n)])
        self.log_assignment = nn.ModuleList([MatchAssignment(d) for _ in range(n)])
        self.token_confidence = nn.ModuleList([TokenConfidence(d) for _ in range(n - 1)])

    def forward(self, kpts0, kpts1, desc0, desc1, image_size):
        b, m, _ = kpts0.shape
        b, n, _ = kpts1.shape
        kpts0 = normalize_keypoints(kpts0, image_size)
        kpts1 = normalize_keypoints(kpts1, image_size)
        desc0 = self.input_proj(desc0) + self.posenc(kpts0)
        desc1 = self.input_proj(desc1) + self.posenc(kpts1)

        dec = self.conf.depth_confidence
        for i in range(self.conf.n_layers):
            desc0, desc1 = self.self_attn[i](desc0, desc1)
            desc0, desc1 = self.cross_attn[i](desc0, desc1)
            if i == self.conf.n_layers - 1:
                continue  # no early stopping or adaptive width at last layer
            if dec > 0:  # early stopping
                token0, token1 = self.token_confidence[i](desc0, desc1)
                if self.stop(token0, token1, self.conf_th(i), dec, m + n):
                    break
        scores, _ = self.log_assignment[i](desc0, desc1)
        return scores

    def conf_th(self, i):
        return np.clip(0.8 + 0.1 * np.exp(-4.0 * i / self.conf.n_layers), 0, 1)

    def stop(self, token0, token1, conf_th, inl_th, seql):
        tokens = torch.cat([token0, token1], -1)
        if conf_th:
            pos = 1.0 - (tokens < conf_th).float().sum() / seql
            return pos > inl_th
        else:
            return tokens.mean() > inl_th


def make_model():
    model = LightGlue().eval()
    # stand-in for trained confidence heads: confident (stop) unless the descriptors are far off
    for tc in model.token_confidence:
        nn.init.constant_(tc.token[0].bias, 4.0)
        nn.init.normal_(tc.token[0].weight, std=0.05)
    return model


def _pair(m, n, desc_scale):
    size = torch.tensor([[640.0, 480.0]])
    return (torch.rand(1, m, 2) * size, torch.rand(1, n, 2) * size,
            torch.randn(1, m, 32) * desc_scale, torch.randn(1, n, 32) * desc_scale, size)


def example_inputs():
    return _pair(50, 60, 1.0)


def other_inputs():
    return [_pair(80, 40, 30.0), _pair(30, 70, 1.0)]


def probe_inputs():
    return other_inputs()
