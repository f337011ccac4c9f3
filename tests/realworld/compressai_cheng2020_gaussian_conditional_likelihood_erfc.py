"""CompressAI Cheng2020 learned image codec (a hyperprior VAE): the GaussianConditional entropy model computes
the y likelihoods with `_standardized_cumulative`, i.e. `half * torch.erfc(const * inputs)`, and the
ONNX export of the Cheng2020 model requested in the report fails on that erfc (no ONNX symbolic for aten::erfc).

Source: https://github.com/InterDigitalInc/CompressAI/issues/296
"""
import torch
import torch.nn as nn
from torch import Tensor

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-16"


def conv3x3(in_ch, out_ch, stride=1):
    return nn.Conv2d(in_ch, out_ch, kernel_size=3, stride=stride, padding=1)


def subpel_conv3x3(in_ch, out_ch, r=1):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch * r ** 2, kernel_size=3, padding=1), nn.PixelShuffle(r))


class LowerBoundFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, bound):
        ctx.save_for_backward(x, bound)
        return torch.max(x, bound)

    @staticmethod
    def backward(ctx, grad_output):
        x, bound = ctx.saved_tensors
        pass_through_if = (x >= bound) | (grad_output < 0)
        return pass_through_if * grad_output, None


class LowerBound(nn.Module):
    def __init__(self, bound: float):
        super().__init__()
        self.register_buffer("bound", torch.Tensor([float(bound)]))

    def forward(self, x):
        return LowerBoundFunction.apply(x, self.bound)


class GaussianConditional(nn.Module):
    def __init__(self, scale_bound=0.11, likelihood_bound=1e-9):
        super().__init__()
        self.lower_bound_scale = LowerBound(scale_bound)
        self.likelihood_lower_bound = LowerBound(likelihood_bound)

    def _standardized_cumulative(self, inputs: Tensor) -> Tensor:
        half = float(0.5)
        const = float(-(2**-0.5))
        # Using the complementary error function maximizes numerical precision.
        return half * torch.erfc(const * inputs)

    def _likelihood(self, inputs, scales, means=None):
        half = float(0.5)
        values = inputs - means if means is not None else inputs
        scales = self.lower_bound_scale(scales)
        values = torch.abs(values)
        upper = self._standardized_cumulative((half - values) / scales)
        lower = self._standardized_cumulative((-half - values) / scales)
        return upper - lower

    def forward(self, inputs, scales, means=None):
        outputs = inputs.clone()
        if means is not None:
            outputs -= means
        outputs = torch.round(outputs)
        if means is not None:
            outputs += means
        likelihood = self.likelihood_lower_bound(self._likelihood(outputs, scales, means))
        return outputs, likelihood


class Cheng2020Hyperprior(nn.Module):
    def __init__(self, N=32):
        super().__init__()
        self.g_a = nn.Sequential(conv3x3(3, N, 2), nn.LeakyReLU(inplace=True), conv3x3(N, N, 2))
        self.h_a = nn.Sequential(conv3x3(N, N), nn.LeakyReLU(inplace=True), conv3x3(N, N, 2))
        self.h_s = nn.Sequential(subpel_conv3x3(N, N, 2), nn.LeakyReLU(inplace=True), conv3x3(N, N * 2))
        self.g_s = nn.Sequential(subpel_conv3x3(N, N, 2), nn.LeakyReLU(inplace=True), subpel_conv3x3(N, 3, 2))
        self.gaussian_conditional = GaussianConditional()

    def forward(self, x):
        y = self.g_a(x)
        z = self.h_a(y)
        z_hat = torch.round(z)
        params = self.h_s(z_hat)
        scales_hat, means_hat = params.chunk(2, 1)
        y_hat, y_likelihoods = self.gaussian_conditional(y, scales_hat, means=means_hat)
        x_hat = self.g_s(y_hat)
        return x_hat, y_likelihoods


def make_model():
    return Cheng2020Hyperprior().eval()


def example_inputs():
    return (torch.rand(1, 3, 32, 32),)


def other_inputs():
    return [(torch.rand(2, 3, 48, 40),), (torch.rand(3, 3, 24, 64),)]


def probe_inputs():
    return other_inputs()
