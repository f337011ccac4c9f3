"""anomalib's GLASS anomaly-detection model patchifies two backbone feature maps into 3x3 neighbourhoods and maps
each flattened patch (C*3*3 values) to a fixed `preprocessing_dim` with `MeanMapper`, i.e.
`features.reshape(len(features), 1, -1)` followed by `F.adaptive_avg_pool1d(features, self.preprocessing_dim)`.
The PR adding GLASS ONNX export had to special-case this module ("ONNX export can fail for adaptive_avg_pool1d when
the flattened input length is symbolic"); the code below is the MeanMapper/Preprocessing before that change.

Source: https://github.com/open-edge-platform/anomalib/pull/3412
"""
import torch
import torch.nn.functional as f
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "operators-28"


class MeanMapper(torch.nn.Module):
    """Maps input features to a fixed dimension using adaptive average pooling."""

    def __init__(self, preprocessing_dim: int) -> None:
        super().__init__()
        self.preprocessing_dim = preprocessing_dim

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        features = features.reshape(len(features), 1, -1)
        return f.adaptive_avg_pool1d(features, self.preprocessing_dim).squeeze(1)


class Preprocessing(torch.nn.Module):
    """Handles initial feature preprocessing across multiple input dimensions."""

    def __init__(self, input_dims: list[int | tuple[int, int]], output_dim: int) -> None:
        super().__init__()
        self.input_dims = input_dims
        self.output_dim = output_dim

        self.preprocessing_modules = torch.nn.ModuleList()
        for _ in input_dims:
            module = MeanMapper(output_dim)
            self.preprocessing_modules.append(module)

    def forward(self, features: list[torch.Tensor]) -> torch.Tensor:
        features_ = []
        for module, feature in zip(self.preprocessing_modules, features, strict=False):
            features_.append(module(feature))
        return torch.stack(features_, dim=1)


class GlassFeatureExtractor(nn.Module):
    """Backbone (two stages) + 3x3 patchify + Preprocessing, as GLASS builds its patch embeddings."""

    def __init__(self, pre_proj_dim=20, patchsize=3):
        super().__init__()
        self.layer2 = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU())
        self.layer3 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.patchsize = patchsize
        self.preprocessing = Preprocessing([8, 16], pre_proj_dim)

    def patchify(self, feat):
        b, c, h, w = feat.shape
        p = self.patchsize
        unfolded = f.unfold(feat, kernel_size=p, padding=p // 2)          # (B, C*p*p, H*W)
        unfolded = unfolded.reshape(b, c, p, p, -1).permute(0, 4, 1, 2, 3)  # (B, H*W, C, p, p)
        return unfolded

    def forward(self, images):
        f2 = self.layer2(images)
        f3 = self.layer3(f2)
        f3 = f.interpolate(f3, size=f2.shape[-2:], mode="bilinear", align_corners=False)
        patches = [self.patchify(f2), self.patchify(f3)]
        patches = [p.reshape(-1, *p.shape[2:]) for p in patches]           # (B*H*W, C, p, p)
        return self.preprocessing(patches)                                 # (B*H*W, 2, pre_proj_dim)


def make_model():
    return GlassFeatureExtractor().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 32),), (torch.randn(1, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
