"""eWaSR maritime obstacle segmentation decoder: the four SIM-fused feature levels are brought to the
finest level with torchvision's `TF.resize(f, (f4.size(2), f4.size(3)), InterpolationMode.BILINEAR)`,
which on tensors runs `F.interpolate(..., mode="bilinear", antialias=True)`; the report's
torch.onnx.export fails with "Exporting the operator 'aten::_upsample_bilinear2d_aa' to ONNX opset
version ... is not supported".

Source: https://github.com/tersekmatija/eWaSR/issues/8
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-15"


# --- the few lines of torchvision.transforms.functional the model needs (tensor path) ---
class InterpolationMode:
    NEAREST = "nearest"
    BILINEAR = "bilinear"


class TF:
    @staticmethod
    def resize(img, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
        # torchvision >= 0.17: antialias defaults to True; it only applies to bilinear/bicubic
        antialias = antialias if interpolation in (InterpolationMode.BILINEAR, "bicubic") else False
        align_corners = False if interpolation in (InterpolationMode.BILINEAR, "bicubic") else None
        return F.interpolate(img, size=list(size), mode=interpolation,
                             align_corners=align_corners, antialias=antialias)


class SIM(nn.Module):
    def __init__(self, ch_in, ch_out):
        super(SIM, self).__init__()
        self.conv_lc = nn.Conv2d(ch_in, ch_out, 1)
        self.bn_lc = nn.BatchNorm2d(ch_out)
        self.conv_gc = nn.Conv2d(ch_in, ch_out, 1)
        self.bn_gc = nn.BatchNorm2d(ch_out)
        self.sigmoid_gc = nn.Sigmoid()
        self.conv_gc1 = nn.Conv2d(ch_in, ch_out, 1)
        self.bn_gc1 = nn.BatchNorm2d(ch_out)

    def forward(self, lx, gx):
        gx = TF.resize(gx, (lx.size(2), lx.size(3)), InterpolationMode.NEAREST)
        lx = self.bn_lc(self.conv_lc(lx))
        multi = self.sigmoid_gc(self.bn_gc(self.conv_gc(gx)))
        gx = self.bn_gc1(self.conv_gc1(gx))
        return lx * multi + gx


class SegHead(nn.Module):
    def __init__(self, ch, num_classes):
        super(SegHead, self).__init__()
        self.conv = nn.Conv2d(ch, ch, 1)
        self.bn = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU6(ch)
        self.conv1 = nn.Conv2d(ch, num_classes, 1)

    def forward(self, x):
        x = self.relu(self.bn(self.conv(x)))
        x = self.conv1(x)
        return x


class EWaSRLite(nn.Module):
    def __init__(self, num_classes=3, ch=(64, 32, 16, 8), ch_sim=16):
        super().__init__()
        self.ch = list(ch)
        c4, c3, c2, c1 = ch[3], ch[2], ch[1], ch[0]
        # tiny backbone: skip1 (1/4), skip2 (1/8), aux (1/16), x (1/32)
        self.stem = nn.Sequential(nn.Conv2d(3, c4, 3, 4, 1), nn.BatchNorm2d(c4), nn.ReLU())
        self.l2 = nn.Sequential(nn.Conv2d(c4, c3, 3, 2, 1), nn.BatchNorm2d(c3), nn.ReLU())
        self.l3 = nn.Sequential(nn.Conv2d(c3, c2, 3, 2, 1), nn.BatchNorm2d(c2), nn.ReLU())
        self.l4 = nn.Sequential(nn.Conv2d(c2, c1, 3, 2, 1), nn.BatchNorm2d(c1), nn.ReLU())
        # stands in for PyramidPoolAgg + MetaFormer blocks: global tokens at the coarsest level
        self.token_proj = nn.Conv2d(c1, sum(self.ch), 1)
        self.sim1 = SIM(self.ch[0], ch_sim)
        self.sim2 = SIM(self.ch[1], ch_sim)
        self.sim3 = SIM(self.ch[2], ch_sim)
        self.sim4 = SIM(self.ch[3], ch_sim)
        self.seg_head = SegHead(ch_sim, num_classes)

    def forward(self, x):
        skip1 = self.stem(x)
        skip2 = self.l2(skip1)
        aux = self.l3(skip2)
        x = self.l4(aux)
        tokens = self.token_proj(x)

        f1 = self.sim1(x, tokens[:, :self.ch[0], :, :])
        f2 = self.sim2(aux, tokens[:, self.ch[0]:sum(self.ch[:2]), :, :])
        f3 = self.sim3(skip2, tokens[:, sum(self.ch[:2]):sum(self.ch[:3]), :, :])
        f4 = self.sim4(skip1, tokens[:, sum(self.ch[:3]):, :, :])

        f1 = TF.resize(f1, (f4.size(2), f4.size(3)), InterpolationMode.BILINEAR)
        f2 = TF.resize(f2, (f4.size(2), f4.size(3)), InterpolationMode.BILINEAR)
        f3 = TF.resize(f3, (f4.size(2), f4.size(3)), InterpolationMode.BILINEAR)

        x = f1 + f2 + f3 + f4
        x = self.seg_head(x)
        return x


def make_model():
    return EWaSRLite().eval()


def example_inputs():
    return (torch.randn(2, 3, 96, 128),)


def other_inputs():
    return [(torch.randn(3, 3, 128, 96),), (torch.randn(1, 3, 64, 160),)]


def probe_inputs():
    return other_inputs()
