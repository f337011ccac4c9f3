"""jammy_flows (normalizing flows for physics inference, e.g. IceCube): the interval "o" flow evaluates a rational
quadratic spline that first checks `if torch.min(inputs) < left or torch.max(inputs) > right: raise Exception(...)`
and whose `searchsorted` helper bumps the last bin edge in place; the torch.compile-support PR removed the
boundary check (and made the bump out of place) so the flow could be compiled.

Source: https://github.com/thoglu/jammy_flows/pull/8
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}, "cond": {0: "batch"}}
BLIND = "domains-40"


def searchsorted(bin_locations, inputs, eps=1e-6):
    bin_locations[..., -1] += eps
    return torch.sum(
        inputs >= bin_locations,
        dim=-1,
        keepdims=True
    ) - 1


def rational_quadratic_spline(inputs,
                              unnormalized_widths,
                              unnormalized_heights,
                              unnormalized_derivatives,
                              inverse=False,
                              left=0., right=1., bottom=0., top=1.,
                              rel_min_bin_width=1e-3,
                              rel_min_bin_height=1e-3,
                              min_derivative=1e-3):

        if torch.min(inputs) < left or torch.max(inputs) > right:

            raise Exception("outside boundaries in rational-spline flow! (min/max (%.2f/%.2f), allowed: (%.2f/%.2f)" % (torch.min(inputs), torch.max(inputs), left, right))

        num_bins = unnormalized_widths.shape[-1]

        widths = F.softmax(unnormalized_widths, dim=-1)
        widths = rel_min_bin_width + (1 - rel_min_bin_width * num_bins) * widths
        cumwidths = torch.cumsum(widths, dim=-1)
        cumwidths = F.pad(cumwidths, pad=(1,0), mode='constant', value=0.0)
        cumwidths = (right - left) * cumwidths + left
        cumwidths[..., 0] = left
        cumwidths[..., -1] = right
        widths = cumwidths[..., 1:] - cumwidths[..., :-1]

        derivatives = min_derivative + F.softplus(unnormalized_derivatives)

        heights = F.softmax(unnormalized_heights, dim=-1)
        heights = rel_min_bin_height + (1 - rel_min_bin_height * num_bins) * heights
        cumheights = torch.cumsum(heights, dim=-1)
        cumheights = F.pad(cumheights, pad=(1, 0), mode='constant', value=0.0)
        cumheights = (top - bottom) * cumheights + bottom
        cumheights[..., 0] = bottom
        cumheights[..., -1] = top
        heights = cumheights[..., 1:] - cumheights[..., :-1]

        bin_idx = searchsorted(cumwidths, inputs)

        input_cumwidths = cumwidths.gather(-1, bin_idx)
        input_bin_widths = widths.gather(-1, bin_idx)
        input_cumheights = cumheights.gather(-1, bin_idx)
        delta = heights / widths
        input_delta = delta.gather(-1, bin_idx)
        input_derivatives = derivatives.gather(-1, bin_idx)
        input_derivatives_plus_one = derivatives[..., 1:].gather(-1, bin_idx)
        input_heights = heights.gather(-1, bin_idx)

        theta = (inputs - input_cumwidths) / input_bin_widths
        theta_one_minus_theta = theta * (1 - theta)
        numerator = input_heights * (input_delta * theta.pow(2)
                                     + input_derivatives * theta_one_minus_theta)
        denominator = input_delta + ((input_derivatives + input_derivatives_plus_one - 2 * input_delta)
                                     * theta_one_minus_theta)
        outputs = input_cumheights + numerator / denominator
        derivative_numerator = input_delta.pow(2) * (input_derivatives_plus_one * theta.pow(2)
                                                     + 2 * input_delta * theta_one_minus_theta
                                                     + input_derivatives * (1 - theta).pow(2))
        logabsdet = torch.log(derivative_numerator) - 2 * torch.log(denominator)
        return outputs, logabsdet


class ConditionalIntervalSplineFlow(nn.Module):
    """Interval flow on [0, 1]^dim, spline parameters predicted from the conditional input."""

    def __init__(self, dim=2, cond_dim=4, num_bins=8):
        super().__init__()
        self.dim, self.num_bins = dim, num_bins
        self.amortizer = nn.Sequential(nn.Linear(cond_dim, 32), nn.Tanh(), nn.Linear(32, dim * (3 * num_bins + 1)))

    def forward(self, x, cond):
        params = self.amortizer(cond).view(x.shape[0], self.dim, 3 * self.num_bins + 1)
        w, h, d = params.split([self.num_bins, self.num_bins, self.num_bins + 1], dim=-1)
        out, log_det = rational_quadratic_spline(x.unsqueeze(-1), w, h, d)
        return out.squeeze(-1), log_det.squeeze(-1).sum(-1)


def make_model():
    return ConditionalIntervalSplineFlow()


def example_inputs():
    return (torch.rand(5, 2), torch.randn(5, 4))


def other_inputs():
    return [(torch.rand(9, 2), torch.randn(9, 4)), (torch.rand(2, 2), torch.randn(2, 4))]


def probe_inputs():
    return other_inputs()
