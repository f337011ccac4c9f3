"""anomalib CFA (coupled-hypersphere feature adaptation) anomaly model, inference path: the anomaly map from
`AnomalyMapGenerator` (k-NN score -> rearrange -> bilinear upsample -> Gaussian blur) is returned with a bare
`.squeeze()` and `pred_score = torch.amax(anomaly_map, dim=(-2, -1))`. The report: the exported CFA model
cannot be compiled ("CPU plug-in doesn't support Squeeze operation with dynamic rank. Operation name:
/model/Squeeze"): whether the batch dim is squeezed depends on the runtime batch size, so the output rank is
not fixed; the fix (PR #3315) uses `squeeze(dim=1)`.

Source: https://github.com/open-edge-platform/anomalib/issues/3297
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_tensor": {0: "batch"}}
BLIND = "domains-40"


def compute_kernel_size(sigma_val: float) -> int:
    return 2 * int(4.0 * sigma_val + 0.5) + 1


class GaussianBlur2d(nn.Module):
    """anomalib.models.components.GaussianBlur2d (kornia kernel precomputed at init, reflect padding)."""

    def __init__(self, sigma, channels: int = 1, border_type: str = "reflect"):
        super().__init__()
        ks = compute_kernel_size(sigma)
        x = torch.arange(ks, dtype=torch.float32) - ks // 2
        g = torch.exp(-(x ** 2) / (2 * sigma ** 2))
        g = g / g.sum()
        kernel = torch.outer(g, g)
        self.register_buffer("kernel", kernel.view(1, 1, ks, ks).expand(channels, -1, -1, -1).contiguous())
        self.channels = channels
        self.border_type = border_type
        self.padding_shape = [ks // 2, ks // 2, ks // 2, ks // 2]

    def forward(self, input_tensor):
        batch, channel, height, width = input_tensor.size()
        input_tensor = F.pad(input_tensor, self.padding_shape, mode=self.border_type)
        output = F.conv2d(input_tensor, self.kernel, groups=self.channels, padding=0, stride=1)
        return output.view(batch, channel, height, width)


class AnomalyMapGenerator(nn.Module):
    def __init__(self, num_nearest_neighbors: int, sigma: int = 4) -> None:
        super().__init__()
        self.num_nearest_neighbors = num_nearest_neighbors
        self.sigma = sigma
        self.gaussian_blur = GaussianBlur2d(sigma=self.sigma)

    def compute_score(self, distance, scale):
        distance = torch.sqrt(distance)
        distance = distance.topk(self.num_nearest_neighbors, largest=False).values
        distance = (F.softmin(distance, dim=-1)[:, :, 0]) * distance[:, :, 0]
        distance = distance.unsqueeze(-1)
        # rearrange(distance, "b (h w) c -> b c h w", h=scale[0], w=scale[1])
        score = distance.permute(0, 2, 1).reshape(distance.shape[0], 1, scale[0], scale[1])
        return score.detach()

    def compute_anomaly_map(self, score, image_size=None):
        anomaly_map = score.mean(dim=1, keepdim=True)
        if image_size is not None:
            anomaly_map = F.interpolate(anomaly_map, size=image_size, mode="bilinear", align_corners=False)
        return self.gaussian_blur(anomaly_map)

    def forward(self, **kwargs):
        distance = kwargs["distance"]
        scale = kwargs["scale"]
        image_size = kwargs.get("image_size")
        score = self.compute_score(distance=distance, scale=scale)
        return self.compute_anomaly_map(score, image_size=image_size)


class CfaModel(nn.Module):
    def __init__(self, num_centers=16, channels=32, num_nearest_neighbors=3):
        super().__init__()
        self.feature_extractor = nn.Sequential(nn.Conv2d(3, channels, 3, stride=4, padding=1), nn.ReLU())
        self.descriptor = nn.Conv2d(channels, channels, 1)   # coordinate-conv descriptor stand-in
        self.register_buffer("memory_bank", torch.randn(channels, num_centers))   # "h w -> w h" centroids
        self.anomaly_map_generator = AnomalyMapGenerator(num_nearest_neighbors=num_nearest_neighbors)

    def compute_distance(self, target_oriented_features):
        if target_oriented_features.ndim == 4:
            b, c, h, w = target_oriented_features.shape
            target_oriented_features = target_oriented_features.permute(0, 2, 3, 1).reshape(b, h * w, c)
        features = target_oriented_features.pow(2).sum(dim=2, keepdim=True)
        centers = self.memory_bank.pow(2).sum(dim=0, keepdim=True).to(features.device)
        f_c = 2 * torch.matmul(target_oriented_features, (self.memory_bank.to(features.device)))
        return features + centers - f_c

    def forward(self, input_tensor):
        with torch.no_grad():
            features = self.feature_extractor(input_tensor)
        target_features = self.descriptor(features)
        distance = self.compute_distance(target_features)

        anomaly_map = self.anomaly_map_generator(
            distance=distance,
            scale=target_features.shape[-2:],
            image_size=input_tensor.shape[-2:],
        ).squeeze()
        pred_score = torch.amax(anomaly_map, dim=(-2, -1))
        return pred_score, anomaly_map


def make_model():
    return CfaModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(4, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
