"""anomalib's Reverse Distillation anomaly-map generator smooths the map with kornia's GaussianBlur2d, built in
forward from (kernel_size, sigma): kornia makes the Gaussian kernel from `sigma` and `filter2d` expands/reshapes it
by the input's channel count before `F.conv2d`; the ONNX export fails with "Unsupported: ONNX export of convolution
for kernel of unknown shape" at kornia/filters/filter.py (the reshape of the kernel).

Source: https://github.com/open-edge-platform/anomalib/issues/1513
"""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "operators-3"


# ---- kornia 0.7.2 (kornia/filters/kernels.py, gaussian.py, filter.py), checks dropped ----
def _compute_padding(kernel_size):
    computed = [k - 1 for k in kernel_size]
    out_padding = 2 * len(kernel_size) * [0]
    for i in range(len(kernel_size)):
        computed_tmp = computed[-(i + 1)]
        pad_front = computed_tmp // 2
        pad_rear = computed_tmp - pad_front
        out_padding[2 * i + 0] = pad_front
        out_padding[2 * i + 1] = pad_rear
    return out_padding


def gaussian(window_size: int, sigma, *, device=None, dtype=None) -> Tensor:
    if isinstance(sigma, float):
        sigma = torch.tensor([[sigma]], device=device, dtype=dtype)
    batch_size = sigma.shape[0]
    x = (torch.arange(window_size, device=sigma.device, dtype=sigma.dtype) - window_size // 2).expand(batch_size, -1)
    if window_size % 2 == 0:
        x = x + 0.5
    gauss = torch.exp(-x.pow(2.0) / (2 * sigma.pow(2.0)))
    return gauss / gauss.sum(-1, keepdim=True)


def get_gaussian_kernel1d(kernel_size: int, sigma, force_even: bool = False, *, device=None, dtype=None) -> Tensor:
    return gaussian(kernel_size, sigma, device=device, dtype=dtype)


def filter2d(input: Tensor, kernel: Tensor, border_type: str = "reflect", normalized: bool = False,
             padding: str = "same", behaviour: str = "corr") -> Tensor:
    b, c, h, w = input.shape
    if str(behaviour).lower() == "conv":
        tmp_kernel = kernel.flip((-2, -1))[:, None, ...].to(device=input.device, dtype=input.dtype)
    else:
        tmp_kernel = kernel[:, None, ...].to(device=input.device, dtype=input.dtype)
    tmp_kernel = tmp_kernel.expand(-1, c, -1, -1)
    height, width = tmp_kernel.shape[-2:]
    if padding == "same":
        padding_shape = _compute_padding([height, width])
        input = F.pad(input, padding_shape, mode=border_type)
    # kernel and input tensor reshape to align element-wise or batch-wise params
    tmp_kernel = tmp_kernel.reshape(-1, 1, height, width)
    input = input.view(-1, tmp_kernel.size(0), input.size(-2), input.size(-1))
    # convolve the tensor with the kernel.
    output = F.conv2d(input, tmp_kernel, groups=tmp_kernel.size(0), padding=0, stride=1)
    if padding == "same":
        out = output.view(b, c, h, w)
    else:
        out = output.view(b, c, h - height + 1, w - width + 1)
    return out


def filter2d_separable(input, kernel_x, kernel_y, border_type="reflect", normalized=False, padding="same"):
    out_x = filter2d(input, kernel_x[..., None, :], border_type, normalized, padding)
    out = filter2d(out_x, kernel_y[..., None], border_type, normalized, padding)
    return out


def gaussian_blur2d(input, kernel_size, sigma, border_type="reflect", separable=True):
    if isinstance(sigma, tuple):
        sigma = torch.tensor([sigma], device=input.device, dtype=input.dtype)
    else:
        sigma = sigma.to(device=input.device, dtype=input.dtype)
    ky, kx = kernel_size
    bs = sigma.shape[0]
    kernel_x = get_gaussian_kernel1d(kx, sigma[:, 1].view(bs, 1))
    kernel_y = get_gaussian_kernel1d(ky, sigma[:, 0].view(bs, 1))
    return filter2d_separable(input, kernel_x, kernel_y, border_type)


class GaussianBlur2d(nn.Module):
    def __init__(self, kernel_size, sigma, border_type="reflect", separable=True):
        super().__init__()
        self.kernel_size = kernel_size
        self.sigma = sigma
        self.border_type = border_type
        self.separable = separable

    def forward(self, input: Tensor) -> Tensor:
        return gaussian_blur2d(input, self.kernel_size, self.sigma, self.border_type, self.separable)


# ---- anomalib reverse_distillation/anomaly_map.py (MULTIPLY mode) ----
class AnomalyMapGenerator(nn.Module):
    def __init__(self, image_size, sigma: int = 4):
        super().__init__()
        self.image_size = image_size if isinstance(image_size, tuple) else tuple(image_size)
        self.sigma = sigma
        self.kernel_size = 2 * int(4.0 * sigma + 0.5) + 1

    def forward(self, student_features, teacher_features):
        anomaly_map = torch.ones([student_features[0].shape[0], 1, *self.image_size],
                                 device=student_features[0].device)
        for student_feature, teacher_feature in zip(student_features, teacher_features):
            distance_map = 1 - F.cosine_similarity(student_feature, teacher_feature)
            distance_map = torch.unsqueeze(distance_map, dim=1)
            distance_map = F.interpolate(distance_map, size=self.image_size, mode="bilinear", align_corners=True)
            anomaly_map *= distance_map

        gaussian_blur = GaussianBlur2d(
            kernel_size=(self.kernel_size, self.kernel_size),
            sigma=(self.sigma, self.sigma),
        ).to(student_features[0].device)

        return gaussian_blur(anomaly_map)


class ReverseDistillationModel(nn.Module):
    """Teacher encoder / student decoder stand-ins (two feature scales) + the anomaly map generator."""

    def __init__(self, image_size=(64, 64)):
        super().__init__()
        self.encoder = nn.ModuleList([nn.Conv2d(3, 16, 3, 2, 1), nn.Conv2d(16, 32, 3, 2, 1)])
        self.bottleneck = nn.Conv2d(32, 32, 1)
        self.decoder = nn.ModuleList([nn.ConvTranspose2d(32, 16, 2, 2), nn.Conv2d(32, 32, 3, 1, 1)])
        self.anomaly_map_generator = AnomalyMapGenerator(image_size=image_size)

    def forward(self, images):
        e1 = torch.relu(self.encoder[0](images))
        e2 = torch.relu(self.encoder[1](e1))
        b = self.bottleneck(e2)
        d2 = self.decoder[1](b)
        d1 = self.decoder[0](d2)
        return self.anomaly_map_generator([e1, e2], [d1, d2])


def make_model():
    return ReverseDistillationModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 64),), (torch.randn(5, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
