"""CornerNet's corner pooling (mmcv `CornerPool`, used by mmdet's CornerHead) is written with `torch.cummax` along
H or W (flipped for top/left pooling) on torch >= 1.5; torch.onnx cannot export `cummax`, so mmcv had to register
its own `mmcv::cummax` onnxruntime op to deploy CornerNet.

Source: https://github.com/open-mmlab/mmcv/pull/1010
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-2"


class CornerPool(nn.Module):
    """Corner Pooling.

    Args:
        mode (str): Pooling orientation for the pooling layer
            - 'bottom': Bottom Pooling
            - 'left': Left Pooling
            - 'right': Right Pooling
            - 'top': Top Pooling
    """

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
        dim, flip = self.cummax_dim_flip[self.mode]
        if flip:
            x = x.flip(dim)
        pool_tensor, _ = torch.cummax(x, dim=dim)
        if flip:
            pool_tensor = pool_tensor.flip(dim)
        return pool_tensor


class CornerPoolPack(nn.Module):
    """Top-left corner pooling branch of CornerHead (mmdet)."""

    def __init__(self, dim=32, first_pool='top', second_pool='left', feat_channels=32):
        super().__init__()
        self.p1_conv1 = nn.Sequential(nn.Conv2d(dim, feat_channels, 3, padding=1), nn.ReLU())
        self.p2_conv1 = nn.Sequential(nn.Conv2d(dim, feat_channels, 3, padding=1), nn.ReLU())
        self.p_conv1 = nn.Conv2d(feat_channels, dim, 3, padding=1, bias=False)
        self.p_gn1 = nn.GroupNorm(num_groups=8, num_channels=dim)
        self.conv1 = nn.Conv2d(dim, dim, 1, bias=False)
        self.gn1 = nn.GroupNorm(num_groups=8, num_channels=dim)
        self.conv2 = nn.Sequential(nn.Conv2d(dim, dim, 3, padding=1), nn.ReLU())
        self.pool1 = CornerPool(first_pool)
        self.pool2 = CornerPool(second_pool)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        # pool 1
        p1_conv1 = self.p1_conv1(x)
        pool1 = self.pool1(p1_conv1)
        # pool 2
        p2_conv1 = self.p2_conv1(x)
        pool2 = self.pool2(p2_conv1)
        # pool 1 + pool 2
        p_conv1 = self.p_conv1(pool1 + pool2)
        p_gn1 = self.p_gn1(p_conv1)
        conv1 = self.conv1(x)
        gn1 = self.gn1(conv1)
        relu1 = self.relu(p_gn1 + gn1)
        return self.conv2(relu1)


def make_model():
    return CornerPoolPack().eval()


def example_inputs():
    return (torch.randn(1, 32, 24, 32),)


def other_inputs():
    return [(torch.randn(2, 32, 40, 20),), (torch.randn(3, 32, 16, 48),)]


def probe_inputs():
    return other_inputs()
