"""mmdet Cascade R-CNN with mmcv `GeneralizedAttention` plugins (attention_type '1111'): `get_position_embedding`
builds `torch.linspace(0, h - 1, h)` from the feature-map size in forward; mmdeploy torch2onnx warns "Converting a
tensor to a Python integer" at that line and the export fails / bakes the traced feature size.

Source: https://github.com/open-mmlab/mmdeploy/issues/662
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"x_input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-16"


class GeneralizedAttention(nn.Module):
    def __init__(self, in_channels, spatial_range=-1, num_heads=8, position_embedding_dim=-1,
                 position_magnitude=1, kv_stride=2, q_stride=1, attention_type='1111'):
        super().__init__()
        self.position_embedding_dim = (position_embedding_dim if position_embedding_dim > 0 else in_channels)
        self.position_magnitude = position_magnitude
        self.num_heads = num_heads
        self.in_channels = in_channels
        self.kv_stride = kv_stride
        self.q_stride = q_stride
        self.attention_type = [bool(int(_)) for _ in attention_type]
        self.qk_embed_dim = in_channels // num_heads
        out_c = self.qk_embed_dim * num_heads
        self.query_conv = nn.Conv2d(in_channels=in_channels, out_channels=out_c, kernel_size=1, bias=False)
        self.key_conv = nn.Conv2d(in_channels=in_channels, out_channels=out_c, kernel_size=1, bias=False)
        self.v_dim = in_channels // num_heads
        self.value_conv = nn.Conv2d(in_channels=in_channels, out_channels=self.v_dim * num_heads,
                                    kernel_size=1, bias=False)
        self.appr_geom_fc_x = nn.Linear(self.position_embedding_dim // 2, out_c, bias=False)
        self.appr_geom_fc_y = nn.Linear(self.position_embedding_dim // 2, out_c, bias=False)
        stdv = 1.0 / math.sqrt(self.qk_embed_dim * 2)
        self.appr_bias = nn.Parameter(-2 * stdv * torch.rand(out_c) + stdv)
        self.geom_bias = nn.Parameter(-2 * stdv * torch.rand(out_c) + stdv)
        self.proj_conv = nn.Conv2d(in_channels=self.v_dim * num_heads, out_channels=in_channels,
                                   kernel_size=1, bias=True)
        self.gamma = nn.Parameter(torch.zeros(1))
        self.kv_downsample = nn.AvgPool2d(kernel_size=1, stride=self.kv_stride)

    def get_position_embedding(self, h, w, h_kv, w_kv, q_stride, kv_stride, device, dtype, feat_dim,
                               wave_length=1000):
        h_idxs = torch.linspace(0, h - 1, h).to(device=device, dtype=dtype)
        h_idxs = h_idxs.view((h, 1)) * q_stride
        w_idxs = torch.linspace(0, w - 1, w).to(device=device, dtype=dtype)
        w_idxs = w_idxs.view((w, 1)) * q_stride
        h_kv_idxs = torch.linspace(0, h_kv - 1, h_kv).to(device=device, dtype=dtype)
        h_kv_idxs = h_kv_idxs.view((h_kv, 1)) * kv_stride
        w_kv_idxs = torch.linspace(0, w_kv - 1, w_kv).to(device=device, dtype=dtype)
        w_kv_idxs = w_kv_idxs.view((w_kv, 1)) * kv_stride
        h_diff = h_idxs.unsqueeze(1) - h_kv_idxs.unsqueeze(0)
        h_diff *= self.position_magnitude
        w_diff = w_idxs.unsqueeze(1) - w_kv_idxs.unsqueeze(0)
        w_diff *= self.position_magnitude
        feat_range = torch.arange(0, feat_dim / 4).to(device=device, dtype=dtype)
        dim_mat = torch.Tensor([wave_length]).to(device=device, dtype=dtype)
        dim_mat = dim_mat**((4. / feat_dim) * feat_range)
        dim_mat = dim_mat.view((1, 1, -1))
        embedding_x = torch.cat(((w_diff / dim_mat).sin(), (w_diff / dim_mat).cos()), dim=2)
        embedding_y = torch.cat(((h_diff / dim_mat).sin(), (h_diff / dim_mat).cos()), dim=2)
        return embedding_x, embedding_y

    def forward(self, x_input):
        num_heads = self.num_heads
        x_q = x_input
        n, _, h, w = x_q.shape
        x_kv = self.kv_downsample(x_input)
        _, _, h_kv, w_kv = x_kv.shape
        proj_query = self.query_conv(x_q).view((n, num_heads, self.qk_embed_dim, h * w))
        proj_query = proj_query.permute(0, 1, 3, 2)
        proj_key = self.key_conv(x_kv).view((n, num_heads, self.qk_embed_dim, h_kv * w_kv))
        position_embed_x, position_embed_y = self.get_position_embedding(
            h, w, h_kv, w_kv, self.q_stride, self.kv_stride,
            x_input.device, x_input.dtype, self.position_embedding_dim)
        position_feat_x = self.appr_geom_fc_x(position_embed_x).\
            view(1, w, w_kv, num_heads, self.qk_embed_dim).permute(0, 3, 1, 2, 4).repeat(n, 1, 1, 1, 1)
        position_feat_y = self.appr_geom_fc_y(position_embed_y).\
            view(1, h, h_kv, num_heads, self.qk_embed_dim).permute(0, 3, 1, 2, 4).repeat(n, 1, 1, 1, 1)
        position_feat_x /= math.sqrt(2)
        position_feat_y /= math.sqrt(2)
        appr_bias = self.appr_bias.view(1, num_heads, 1, self.qk_embed_dim)
        energy = torch.matmul(proj_query + appr_bias, proj_key).view(n, num_heads, h, w, h_kv, w_kv)
        geom_bias = self.geom_bias.view(1, num_heads, 1, self.qk_embed_dim)
        proj_query_reshape = (proj_query + geom_bias).view(n, num_heads, h, w, self.qk_embed_dim)
        energy_x = torch.matmul(proj_query_reshape.permute(0, 1, 3, 2, 4), position_feat_x.permute(0, 1, 2, 4, 3))
        energy_x = energy_x.permute(0, 1, 3, 2, 4).unsqueeze(4)
        energy_y = torch.matmul(proj_query_reshape, position_feat_y.permute(0, 1, 2, 4, 3))
        energy_y = energy_y.unsqueeze(5)
        energy += energy_x + energy_y
        energy = energy.view(n, num_heads, h * w, h_kv * w_kv)
        attention = F.softmax(energy, 3)
        proj_value = self.value_conv(x_kv)
        proj_value_reshape = proj_value.view((n, num_heads, self.v_dim, h_kv * w_kv)).permute(0, 1, 3, 2)
        out = torch.matmul(attention, proj_value_reshape).permute(0, 1, 3, 2).contiguous().\
            view(n, self.v_dim * self.num_heads, h, w)
        out = self.proj_conv(out)
        out = self.gamma * out + x_input
        return out


def make_model():
    model = GeneralizedAttention(64, spatial_range=-1, num_heads=8, attention_type='1111', kv_stride=2)
    with torch.no_grad():
        model.gamma.fill_(1.0)  # a trained checkpoint has a non-zero gamma
    return model.eval()


def example_inputs():
    return (torch.randn(2, 64, 12, 16),)


def other_inputs():
    return [(torch.randn(3, 64, 16, 10),), (torch.randn(1, 64, 8, 20),)]


def probe_inputs():
    return other_inputs()
