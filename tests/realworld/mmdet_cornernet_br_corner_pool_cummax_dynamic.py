"""mmdet CornerNet (CornerHead) exported to ONNX with dynamic input shapes: the corner pooling layers (mmcv
`CornerPool`, bottom/right and top/left packs) are written with `torch.cummax`, which the PyTorch exporter
cannot translate, so the CornerNet ONNX export in mmdet had to rely on a custom `mmcv::cummax` onnxruntime op.

Source: https://github.com/open-mmlab/mmdetection/pull/5112
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-18"


class CornerPool(nn.Module):
    """Corner Pooling (mmcv.ops.CornerPool, torch >= 1.5 path)."""

    cummax_dim_flip = {
        'bottom': (2, False),
        'left': (3, True),
        'right': (3, False),
        'top': (2, True),
    }

    def __init__(self, mode):
        super(CornerPool, self).__init__()
        assert mode in self.cummax_dim_flip
        self.mode = mode

    def forward(self, x):
        if torch.onnx.is_in_onnx_export():
            assert torch.__version__ >= '1.7.0', \
                'When `cummax` serves as an intermediate component whose ' \
                'outputs is used as inputs for another modules, it\'s ' \
                'expected that pytorch version must be >= 1.7.0'
        dim, flip = self.cummax_dim_flip[self.mode]
        if flip:
            x = x.flip(dim)
        pool_tensor, _ = torch.cummax(x, dim=dim)
        if flip:
            pool_tensor = pool_tensor.flip(dim)
        return pool_tensor


class BiCornerPool(nn.Module):
    """Bidirectional Corner Pooling Module (mmdet CornerHead), trimmed (no norm layers)."""

    def __init__(self, in_channels, directions, feat_channels=32, out_channels=32):
        super(BiCornerPool, self).__init__()
        self.direction1_conv = nn.Sequential(nn.Conv2d(in_channels, feat_channels, 3, padding=1), nn.ReLU())
        self.direction2_conv = nn.Sequential(nn.Conv2d(in_channels, feat_channels, 3, padding=1), nn.ReLU())
        self.aftpool_conv = nn.Conv2d(feat_channels, out_channels, 3, padding=1, bias=False)
        self.conv1 = nn.Conv2d(in_channels, out_channels, 1, bias=False)
        self.conv2 = nn.Sequential(nn.Conv2d(in_channels, out_channels, 3, padding=1), nn.ReLU())
        self.direction1_pool = CornerPool(directions[0])
        self.direction2_pool = CornerPool(directions[1])
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        direction1_conv = self.direction1_conv(x)
        direction2_conv = self.direction2_conv(x)
        direction1_feat = self.direction1_pool(direction1_conv)
        direction2_feat = self.direction2_pool(direction2_conv)
        aftpool_conv = self.aftpool_conv(direction1_feat + direction2_feat)
        conv1 = self.conv1(x)
        relu = self.relu(aftpool_conv + conv1)
        conv2 = self.conv2(relu)
        return conv2


class CornerHeadSingle(nn.Module):
    """One level of CornerHead.forward_single: tl/br pools then heatmap heads."""

    def __init__(self, in_channels=32, num_classes=4):
        super().__init__()
        self.tl_pool = BiCornerPool(in_channels, ['top', 'left'], out_channels=in_channels)
        self.br_pool = BiCornerPool(in_channels, ['bottom', 'right'], out_channels=in_channels)
        self.tl_heat = nn.Sequential(nn.Conv2d(in_channels, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, num_classes, 1))
        self.br_heat = nn.Sequential(nn.Conv2d(in_channels, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, num_classes, 1))

    def forward(self, x):
        tl_pool = self.tl_pool(x)
        tl_heat = self.tl_heat(tl_pool)
        br_pool = self.br_pool(x)
        br_heat = self.br_heat(br_pool)
        return tl_heat, br_heat


def make_model():
    return CornerHeadSingle().eval()


def example_inputs():
    return (torch.randn(2, 32, 24, 32),)


def other_inputs():
    return [(torch.randn(3, 32, 20, 28),), (torch.randn(1, 32, 32, 16),)]


def probe_inputs():
    return other_inputs()
