"""Street-scene change detection network (TANet / DR-TANet style, two images t0 and t1): its temporal
attention takes local key/value windows with `Tensor.unfold` on the padded t0 feature map; the report
says torch.onnx.export fails with "Unsupported: ONNX export of operator Unfold, input size not
accessible".

Source: https://github.com/pytorch/pytorch/issues/81871
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"t0": {0: "batch", 2: "height", 3: "width"}, "t1": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-14"


class Temporal_Attention(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, groups=1, bias=False):
        super().__init__()
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.groups = groups
        self.rel_h = nn.Parameter(torch.randn(out_channels // 2, 1, 1, kernel_size, 1), requires_grad=True)
        self.rel_w = nn.Parameter(torch.randn(out_channels // 2, 1, 1, 1, kernel_size), requires_grad=True)
        self.key_conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=bias)
        self.query_conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=bias)
        self.value_conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=bias)

    def forward(self, feature_map):
        fm_t0, fm_t1 = torch.split(feature_map, feature_map.size()[1] // 2, 1)
        batch, _, h, w = fm_t0.size()
        padded_fm_t0 = F.pad(fm_t0, [self.padding, self.padding, self.padding, self.padding])
        q_out = self.query_conv(fm_t1)
        k_out = self.key_conv(padded_fm_t0)
        v_out = self.value_conv(padded_fm_t0)

        k_out = k_out.unfold(2, self.kernel_size, self.stride).unfold(3, self.kernel_size, self.stride)
        v_out = v_out.unfold(2, self.kernel_size, self.stride).unfold(3, self.kernel_size, self.stride)

        k_out_h, k_out_w = k_out.split(self.out_channels // 2, dim=1)
        k_out = torch.cat((k_out_h + self.rel_h, k_out_w + self.rel_w), dim=1)

        k_out = k_out.contiguous().view(batch, self.groups, self.out_channels // self.groups, h, w, -1)
        v_out = v_out.contiguous().view(batch, self.groups, self.out_channels // self.groups, h, w, -1)
        q_out = q_out.view(batch, self.groups, self.out_channels // self.groups, h, w, 1)

        out = q_out * k_out
        out = F.softmax(out, dim=-1)
        out = torch.einsum('bnchwk,bnchwk -> bnchw', out, v_out).view(batch, -1, h, w)
        return out


class TANet(nn.Module):
    def __init__(self, ch=16, num_classes=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, ch, 3, stride=2, padding=1), nn.BatchNorm2d(ch), nn.ReLU())
        self.attention = Temporal_Attention(ch, ch, kernel_size=3, padding=1, groups=4)
        self.decoder = nn.Conv2d(2 * ch, num_classes, 3, padding=1)

    def forward(self, t0, t1):
        f0, f1 = self.encoder(t0), self.encoder(t1)
        att = self.attention(torch.cat([f0, f1], dim=1))
        out = self.decoder(torch.cat([att, f1], dim=1))
        return F.interpolate(out, scale_factor=2, mode="bilinear", align_corners=False)


def make_model():
    return TANet().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 32), torch.randn(1, 3, 32, 32))


def other_inputs():
    return [(torch.randn(2, 3, 48, 64), torch.randn(2, 3, 48, 64)),
            (torch.randn(3, 3, 24, 40), torch.randn(3, 3, 24, 40))]


def probe_inputs():
    return other_inputs()
