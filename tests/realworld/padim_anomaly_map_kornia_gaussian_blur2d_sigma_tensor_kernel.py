"""anomalib PaDiM anomaly-map generator before the fix: the up-sampled Mahalanobis score map is smoothed with
kornia's `gaussian_blur2d(anomaly_map, (kernel_size, kernel_size), sigma=(sigma, sigma))`, where
`sigma = torch.as_tensor(self.sigma)` and kornia builds the Gaussian kernel inside forward (arange/exp/expand/reshape)
before `F.conv2d(..., groups=...)`. The PR is titled "Fix onnx export by rewriting GaussianBlur" and replaces it by a
GaussianBlur2d module holding a precomputed kernel. kornia 0.6.6's gaussian_blur2d/filter2d code is copied (input
checks dropped); the backbone is left out (the embedding is the input).

Source: https://github.com/open-edge-platform/anomalib/pull/476
"""
from typing import List, Tuple
import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"embedding": {0: "batch"}}
BLIND = "domains-51"


def gaussian(window_size: int, sigma: float) -> torch.Tensor:
    device, dtype = None, None
    if isinstance(sigma, torch.Tensor):
        device, dtype = sigma.device, sigma.dtype
    x = torch.arange(window_size, device=device, dtype=dtype) - window_size // 2
    if window_size % 2 == 0:
        x = x + 0.5
    gauss = torch.exp(-x.pow(2.0) / (2 * sigma**2))
    return gauss / gauss.sum()


def get_gaussian_kernel1d(kernel_size: int, sigma: float, force_even: bool = False) -> torch.Tensor:
    window_1d: torch.Tensor = gaussian(kernel_size, sigma)
    return window_1d


def _compute_padding(kernel_size: List[int]) -> List[int]:
    computed = [k - 1 for k in kernel_size]
    out_padding = 2 * len(kernel_size) * [0]
    for i in range(len(kernel_size)):
        computed_tmp = computed[-(i + 1)]
        pad_front = computed_tmp // 2
        pad_rear = computed_tmp - pad_front
        out_padding[2 * i + 0] = pad_front
        out_padding[2 * i + 1] = pad_rear
    return out_padding


def filter2d(input, kernel, border_type='reflect', normalized=False, padding='same'):
    b, c, h, w = input.shape
    tmp_kernel: torch.Tensor = kernel.unsqueeze(1).to(input)
    tmp_kernel = tmp_kernel.expand(-1, c, -1, -1)
    height, width = tmp_kernel.shape[-2:]
    if padding == 'same':
        padding_shape: List[int] = _compute_padding([height, width])
        input = F.pad(input, padding_shape, mode=border_type)
    tmp_kernel = tmp_kernel.reshape(-1, 1, height, width)
    input = input.view(-1, tmp_kernel.size(0), input.size(-2), input.size(-1))
    output = F.conv2d(input, tmp_kernel, groups=tmp_kernel.size(0), padding=0, stride=1)
    if padding == 'same':
        out = output.view(b, c, h, w)
    else:
        out = output.view(b, c, h - height + 1, w - width + 1)
    return out


def filter2d_separable(input, kernel_x, kernel_y, border_type='reflect', normalized=False, padding='same'):
    out_x = filter2d(input, kernel_x.unsqueeze(0), border_type, normalized, padding)
    out = filter2d(out_x, kernel_y.unsqueeze(-1), border_type, normalized, padding)
    return out


def gaussian_blur2d(input, kernel_size: Tuple[int, int], sigma, border_type='reflect', separable=True):
    kernel_x: torch.Tensor = get_gaussian_kernel1d(kernel_size[1], sigma[1])
    kernel_y: torch.Tensor = get_gaussian_kernel1d(kernel_size[0], sigma[0])
    out = filter2d_separable(input, kernel_x[None], kernel_y[None], border_type)
    return out


class AnomalyMapGenerator:
    def __init__(self, image_size, sigma: int = 4):
        self.image_size = image_size if isinstance(image_size, tuple) else tuple(image_size)
        self.sigma = sigma

    @staticmethod
    def compute_distance(embedding: Tensor, stats: List[Tensor]) -> Tensor:
        batch, channel, height, width = embedding.shape
        embedding = embedding.reshape(batch, channel, height * width)
        mean, inv_covariance = stats
        delta = (embedding - mean).permute(2, 0, 1)
        distances = (torch.matmul(delta, inv_covariance) * delta).sum(2).permute(1, 0)
        distances = distances.reshape(batch, height, width)
        distances = distances.clamp(0).sqrt()
        return distances

    def up_sample(self, distance: Tensor) -> Tensor:
        return F.interpolate(distance.unsqueeze(1), size=self.image_size, mode="bilinear", align_corners=False)

    def smooth_anomaly_map(self, anomaly_map: Tensor) -> Tensor:
        kernel_size = 2 * int(4.0 * self.sigma + 0.5) + 1
        sigma = torch.as_tensor(self.sigma).to(anomaly_map.device)
        anomaly_map = gaussian_blur2d(anomaly_map, (kernel_size, kernel_size), sigma=(sigma, sigma))
        return anomaly_map

    def compute_anomaly_map(self, embedding, mean, inv_covariance):
        score_map = self.compute_distance(embedding=embedding, stats=[mean.to(embedding.device), inv_covariance.to(embedding.device)])
        up_sampled_score_map = self.up_sample(score_map)
        return self.smooth_anomaly_map(up_sampled_score_map)

    def __call__(self, **kwds):
        return self.compute_anomaly_map(kwds["embedding"], kwds["mean"], kwds["inv_covariance"])


class PadimHead(nn.Module):
    def __init__(self, channels=8, hw=8, image_size=(64, 64)):
        super().__init__()
        self.register_buffer("mean", torch.randn(channels, hw * hw))
        a = torch.randn(hw * hw, channels, channels)
        self.register_buffer("inv_covariance", a @ a.transpose(1, 2) / channels + torch.eye(channels))
        self.anomaly_map_generator = AnomalyMapGenerator(image_size=image_size)

    def forward(self, embedding):
        return self.anomaly_map_generator(embedding=embedding, mean=self.mean, inv_covariance=self.inv_covariance)


def make_model():
    return PadimHead()


def example_inputs():
    return (torch.randn(2, 8, 8, 8),)


def other_inputs():
    return [(torch.randn(3, 8, 8, 8),), (torch.randn(1, 8, 8, 8),)]


def probe_inputs():
    return other_inputs()
