"""segmentation_models.pytorch PSPNet: each PSPBlock pools the deepest encoder feature with
`nn.AdaptiveAvgPool2d(output_size=(pool_size, pool_size))` for pool sizes (1, 2, 3, 6) and upsamples back with
`F.interpolate(..., mode="bilinear", align_corners=True)`; the PR "Fix PSPNet ONNX export issue" says
AdaptiveAvgPool2d is problematic during ONNX export (feature sizes are not multiples of the pool sizes) and switches
to `F.interpolate(mode="area")` while exporting.

Source: https://github.com/qubvel-org/segmentation_models.pytorch/pull/1270
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-48"


class Conv2dReLU(nn.Sequential):
    # smp.base.modules.Conv2dReLU, trimmed to batchnorm / identity
    def __init__(self, in_channels, out_channels, kernel_size, padding=0, use_norm="batchnorm"):
        conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=use_norm == "identity")
        norm = nn.BatchNorm2d(out_channels) if use_norm == "batchnorm" else nn.Identity()
        super().__init__(conv, norm, nn.ReLU(inplace=True))


class PSPBlock(nn.Module):
    def __init__(self, in_channels, out_channels, pool_size, use_norm="batchnorm"):
        super().__init__()

        if pool_size == 1:
            use_norm = "identity"  # PyTorch does not support BatchNorm for 1x1 shape

        self.pool = nn.Sequential(
            nn.AdaptiveAvgPool2d(output_size=(pool_size, pool_size)),
            Conv2dReLU(in_channels, out_channels, kernel_size=1, use_norm=use_norm),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        height, width = x.shape[2:]
        x = self.pool(x)
        x = F.interpolate(x, size=(height, width), mode="bilinear", align_corners=True)
        return x


class PSPModule(nn.Module):
    def __init__(self, in_channels, sizes=(1, 2, 3, 6), use_norm="batchnorm"):
        super().__init__()
        self.blocks = nn.ModuleList(
            [PSPBlock(in_channels, in_channels // len(sizes), size, use_norm=use_norm) for size in sizes]
        )

    def forward(self, x):
        xs = [block(x) for block in self.blocks] + [x]
        x = torch.cat(xs, dim=1)
        return x


class PSPNet(nn.Module):
    def __init__(self, in_channels=3, encoder_channels=64, psp_out_channels=64, classes=2, upsampling=8):
        super().__init__()
        # stand-in for the depth-3 encoder (output stride 8)
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 48, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(48, encoder_channels, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.psp = PSPModule(encoder_channels, sizes=(1, 2, 3, 6))
        self.conv = Conv2dReLU(encoder_channels * 2, psp_out_channels, kernel_size=1)
        self.dropout = nn.Dropout2d(p=0.2)
        self.head = nn.Conv2d(psp_out_channels, classes, kernel_size=3, padding=1)
        self.upsampling = nn.UpsamplingBilinear2d(scale_factor=upsampling)

    def forward(self, x):
        x = self.encoder(x)
        x = self.psp(x)
        x = self.conv(x)
        x = self.dropout(x)
        return self.upsampling(self.head(x))


def make_model():
    return PSPNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 160, 224),)


def other_inputs():
    return [(torch.randn(1, 3, 200, 136),), (torch.randn(3, 3, 96, 120),)]


def probe_inputs():
    return other_inputs()
