"""CompressAI learned image compression (cheng2020 / mean-scale hyperprior): the
GaussianConditional entropy model computes the likelihood of the quantized latent with
`half * torch.erfc(const * inputs)`; exporting the model with torch.onnx.export fails with
"Exporting the operator 'aten::erfc' to ONNX opset version 18 is not supported".
(Analysis/synthesis transforms trimmed to two conv layers each; EntropyBottleneck left out.)

Source: https://github.com/pytorch/pytorch/issues/104392
"""
import torch
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-4"


def lower_bound_fwd(x: Tensor, bound: Tensor) -> Tensor:
    return torch.max(x, bound)


def lower_bound_bwd(x: Tensor, bound: Tensor, grad_output: Tensor):
    pass_through_if = (x >= bound) | (grad_output < 0)
    return pass_through_if * grad_output, None


class LowerBoundFunction(torch.autograd.Function):
    """Autograd function for the `LowerBound` operator."""

    @staticmethod
    def forward(ctx, x, bound):
        ctx.save_for_backward(x, bound)
        return lower_bound_fwd(x, bound)

    @staticmethod
    def backward(ctx, grad_output):
        x, bound = ctx.saved_tensors
        return lower_bound_bwd(x, bound, grad_output)


class LowerBound(nn.Module):
    bound: Tensor

    def __init__(self, bound: float):
        super().__init__()
        self.register_buffer("bound", torch.Tensor([float(bound)]))

    @torch.jit.unused
    def lower_bound(self, x):
        return LowerBoundFunction.apply(x, self.bound)

    def forward(self, x):
        if torch.jit.is_scripting():
            return torch.max(x, self.bound)
        return self.lower_bound(x)


class GaussianConditional(nn.Module):
    def __init__(self, scale_bound=0.11, likelihood_bound=1e-9):
        super().__init__()
        self.lower_bound_scale = LowerBound(scale_bound)
        self.likelihood_lower_bound = LowerBound(likelihood_bound)

    def quantize(self, inputs, mode, means=None):
        outputs = inputs.clone()
        if means is not None:
            outputs -= means
        outputs = torch.round(outputs)
        if mode == "dequantize":
            if means is not None:
                outputs += means
            return outputs
        return outputs.int()

    def _standardized_cumulative(self, inputs: Tensor) -> Tensor:
        half = float(0.5)
        const = float(-(2**-0.5))
        # Using the complementary error function maximizes numerical precision.
        return half * torch.erfc(const * inputs)

    def _likelihood(self, inputs: Tensor, scales: Tensor, means=None) -> Tensor:
        half = float(0.5)
        if means is not None:
            values = inputs - means
        else:
            values = inputs
        scales = self.lower_bound_scale(scales)
        values = torch.abs(values)
        upper = self._standardized_cumulative((half - values) / scales)
        lower = self._standardized_cumulative((-half - values) / scales)
        likelihood = upper - lower
        return likelihood

    def forward(self, inputs, scales, means=None):
        outputs = self.quantize(inputs, "noise" if self.training else "dequantize", means)
        likelihood = self._likelihood(outputs, scales, means)
        likelihood = self.likelihood_lower_bound(likelihood)
        return outputs, likelihood


class MeanScaleHyperprior(nn.Module):
    def __init__(self, N=32, M=48):
        super().__init__()
        self.g_a = nn.Sequential(nn.Conv2d(3, N, 5, 2, 2), nn.GELU(), nn.Conv2d(N, M, 5, 2, 2))
        self.h_a = nn.Sequential(nn.Conv2d(M, N, 3, 1, 1), nn.LeakyReLU(inplace=True), nn.Conv2d(N, N, 5, 2, 2))
        self.h_s = nn.Sequential(nn.ConvTranspose2d(N, M, 5, 2, 2, output_padding=1), nn.LeakyReLU(inplace=True),
                                 nn.Conv2d(M, 2 * M, 3, 1, 1))
        self.g_s = nn.Sequential(nn.ConvTranspose2d(M, N, 5, 2, 2, output_padding=1), nn.GELU(),
                                 nn.ConvTranspose2d(N, 3, 5, 2, 2, output_padding=1))
        self.gaussian_conditional = GaussianConditional()

    def forward(self, x):
        y = self.g_a(x)
        z = self.h_a(y)
        z_hat = torch.round(z)
        gaussian_params = self.h_s(z_hat)
        scales_hat, means_hat = gaussian_params.chunk(2, 1)
        y_hat, y_likelihoods = self.gaussian_conditional(y, scales_hat, means=means_hat)
        x_hat = self.g_s(y_hat)
        return x_hat, y_likelihoods


def make_model():
    return MeanScaleHyperprior().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(2, 3, 96, 128),), (torch.rand(3, 3, 32, 64),)]


def probe_inputs():
    return other_inputs()
