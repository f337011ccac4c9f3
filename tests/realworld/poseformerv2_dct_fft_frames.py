"""PoseFormerV2 (3-D human pose lifting from 2-D keypoint sequences) turns the joint trajectories into DCT
coefficients with torch_dct, whose `dct` calls `torch.fft.fft`; torch.onnx.export fails with "Exporting the
operator 'aten::fft_fft' to ONNX opset version 17 is not supported".

Source: https://github.com/QitaoZhao/PoseFormerV2/issues/6
"""
from functools import partial

import numpy as np
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames"}}
BLIND = "operators-3"


def dct(x, norm=None):
    """torch_dct.dct (DCT-II along the last dimension)."""
    x_shape = x.shape
    N = x_shape[-1]
    x = x.contiguous().view(-1, N)

    v = torch.cat([x[:, ::2], x[:, 1::2].flip([1])], dim=1)

    Vc = torch.view_as_real(torch.fft.fft(v, dim=1))

    k = - torch.arange(N, dtype=x.dtype, device=x.device)[None, :] * np.pi / (2 * N)
    W_r = torch.cos(k)
    W_i = torch.sin(k)

    V = Vc[:, :, 0] * W_r - Vc[:, :, 1] * W_i

    if norm == 'ortho':
        V[:, 0] /= np.sqrt(N) * 2
        V[:, 1:] /= np.sqrt(N / 2) * 2

    V = 2 * V.view(*x_shape)

    return V


class PoseTransformerV2Freq(nn.Module):
    """The frequency branch of PoseFormerV2's PoseTransformerV2 (common/model_poseformer.py), trimmed."""

    def __init__(self, num_joints=17, in_chans=2, embed_dim_ratio=8, number_of_kept_coeffs=3, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        embed_dim = embed_dim_ratio * num_joints
        out_dim = num_joints * 3
        self.num_coeff_kept = number_of_kept_coeffs
        self.Freq_embedding = nn.Linear(in_chans * num_joints, embed_dim)
        self.Temporal_pos_embed_ = nn.Parameter(torch.randn(1, self.num_coeff_kept, embed_dim) * 0.02)
        self.Temporal_norm = norm_layer(embed_dim)
        self.weighted_mean = torch.nn.Conv1d(in_channels=self.num_coeff_kept, out_channels=1, kernel_size=1)
        self.head = nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, out_dim))

    def forward_features(self, x):
        b, f, p, _ = x.shape
        num_coeff_kept = self.num_coeff_kept

        x = dct(x.permute(0, 2, 3, 1))[:, :, :, :num_coeff_kept]
        x = x.permute(0, 3, 1, 2).contiguous().view(b, num_coeff_kept, -1)
        x = self.Freq_embedding(x)

        x += self.Temporal_pos_embed_
        x = self.Temporal_norm(x)
        return x

    def forward(self, x):
        b, f, p, _ = x.shape
        x = self.forward_features(x)
        x = self.weighted_mean(x)
        x = self.head(x).view(b, 1, p, -1)
        return x


def make_model():
    return PoseTransformerV2Freq().eval()


def example_inputs():
    return (torch.randn(2, 27, 17, 2),)


def other_inputs():
    return [(torch.randn(3, 81, 17, 2),), (torch.randn(1, 9, 17, 2),)]


def probe_inputs():
    return other_inputs()
