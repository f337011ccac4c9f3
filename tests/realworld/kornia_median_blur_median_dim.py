"""kornia's `median_blur` (a median filter for denoising / cleaning predicted maps) gathers each KxK window with a
binary-kernel conv and takes `features.median(dim=2)[0]`; `aten::median` has no ONNX export, which kornia's
dynamo-export coverage PR lists among the failing operators (it switches median_blur to a sort-based median).

Source: https://github.com/kornia/kornia/pull/4182
"""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-3"


# ---- kornia/filters/median.py + kernels.py, checks dropped ----
def _unpack_2d_ks(kernel_size):
    if isinstance(kernel_size, int):
        ky = kx = kernel_size
    else:
        ky, kx = kernel_size
    return int(ky), int(kx)


def _compute_zero_padding(kernel_size):
    ky, kx = _unpack_2d_ks(kernel_size)
    return (ky - 1) // 2, (kx - 1) // 2


def get_binary_kernel2d(window_size, *, device=None, dtype=torch.float32) -> Tensor:
    ky, kx = _unpack_2d_ks(window_size)
    window_range = kx * ky
    kernel = torch.zeros((window_range, window_range), device=device, dtype=dtype)
    idx = torch.arange(window_range, device=device)
    kernel[idx, idx] += 1.0
    return kernel.view(window_range, 1, ky, kx)


def median_blur(input: Tensor, kernel_size) -> Tensor:
    padding = _compute_zero_padding(kernel_size)

    # prepare kernel
    kernel: Tensor = get_binary_kernel2d(kernel_size, device=input.device, dtype=input.dtype)
    b, c, h, w = input.shape

    # map the local window to single vector
    features: Tensor = F.conv2d(input.reshape(b * c, 1, h, w), kernel, padding=padding, stride=1)
    features = features.view(b, c, -1, h, w)  # BxCx(K_h * K_w)xHxW

    # compute the median along the feature axis
    return features.median(dim=2)[0]


class MedianBlur(nn.Module):
    def __init__(self, kernel_size) -> None:
        super().__init__()
        self.kernel_size = kernel_size

    def forward(self, input: Tensor) -> Tensor:
        return median_blur(input, self.kernel_size)


class DenoiseHead(nn.Module):
    """A small restoration net whose output is cleaned with kornia.filters.MedianBlur((3, 3))."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 3, padding=1))
        self.median = MedianBlur((3, 3))

    def forward(self, x):
        return self.median(x - self.body(x))


def make_model():
    return DenoiseHead().eval()


def example_inputs():
    return (torch.rand(1, 3, 32, 48),)


def other_inputs():
    return [(torch.rand(2, 3, 40, 24),), (torch.rand(3, 3, 17, 29),)]


def probe_inputs():
    return other_inputs()
