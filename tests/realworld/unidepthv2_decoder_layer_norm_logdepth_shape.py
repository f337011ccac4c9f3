"""UniDepthV2 (metric depth + camera, 3D reconstruction from one image): the decoder normalizes the predicted
log-depth map with `F.layer_norm(logdepth, logdepth.shape[1:])` before applying the global scale/shift; running
the repository's ONNX export (`export.py --with-camera`, batch dynamic) fails with an error about `prim::ListConstruct`
(the traced shape list is not constant), and the maintainer's "amend v2 onnx export" commit replaced it with
`shapes = [int(x) for x in logdepth.shape[-2:]]`.

Source: https://github.com/lpiccinelli-eth/UniDepth/issues/61
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"rgbs": {0: "batch"}}
BLIND = "domains-46"


class GlobalHead(nn.Module):
    # trimmed: pooled tokens -> (scale, shift) per image
    def __init__(self, hidden_dim=32):
        super().__init__()
        self.out = nn.Sequential(nn.Linear(hidden_dim, hidden_dim), nn.GELU(), nn.Linear(hidden_dim, 2))

    def get_scaleshift(self, x):
        scale, shift = torch.chunk(x, 2, dim=1)
        scale = scale.exp().reshape(-1, 1, 1, 1)
        shift = shift.reshape(-1, 1, 1, 1)
        return scale, shift

    def forward(self, cls_tokens):
        x = self.out(cls_tokens)
        scale, shift = self.get_scaleshift(x)
        return scale, shift


class Decoder(nn.Module):
    # trimmed: patch features (1/14) -> log-depth and confidence at the input resolution
    def __init__(self, hidden_dim=32):
        super().__init__()
        self.global_layer = GlobalHead(hidden_dim)
        self.depth_layer = nn.Sequential(nn.Conv2d(hidden_dim, hidden_dim, 3, padding=1), nn.GELU())
        self.to_depth = nn.Conv2d(hidden_dim, 1, 1)
        self.to_confidence = nn.Conv2d(hidden_dim, 1, 1)

    def forward(self, features, H, W):
        dtype = features.dtype
        scale, shift = self.global_layer(features.mean(dim=(2, 3)))
        latents = self.depth_layer(features)
        latents = F.interpolate(latents, size=(H, W), mode="bilinear")
        logdepth = self.to_depth(latents)
        confidence = torch.sigmoid(self.to_confidence(latents))
        logdepth = logdepth.to(torch.float32, non_blocking=True)

        # norm in log space, why performs better?
        depth_normalized = F.layer_norm(logdepth, logdepth.shape[1:]).exp()

        depth = (depth_normalized + shift) * scale  # shift is scale invariant if we do (x + mu) * sigma
        depth = F.softplus(depth, beta=10.0).to(dtype, non_blocking=True)
        return depth, confidence


class UniDepthV2ONNX(nn.Module):
    def __init__(self, hidden_dim=32):
        super().__init__()
        self.pixel_encoder = nn.Conv2d(3, hidden_dim, kernel_size=14, stride=14)  # ViT-14 patch features
        self.pixel_decoder = Decoder(hidden_dim)

    def forward(self, rgbs):
        H, W = rgbs.shape[-2:]
        features = self.pixel_encoder(rgbs)
        depth, confidence = self.pixel_decoder(features, H, W)
        return depth, confidence


def make_model():
    return UniDepthV2ONNX().eval()


def example_inputs():
    return (torch.rand(2, 3, 42, 56),)


def other_inputs():
    return [(torch.rand(1, 3, 42, 56),), (torch.rand(3, 3, 42, 56),)]


def probe_inputs():
    return other_inputs()
