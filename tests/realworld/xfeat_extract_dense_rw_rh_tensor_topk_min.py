"""XFeat (CVPR 2024 keypoint matcher) dense extraction: `preprocess_tensor` resizes the image to a multiple of 32
and returns the Python ratios `rh, rw = H/_H, W/_W`; `extractDense` then takes `torch.topk(H1, k=min(len(H1[0]), top_k))`
and rescales keypoints with `mkpts * torch.tensor([rw1, rh1])`. The ONNX-export PR reports that the `torch.tensor`
is "treated as a constant when exporting to ONNX" (with dynamic height/width axes) and rewrites it.

Source: https://github.com/verlab/accelerated_features/pull/5
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-16"


class BasicLayer(nn.Module):
    """Basic Convolutional Layer: Conv2d -> BatchNorm -> ReLU"""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=1, dilation=1, bias=False):
        super().__init__()
        self.layer = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, stride=stride, dilation=dilation, bias=bias),
            nn.BatchNorm2d(out_channels, affine=False),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.layer(x)


class TinyXFeatNet(nn.Module):
    """Stand-in for XFeatModel: stride-8 dense features (64 ch) and a reliability heatmap."""

    def __init__(self):
        super().__init__()
        self.norm = nn.InstanceNorm2d(1)
        self.block = nn.Sequential(BasicLayer(1, 16, stride=2), BasicLayer(16, 32, stride=2),
                                   BasicLayer(32, 64, stride=2))
        self.heatmap_head = nn.Sequential(BasicLayer(64, 64, 1, padding=0), nn.Conv2d(64, 1, 1), nn.Sigmoid())

    def forward(self, x):
        with torch.no_grad():
            x = x.mean(dim=1, keepdim=True)
            x = self.norm(x)
        feats = self.block(x)
        heatmap = self.heatmap_head(feats)
        return feats, None, heatmap


class XFeat(nn.Module):
    def __init__(self, top_k=300):
        super().__init__()
        self.dev = torch.device('cpu')
        self.net = TinyXFeatNet().eval()
        self.top_k = top_k

    def preprocess_tensor(self, x):
        """ Guarantee that image is divisible by 32 to avoid aliasing artifacts. """
        x = x.to(self.dev).float()

        H, W = x.shape[-2:]
        _H, _W = (H//32) * 32, (W//32) * 32
        rh, rw = H/_H, W/_W

        x = F.interpolate(x, (_H, _W), mode='bilinear', align_corners=False)
        return x, rh, rw

    def create_xy(self, h, w, dev):
        y, x = torch.meshgrid(torch.arange(h, device=dev),
                              torch.arange(w, device=dev), indexing='ij')
        xy = torch.cat([x[..., None], y[..., None]], -1).reshape(-1, 2)
        return xy

    def extractDense(self, x, top_k=8_000):
        if top_k < 1:
            top_k = 100_000_000

        x, rh1, rw1 = self.preprocess_tensor(x)

        M1, K1, H1 = self.net(x)

        B, C, _H1, _W1 = M1.shape

        xy1 = (self.create_xy(_H1, _W1, M1.device) * 8).expand(B, -1, -1)

        M1 = M1.permute(0, 2, 3, 1).reshape(B, -1, C)
        H1 = H1.permute(0, 2, 3, 1).reshape(B, -1)

        _, top_k = torch.topk(H1, k=min(len(H1[0]), top_k), dim=-1)

        feats = torch.gather(M1, 1, top_k[..., None].expand(-1, -1, 64))
        mkpts = torch.gather(xy1, 1, top_k[..., None].expand(-1, -1, 2))
        mkpts = mkpts * torch.tensor([rw1, rh1], device=mkpts.device).view(1, -1)

        return mkpts, feats

    def forward(self, x):
        return self.extractDense(x, self.top_k)


def make_model():
    return XFeat().eval()


def example_inputs():
    return (torch.rand(1, 3, 200, 300),)


def other_inputs():
    return [(torch.rand(1, 3, 170, 250),), (torch.rand(1, 3, 330, 420),), (torch.rand(1, 3, 100, 130),)]


def probe_inputs():
    return other_inputs()
