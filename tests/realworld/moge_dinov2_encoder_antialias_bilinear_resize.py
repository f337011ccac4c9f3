"""MoGe (monocular geometry: point map / depth / normal) resizes the input image to the DINOv2 token grid
with `F.interpolate(..., mode="bilinear", align_corners=False, antialias=True)` in DINOv2Encoder.forward;
the antialiased resize has no ONNX export ("aten::_upsample_bilinear2d_aa"), which is why the ONNX support
PR switches antialias off in an `onnx_compatible_mode`.

Source: https://github.com/microsoft/MoGe/pull/87
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch_size", 2: "height", 3: "width"}}
BLIND = "operators-16"


class DINOv2Encoder(nn.Module):
    def __init__(self, dim_features=32, dim_out=16, num_features=2):
        super().__init__()
        # stand-in for the DINOv2 ViT backbone: 14x14 patch embedding + a few blocks
        self.patch_embed = nn.Conv2d(3, dim_features, kernel_size=14, stride=14)
        self.blocks = nn.ModuleList([nn.Conv2d(dim_features, dim_features, 1) for _ in range(num_features)])
        self.output_projections = nn.ModuleList([
            nn.Conv2d(in_channels=dim_features, out_channels=dim_out, kernel_size=1, stride=1, padding=0)
            for _ in range(num_features)
        ])
        self.register_buffer("image_mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("image_std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, image: torch.Tensor, token_rows: int, token_cols: int) -> torch.Tensor:
        image_14 = F.interpolate(image, (token_rows * 14, token_cols * 14), mode="bilinear", align_corners=False, antialias=True)
        image_14 = (image_14 - self.image_mean) / self.image_std

        # Get intermediate layers from the backbone
        x = self.patch_embed(image_14)
        features = []
        for blk in self.blocks:
            x = x + F.gelu(blk(x))
            features.append(x)

        # Project features to the desired dimensionality
        x = torch.stack([
            proj(feat.contiguous())
            for proj, feat in zip(self.output_projections, features)
        ], dim=1).sum(dim=1)
        return x


class MoGeModel(nn.Module):
    def __init__(self, token_rows=12, token_cols=16):
        super().__init__()
        self.token_rows, self.token_cols = token_rows, token_cols
        self.encoder = DINOv2Encoder()
        self.points_head = nn.Conv2d(16, 3, 3, padding=1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        features = self.encoder(image, self.token_rows, self.token_cols)
        points = self.points_head(features)
        return F.interpolate(points, image.shape[-2:], mode="bilinear", align_corners=False)


def make_model():
    return MoGeModel().eval()


def example_inputs():
    return (torch.rand(1, 3, 240, 320),)


def other_inputs():
    return [(torch.rand(2, 3, 300, 280),), (torch.rand(1, 3, 192, 416),)]


def probe_inputs():
    return other_inputs()
