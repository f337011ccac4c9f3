"""TimesFM 2.5 forecaster exported whole: `_preprocess` walks the batch with `for ts in inputs:` and pads or
truncates each series with `if input_len < context_len: ... elif input_len > context_len:`; the PR reports
`torch.onnx.export` failing with "Could not guard on data-dependent expression u0 < 16384" on that branch and
the loop making the batch size static.

Source: https://github.com/huggingface/transformers/pull/45233
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"past_values": {0: "batch", 1: "time"}}
BLIND = "domains-5"


class TimesFm2_5ResidualBlock(nn.Module):
    def __init__(self, input_dims, hidden_dims, output_dims):
        super().__init__()
        self.input_layer = nn.Linear(input_dims, hidden_dims)
        self.output_layer = nn.Linear(hidden_dims, output_dims)
        self.residual_layer = nn.Linear(input_dims, output_dims)
        self.activation = nn.SiLU()

    def forward(self, x):
        return self.output_layer(self.activation(self.input_layer(x))) + self.residual_layer(x)


class TimesFm2_5Model(nn.Module):  # patching + masked RevIN + a small stack in place of the decoder layers
    def __init__(self, patch_length, hidden_size):
        super().__init__()
        self.patch_length = patch_length
        self.tolerance = 1e-6
        self.input_ff_layer = TimesFm2_5ResidualBlock(2 * patch_length, hidden_size, hidden_size)
        self.layer = nn.GRU(hidden_size, hidden_size, batch_first=True)

    def forward(self, past_values, past_values_padding):
        batch_size, seq_len = past_values.shape
        patch_len = self.patch_length
        patched_inputs = past_values.view(batch_size, -1, patch_len)
        patched_masks = past_values_padding[:, :seq_len].view(batch_size, -1, patch_len)
        patched_masks_bool = patched_masks >= 0.5
        is_valid = (~patched_masks_bool).to(past_values.dtype)
        count = is_valid.sum(dim=(1, 2)).clamp(min=1.0)
        loc = (patched_inputs * is_valid).sum(dim=(1, 2)) / count
        scale = (((patched_inputs - loc[:, None, None]) * is_valid) ** 2).sum(dim=(1, 2)) / count
        scale = torch.sqrt(scale).clamp(min=self.tolerance)
        normed = (patched_inputs - loc[:, None, None]) / scale[:, None, None]
        normed = torch.where(patched_masks_bool, torch.zeros_like(normed), normed)
        tokenizer_inputs = torch.cat([normed, patched_masks_bool.to(dtype=normed.dtype)], dim=-1)
        hidden_states, _ = self.layer(self.input_ff_layer(tokenizer_inputs))
        return hidden_states, loc, scale


class TimesFm2_5ModelForPrediction(nn.Module):
    def __init__(self, context_length=32, horizon_length=8, patch_length=8, hidden_size=32):
        super().__init__()
        self.context_len = context_length
        self.horizon_len = horizon_length
        self.model = TimesFm2_5Model(patch_length, hidden_size)
        self.output_projection_point = TimesFm2_5ResidualBlock(hidden_size, hidden_size, horizon_length)

    def _preprocess(self, inputs, freq=None, context_len=None):
        if context_len is None:
            context_len = self.context_len

        input_ts, input_padding = [], []

        for ts in inputs:
            input_len = ts.shape[0]
            padding = torch.zeros(input_len + self.horizon_len, dtype=ts.dtype, device=ts.device)
            if input_len < context_len:
                num_front_pad = context_len - input_len
                ts = torch.cat([torch.zeros(num_front_pad, dtype=ts.dtype, device=ts.device), ts], dim=0)
                padding = torch.cat([torch.ones(num_front_pad, dtype=ts.dtype, device=padding.device), padding], dim=0)
            elif input_len > context_len:
                ts = ts[-context_len:]
                padding = padding[-(context_len + self.horizon_len) :]

            input_ts.append(ts)
            input_padding.append(padding)

        result = (torch.stack(input_ts, dim=0), torch.stack(input_padding, dim=0))
        if freq is not None:
            result = result + (torch.tensor(freq[: len(inputs)], dtype=torch.int32).reshape(-1, 1),)
        return result

    def forward(self, past_values):
        input_ts, input_padding = self._preprocess(past_values)
        hidden_states, loc, scale = self.model(input_ts, input_padding)
        point = self.output_projection_point(hidden_states[:, -1])
        return point * scale[:, None] + loc[:, None]


def make_model():
    return TimesFm2_5ModelForPrediction().eval()


def example_inputs():
    return (torch.randn(2, 20).cumsum(-1),)


def other_inputs():
    return [(torch.randn(3, 45).cumsum(-1),), (torch.randn(1, 9).cumsum(-1),)]


def probe_inputs():
    return other_inputs()
