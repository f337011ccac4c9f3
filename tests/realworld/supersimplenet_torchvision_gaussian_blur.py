"""SuperSimpleNet (surface-defect detection / anomaly segmentation) upsamples its anomaly map and smooths it with
torchvision's `GaussianBlur(kernel_size=2 * ceil(3 * sigma) + 1, sigma=4)`; torchvision builds the Gaussian kernel
in forward, expands it by the image's channel count, reflect-pads and calls conv2d, and the ONNX export fails with
"Unsupported: ONNX export of convolution for kernel of unknown shape".

Source: https://github.com/blaz-r/SuperSimpleNet/issues/10
"""
import math
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"features": {0: "batch"}}
BLIND = "operators-3"


# ---- torchvision.transforms (GaussianBlur) and functional_tensor.gaussian_blur, checks dropped ----
def _get_gaussian_kernel1d(kernel_size: int, sigma: float) -> Tensor:
    ksize_half = (kernel_size - 1) * 0.5
    x = torch.linspace(-ksize_half, ksize_half, steps=kernel_size)
    pdf = torch.exp(-0.5 * (x / sigma).pow(2))
    kernel1d = pdf / pdf.sum()
    return kernel1d


def _get_gaussian_kernel2d(kernel_size: List[int], sigma: List[float], dtype, device) -> Tensor:
    kernel1d_x = _get_gaussian_kernel1d(kernel_size[0], sigma[0]).to(device, dtype=dtype)
    kernel1d_y = _get_gaussian_kernel1d(kernel_size[1], sigma[1]).to(device, dtype=dtype)
    kernel2d = torch.mm(kernel1d_y[:, None], kernel1d_x[None, :])
    return kernel2d


def gaussian_blur(img: Tensor, kernel_size: List[int], sigma: List[float]) -> Tensor:
    dtype = img.dtype if torch.is_floating_point(img) else torch.float32
    kernel = _get_gaussian_kernel2d(kernel_size, sigma, dtype=dtype, device=img.device)
    kernel = kernel.expand(img.shape[-3], 1, kernel.shape[0], kernel.shape[1])
    # padding = (left, right, top, bottom)
    padding = [kernel_size[0] // 2, kernel_size[0] // 2, kernel_size[1] // 2, kernel_size[1] // 2]
    img = F.pad(img, padding, mode="reflect")
    img = F.conv2d(img, kernel, groups=img.shape[-3])
    return img


class GaussianBlur(nn.Module):
    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
        self.sigma = (float(sigma), float(sigma)) if isinstance(sigma, (int, float)) else sigma

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float) -> float:
        return torch.empty(1).uniform_(sigma_min, sigma_max).item()

    def forward(self, img: Tensor) -> Tensor:
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return gaussian_blur(img, self.kernel_size, [sigma, sigma])


# ---- SuperSimpleNet model/supersimplenet.py (eval path, feature extractor left out) ----
class Discriminator(nn.Module):
    """Segmentation head only (the image-score head is left out)."""

    def __init__(self, projection_dim: int, hidden_dim: int):
        super().__init__()
        self.seg = nn.Sequential(
            nn.Conv2d(projection_dim, hidden_dim, kernel_size=1, stride=1),
            nn.BatchNorm2d(hidden_dim),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(hidden_dim, 1, kernel_size=1, stride=1, bias=False),
        )

    def forward(self, input: Tensor) -> Tensor:
        map = self.seg(input)
        return map


class AnomalyMapGenerator(nn.Module):
    def __init__(self, output_size, sigma: float):
        super().__init__()
        self.size = output_size
        kernel_size = 2 * math.ceil(3 * sigma) + 1
        self.blur = GaussianBlur(kernel_size=kernel_size, sigma=4)

    def forward(self, input: Tensor) -> Tensor:
        # upscale & smooth
        anomaly_map = F.interpolate(input, size=self.size, mode="bilinear")
        anomaly_map = self.blur(anomaly_map)
        return anomaly_map


class SuperSimpleNetHead(nn.Module):
    def __init__(self, fc=64, image_size=(64, 64)):
        super().__init__()
        self.feature_adaptor = nn.Conv2d(fc, fc, kernel_size=1, stride=1)
        self.discriminator = Discriminator(projection_dim=fc, hidden_dim=128)
        self.anomaly_map_generator = AnomalyMapGenerator(output_size=image_size, sigma=4)

    def forward(self, features: Tensor):
        adapted = self.feature_adaptor(features)
        anomaly_map = self.discriminator(adapted)
        anomaly_map = self.anomaly_map_generator(anomaly_map)
        return anomaly_map


def make_model():
    return SuperSimpleNetHead().eval()


def example_inputs():
    return (torch.randn(2, 64, 8, 8),)


def other_inputs():
    return [(torch.randn(1, 64, 8, 8),), (torch.randn(4, 64, 8, 8),)]


def probe_inputs():
    return other_inputs()
