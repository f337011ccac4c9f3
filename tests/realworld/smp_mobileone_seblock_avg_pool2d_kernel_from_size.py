"""segmentation_models_pytorch MobileOne encoder (use_se=True): `SEBlock.forward` squeezes with
`b, c, h, w = inputs.size()` and `F.avg_pool2d(inputs, kernel_size=[h, w])`, a pooling kernel built as a list from
the feature map's size; the PR reports that ONNX export of MobileOne with SE layers "fails miserably due to list
creation" and changes the squeeze so that the model traces and exports.

Source: https://github.com/qubvel-org/segmentation_models.pytorch/pull/851
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-48"


class SEBlock(nn.Module):
    """Squeeze and Excite module."""

    def __init__(self, in_channels: int, rd_ratio: float = 0.0625) -> None:
        super(SEBlock, self).__init__()
        self.reduce = nn.Conv2d(
            in_channels=in_channels, out_channels=int(in_channels * rd_ratio), kernel_size=1, stride=1, bias=True
        )
        self.expand = nn.Conv2d(
            in_channels=int(in_channels * rd_ratio), out_channels=in_channels, kernel_size=1, stride=1, bias=True
        )

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Apply forward pass."""
        b, c, h, w = inputs.size()
        x = F.avg_pool2d(inputs, kernel_size=[h, w])
        x = self.reduce(x)
        x = F.relu(x)
        x = self.expand(x)
        x = torch.sigmoid(x)
        x = x.view(-1, c, 1, 1)
        return inputs * x


class MobileOneBlock(nn.Module):
    # inference-mode (reparameterized) block: conv -> SE -> ReLU
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, groups=1, use_se=False):
        super().__init__()
        self.se = SEBlock(out_channels) if use_se else nn.Identity()
        self.activation = nn.ReLU()
        self.reparam_conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                                      groups=groups, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.activation(self.se(self.reparam_conv(x)))


class MobileOne(nn.Module):
    def __init__(self, widths=(16, 32, 48, 64, 96), use_se=True, depth=5):
        super().__init__()
        self._depth = depth
        self.stage0 = MobileOneBlock(3, widths[0], 3, stride=2, padding=1)
        self.stage1 = self._make_stage(widths[0], widths[1], 0)
        self.stage2 = self._make_stage(widths[1], widths[2], 0)
        self.stage3 = self._make_stage(widths[2], widths[3], 1 if use_se else 0)
        self.stage4 = self._make_stage(widths[3], widths[4], 1 if use_se else 0)

    def _make_stage(self, in_planes, planes, num_se_blocks):
        use_se = num_se_blocks > 0
        return nn.Sequential(
            MobileOneBlock(in_planes, in_planes, 3, stride=2, padding=1, groups=in_planes, use_se=use_se),
            MobileOneBlock(in_planes, planes, 1, use_se=use_se),
        )

    def get_stages(self):
        return [nn.Identity(), self.stage0, self.stage1, self.stage2, self.stage3, self.stage4]

    def forward(self, x: torch.Tensor):
        stages = self.get_stages()
        features = []
        for i in range(self._depth + 1):
            x = stages[i](x)
            features.append(x)
        return features


class SegModel(nn.Module):
    # smp-style: encoder features -> light decoder on the two deepest maps -> upsampled mask
    def __init__(self, classes=2):
        super().__init__()
        self.encoder = MobileOne()
        self.lateral = nn.Conv2d(64, 96, 1)
        self.head = nn.Conv2d(96, classes, 3, padding=1)

    def forward(self, x):
        features = self.encoder(x)
        p5 = features[-1]
        p4 = self.lateral(features[-2]) + F.interpolate(p5, size=features[-2].shape[-2:], mode="nearest")
        masks = self.head(p4)
        return F.interpolate(masks, size=x.shape[-2:], mode="bilinear", align_corners=False)


def make_model():
    return SegModel()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 128, 64),), (torch.randn(1, 3, 96, 160),)]


def probe_inputs():
    return other_inputs()
