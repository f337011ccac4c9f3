"""BRISQUE image-quality score (piq): the generalized-Gaussian fit builds its lookup table with
`torch.lgamma(1. / gamma) + torch.lgamma(3. / gamma) - 2. * torch.lgamma(2. / gamma)`; ONNX export
fails because there is no symbolic for lgamma.

Source: https://github.com/Tencent/ncnn/issues/2807
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-1"


def _ggd_parameters(x):
    gamma = torch.arange(0.2, 10 + 0.001, 0.001).to(x)
    r_table = (torch.lgamma(1. / gamma) + torch.lgamma(3. / gamma) - 2. * torch.lgamma(2. / gamma)).exp()
    r_table = r_table.repeat(x.size(0), 1)

    sigma_sq = x.pow(2).mean(dim=(-1, -2))
    sigma = sigma_sq.sqrt().squeeze(dim=-1)

    E = x.abs().mean(dim=(-1, -2))
    rho = sigma_sq / E ** 2

    indexes = (rho - r_table).abs().argmin(dim=-1)
    solution = gamma[indexes]
    return solution, sigma


def _gaussian_kernel2d(kernel_size=7, sigma=7 / 6):
    coords = torch.arange(kernel_size, dtype=torch.float32) - (kernel_size - 1) / 2.0
    g = coords ** 2
    g = (-(g.unsqueeze(0) + g.unsqueeze(1)) / (2 * sigma ** 2)).exp()
    return (g / g.sum()).unsqueeze(0).unsqueeze(0)


class BRISQUEFeatures(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("kernel", _gaussian_kernel2d())

    def forward(self, x):
        C = 1
        mu = F.conv2d(x, self.kernel, padding=3)
        mu_sq = mu ** 2
        std = F.conv2d(x ** 2, self.kernel, padding=3)
        std = ((std - mu_sq).abs().sqrt())
        luminance_nrmlzd = (x - mu) / (std + C)
        alpha, sigma = _ggd_parameters(luminance_nrmlzd)
        return torch.stack((alpha, sigma.pow(2)), dim=-1)


def make_model():
    return BRISQUEFeatures()


def example_inputs():
    return (torch.rand(2, 1, 32, 32),)


def other_inputs():
    return [(torch.rand(3, 1, 40, 24),), (torch.rand(1, 1, 17, 29),)]


def probe_inputs():
    return other_inputs()
