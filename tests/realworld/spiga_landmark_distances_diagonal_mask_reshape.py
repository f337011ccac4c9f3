"""SPIGA face-landmark GNN: the relative-position features are `dist[:, self.diagonal_mask, :].reshape(B, L, -1)`
with a boolean (L x L) diagonal mask kept as a frozen Parameter; users converting SPIGA to ONNX report that the
conversion breaks at this reshape in spiga.py (the mask-indexed tensor's shape is not known to the graph).

Source: https://github.com/andresprados/SPIGA/issues/17
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"pts_proj": {0: "batch"}}
BLIND = "domains-10"


def MLP(channels):
    layers = []
    for i in range(1, len(channels)):
        layers.append(nn.Conv1d(channels[i - 1], channels[i], kernel_size=1, bias=True))
        if i < len(channels) - 1:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class RelativePositionEncoder(nn.Module):
    def __init__(self, input_dim, feature_dim, layers):
        super().__init__()
        self.encoder = MLP([input_dim] + layers + [feature_dim])

    def forward(self, feature):
        feature = feature.transpose(-1, -2)
        return self.encoder(feature).transpose(-1, -2)


class SPIGAShapeFeatures(nn.Module):
    def __init__(self, num_landmarks=98, embedded_dim=64):
        super().__init__()
        self.num_landmarks = num_landmarks
        shape_dim = 2 * (self.num_landmarks - 1)
        self.shape_encoder = RelativePositionEncoder(shape_dim, embedded_dim, [32, 32])
        # Diagonal mask used to compute relative positions
        diagonal_mask = (torch.ones(self.num_landmarks, self.num_landmarks) - torch.eye(self.num_landmarks)).type(torch.bool)
        self.diagonal_mask = nn.parameter.Parameter(diagonal_mask, requires_grad=False)

    def calculate_distances(self, pts_proj):
        B, L, _ = pts_proj.shape    # BxLx2
        pts_a = pts_proj.unsqueeze(-2).repeat(1, 1, L, 1)
        pts_b = pts_a.transpose(1, 2)
        dist = pts_a - pts_b
        dist_wo_self = dist[:, self.diagonal_mask, :].reshape(B, L, -1)
        return dist_wo_self

    def forward(self, pts_proj):
        shape_ft = self.calculate_distances(pts_proj)
        shape_ft = self.shape_encoder(shape_ft)
        return shape_ft


def make_model():
    return SPIGAShapeFeatures().eval()


def example_inputs():
    return (torch.rand(2, 98, 2),)


def other_inputs():
    return [(torch.rand(5, 98, 2),), (torch.rand(1, 98, 2),)]


def probe_inputs():
    return other_inputs()
