"""DFormer RGB-D segmentation encoder: every block's `attention` pools the concatenated RGB/depth
features with `nn.AdaptiveAvgPool2d(output_size=(7,7))` to build 7x7 window queries, then interpolates the
attention back to (H, W). The report says ONNX export fails because AdaptiveAvgPool2d is not supported (the
feature map is not a multiple of 7), and a hand-written AvgPool2d replacement only gave a static-shape model.

Source: https://github.com/VCIP-RGBD/DFormer/issues/17
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "x_e": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-26"


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-6, data_format="channels_last"):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps
        self.data_format = data_format
        self.normalized_shape = (normalized_shape, )

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class attention(nn.Module):
    def __init__(self, dim, num_head=8, window=7):
        super().__init__()
        self.num_head = num_head
        self.window = window
        self.q = nn.Linear(dim, dim)
        self.q_cut = nn.Linear(dim, dim//2)
        self.a = nn.Linear(dim, dim)
        self.l = nn.Linear(dim, dim)
        self.conv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.e_conv = nn.Conv2d(dim//2, dim//2, 7, padding=3, groups=dim//2)
        self.e_fore = nn.Linear(dim//2, dim//2)
        self.e_back = nn.Linear(dim//2, dim//2)
        self.short_cut_linear = nn.Linear(dim//2*3, dim//2)
        self.kv = nn.Linear(dim, dim)
        self.pool = nn.AdaptiveAvgPool2d(output_size=(7,7))
        self.proj = nn.Linear(dim * 2, dim)
        self.proj_e = nn.Linear(dim*2, dim//2)
        self.act = nn.GELU()
        self.norm = LayerNorm(dim, eps=1e-6, data_format="channels_last")
        self.norm_e = LayerNorm(dim//2, eps=1e-6, data_format="channels_last")

    def forward(self, x, x_e):
        B, H, W, C = x.size()
        x = self.norm(x)
        x_e = self.norm_e(x_e)
        short_cut = torch.cat([x,x_e],dim=3)
        short_cut = short_cut.permute(0,3,1,2)

        q = self.q(x)
        cutted_x = self.q_cut(x)
        x = self.l(x).permute(0, 3, 1, 2)
        x = self.act(x)
        a = self.conv(x)
        a = a.permute(0, 2, 3, 1)
        a = self.a(a)

        b = x.permute(0, 2, 3, 1)
        kv = self.kv(b)
        kv = kv.reshape(B, H*W, 2, self.num_head, C // self.num_head // 2).permute(2, 0, 3, 1, 4)
        k, v = kv.unbind(0)
        short_cut = self.pool(short_cut).permute(0,2,3,1)
        short_cut = self.short_cut_linear(short_cut)
        short_cut = short_cut.reshape(B, -1, self.num_head, C // self.num_head // 2).permute(0, 2, 1, 3)
        m = short_cut
        attn = (m * (C // self.num_head // 2) ** -0.5) @ k.transpose(-2, -1)
        attn = attn.softmax(dim=-1)
        attn = (attn @ v).reshape(B, self.num_head, self.window, self.window, C // self.num_head // 2).permute(0, 1, 4, 2, 3).reshape(B, C // 2, self.window, self.window)
        attn = F.interpolate(attn, (H, W), mode='bilinear', align_corners=False).permute(0, 2, 3, 1)

        x_e = self.e_back(self.e_conv(self.e_fore(x_e).permute(0, 3, 1, 2)).permute(0, 2, 3, 1))
        cutted_x = cutted_x * x_e
        x = q * a
        x = torch.cat([x, attn,cutted_x], dim=3)
        x_e = self.proj_e(x)
        x = self.proj(x)
        return x,x_e


class DFormerStage1(nn.Module):
    def __init__(self, dim=64, num_head=2):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, dim // 2, kernel_size=3, stride=2, padding=1), nn.BatchNorm2d(dim // 2), nn.GELU(),
            nn.Conv2d(dim // 2, dim, kernel_size=3, stride=2, padding=1), nn.BatchNorm2d(dim))
        self.stem_e = nn.Sequential(
            nn.Conv2d(1, dim // 4, kernel_size=3, stride=2, padding=1), nn.BatchNorm2d(dim // 4), nn.GELU(),
            nn.Conv2d(dim // 4, dim//2, kernel_size=3, stride=2, padding=1), nn.BatchNorm2d(dim//2))
        self.attn = attention(dim, num_head, window=7)
        self.layer_scale_1 = nn.Parameter(1e-1 * torch.ones((dim)))
        self.layer_scale_1_e = nn.Parameter(1e-1 * torch.ones((dim//2)))

    def forward(self, x, x_e):
        x_e = x_e[:,0,:,:].unsqueeze(1)
        x = self.stem(x).permute(0, 2, 3, 1)
        x_e = self.stem_e(x_e).permute(0, 2, 3, 1)
        res_x, res_e = x, x_e
        x, x_e = self.attn(x, x_e)
        x = res_x + self.layer_scale_1.unsqueeze(0).unsqueeze(0) * x
        x_e = res_e + self.layer_scale_1_e.unsqueeze(0).unsqueeze(0) * x_e
        return x.permute(0, 3, 1, 2), x_e.permute(0, 3, 1, 2)


def make_model():
    return DFormerStage1().eval()


def example_inputs():
    return (torch.randn(1, 3, 40, 48), torch.randn(1, 3, 40, 48))


def other_inputs():
    return [(torch.randn(2, 3, 36, 60), torch.randn(2, 3, 36, 60)),
            (torch.randn(1, 3, 56, 44), torch.randn(1, 3, 56, 44))]


def probe_inputs():
    return other_inputs()
