"""LightGlue-ONNX's ALIKED descriptor (RaCo-ALIKED extractor): the image scale is built with
`image.new_tensor([image.shape[-1] - 1, image.shape[-2] - 1])` and SparseDescriptorHead loops
`for index in range(batch)` over the images, clamps offsets with `max(height, width)` and stacks the per-image
descriptors; the commit "feat: modernize dynamic batched exports" rewrote these (shape_as_tensor, one batched
gather/grid_sample) so that the export keeps a dynamic batch and image size.
(The dense ALIKED backbone is reduced to two convs; descriptor width 32 instead of 128.)

Source: https://github.com/fabio-sim/LightGlue-ONNX/commit/16ccc786573bad5662a1c8573fb07ec3f6b753ba
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "keypoints": {0: "batch", 1: "num_keypoints"}}
BLIND = "domains-64"


def _get_patches(tensor: torch.Tensor, keypoints: torch.Tensor, size: int) -> torch.Tensor:
    channels, height, width = tensor.shape
    corners = (keypoints - size / 2 + 1).long()
    x_corner = corners[:, 0].clamp(0, width - 1 - size)
    y_corner = corners[:, 1].clamp(0, height - 1 - size)
    offset = torch.arange(size, device=tensor.device)
    y, x = torch.meshgrid(offset, offset, indexing="ij")
    x = x[..., None] + x_corner
    y = y[..., None] + y_corner
    sampled = tensor[:, y, x].permute(3, 0, 1, 2)
    return sampled.reshape(keypoints.shape[0], channels, size, size)


class SparseDescriptorHead(nn.Module):
    def __init__(self, dimensions: int = 128, kernel_size: int = 3, positions: int = 16) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.positions = positions
        self.offset_conv = nn.Sequential(
            nn.Conv2d(dimensions, 2 * positions, kernel_size),
            nn.SELU(inplace=True),
            nn.Conv2d(2 * positions, 2 * positions, 1),
        )
        self.sf_conv = nn.Conv2d(dimensions, dimensions, 1, bias=False)
        self.agg_weights = nn.Parameter(torch.rand(positions, dimensions, dimensions))

    def forward(self, features: torch.Tensor, keypoints: torch.Tensor) -> torch.Tensor:
        batch, channels, height, width = features.shape
        scale = features.new_tensor([width - 1, height - 1])
        descriptors: list[torch.Tensor] = []
        for index in range(batch):
            points = keypoints[index]
            pixel_points = (points / 2 + 0.5) * scale
            # ALIKED intentionally quantizes patch centers before estimating offsets.
            patches = _get_patches(features[index], pixel_points.long(), self.kernel_size)
            offsets = self.offset_conv(patches).clamp(-max(height, width) / 4.0, max(height, width) / 4.0)
            offsets = offsets[:, :, 0, 0].reshape(points.shape[0], 2, self.positions).transpose(1, 2)
            positions = pixel_points[:, None] + offsets
            positions = (2 * positions / scale - 1).reshape(1, -1, 1, 2)
            sampled = F.grid_sample(features[index : index + 1], positions, mode="bilinear", align_corners=True)
            sampled = sampled.reshape(channels, points.shape[0], self.positions, 1).permute(1, 0, 2, 3)
            sampled = F.selu(self.sf_conv(sampled)).squeeze(-1)
            descriptor = torch.einsum("ncp,pcd->nd", sampled, self.agg_weights)
            descriptors.append(F.normalize(descriptor, p=2, dim=1))
        return torch.stack(descriptors)


class ALIKEDDescriptor(nn.Module):
    def __init__(self, dimensions: int = 32) -> None:
        super().__init__()
        self.gate = nn.SELU(inplace=True)
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, dimensions, 3, padding=1)
        self.desc_head = SparseDescriptorHead(dimensions=dimensions)

    def _dense_features(self, image: torch.Tensor) -> torch.Tensor:
        features = self.conv2(self.gate(self.conv1(image)))
        return F.normalize(features, p=2, dim=1)

    def forward(self, image: torch.Tensor, keypoints: torch.Tensor) -> torch.Tensor:
        scale = image.new_tensor([image.shape[-1] - 1, image.shape[-2] - 1])
        normalized_keypoints = 2 * keypoints / scale - 1
        return self.desc_head(self._dense_features(image), normalized_keypoints)


def make_model():
    return ALIKEDDescriptor().eval()


def _inputs(b, h, w, n):
    keypoints = torch.rand(b, n, 2) * torch.tensor([w - 1.0, h - 1.0])
    return (torch.rand(b, 3, h, w), keypoints)


def example_inputs():
    return _inputs(2, 48, 64, 20)


def other_inputs():
    return [_inputs(3, 64, 40, 12), _inputs(1, 40, 56, 30)]


def probe_inputs():
    return other_inputs()
