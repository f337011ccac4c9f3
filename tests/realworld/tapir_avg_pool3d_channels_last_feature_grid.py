"""TAPIR point tracker (PyTorch inference port): the refinement loop builds a coarser pyramid level of the
channels-last feature grid (1, H, W, C) with `F.avg_pool3d(feature_grid, kernel_size=(2, 2, 1), stride=(2, 2, 1))`,
i.e. a 3-D pool over an unbatched 4-D tensor; the ONNX model it exported did not work, and the commit titled
"Fix average pool 3d on onnx" replaced it with an nn.AvgPool2d on the permuted grid.

Source: https://github.com/ibaiGorordo/Tapir-Pytorch-Inference/commit/cd391cf1b653bee8a61241b5b359ffac952e76fa
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"frame": {2: "height", 3: "width"}}
BLIND = "operators-48"


class TAPIRFeatures(nn.Module):
    def __init__(self, latent_dim=32, highres_dim=16):
        super().__init__()
        # stand-in for resnet_torch: unit_1 (stride 2) and unit_3 (stride 4) outputs
        self.unit_1 = nn.Sequential(nn.Conv2d(3, highres_dim, 3, stride=2, padding=1), nn.ReLU())
        self.unit_3 = nn.Sequential(nn.Conv2d(highres_dim, latent_dim, 3, stride=2, padding=1), nn.ReLU())
        self.extra_convs = nn.Linear(latent_dim, latent_dim)

    def get_feature_grids(self, frame):
        hires = self.unit_1(frame)
        latent = self.unit_3(hires)
        latent = latent.permute(0, 2, 3, 1)
        hires = hires.permute(0, 2, 3, 1)

        latent = self.extra_convs(latent)
        latent = latent / torch.sqrt(
            torch.maximum(
                torch.sum(torch.square(latent), dim=-1, keepdim=True),
                torch.full((), 1e-12, device=latent.device),
            )
        )
        hires = hires / torch.sqrt(
            torch.maximum(
                torch.sum(torch.square(hires), dim=-1, keepdim=True),
                torch.full((), 1e-12, device=hires.device),
            )
        )

        feature_grid = latent.view(1, *latent.shape[1:])
        hires_feats_grid = hires.view(1, *hires.shape[1:])
        return feature_grid, hires_feats_grid

    def forward(self, frame):
        feature_grid, hires_feats_grid = self.get_feature_grids(frame)
        feature_grid_avg = F.avg_pool3d(feature_grid, kernel_size=(2, 2, 1), stride=(2, 2, 1), padding=0)
        pyramid = [hires_feats_grid, feature_grid, feature_grid_avg]
        return tuple(pyramid)


def make_model():
    return TAPIRFeatures().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 128),), (torch.randn(1, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
