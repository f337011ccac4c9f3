"""PatchTST time-series forecaster (HF transformers `PatchTSTForPrediction`): the scaler standardizes
the context and `PatchTSTPatchify` cuts it into patches with `Tensor.unfold`, which the exporter rejects
("Unsupported: ONNX export of operator Unfold, input size not accessible"); the optimum PR patches
`torch.unfold` with a stack of slices to make the export work. (Encoder trimmed to one
TransformerEncoderLayer; flatten head kept.)

Source: https://github.com/huggingface/optimum/pull/2101
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"past_values": {0: "batch_size"}}
BLIND = "operators-5"


class PatchTSTStdScaler(nn.Module):
    def __init__(self, dim=1, keepdim=True, minimum_scale=1e-5):
        super().__init__()
        self.dim = dim
        self.keepdim = keepdim
        self.minimum_scale = minimum_scale

    def forward(self, data, observed_indicator):
        denominator = observed_indicator.sum(self.dim, keepdim=self.keepdim)
        denominator = denominator.clamp_min(1.0)
        loc = (data * observed_indicator).sum(self.dim, keepdim=self.keepdim) / denominator
        variance = (((data - loc) * observed_indicator) ** 2).sum(self.dim, keepdim=self.keepdim) / denominator
        scale = torch.sqrt(variance + self.minimum_scale)
        return (data - loc) / scale, loc, scale


class PatchTSTPatchify(nn.Module):
    def __init__(self, context_length, patch_length, patch_stride):
        super().__init__()
        self.sequence_length = context_length
        self.patch_length = patch_length
        self.patch_stride = patch_stride
        if self.sequence_length <= self.patch_length:
            raise ValueError("Sequence length has to be greater than the patch length")
        # get the number of patches
        self.num_patches = (max(self.sequence_length, self.patch_length) - self.patch_length) // self.patch_stride + 1
        new_sequence_length = self.patch_length + self.patch_stride * (self.num_patches - 1)
        self.sequence_start = self.sequence_length - new_sequence_length

    def forward(self, past_values: torch.Tensor):
        sequence_length = past_values.shape[-2]
        if sequence_length != self.sequence_length:
            raise ValueError(
                f"Input sequence length ({sequence_length}) doesn't match model configuration ({self.sequence_length})."
            )
        # output: [bs x new_sequence_length x num_channels]
        output = past_values[:, self.sequence_start :, :]
        # output: [bs x num_patches x num_input_channels x patch_length]
        output = output.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)
        # output: [bs x num_input_channels x num_patches x patch_length]
        output = output.transpose(-2, -3).contiguous()
        return output


class PatchTSTLite(nn.Module):
    def __init__(self, context_length=512, patch_length=16, patch_stride=8, d_model=64,
                 num_input_channels=7, prediction_length=24):
        super().__init__()
        self.scaler = PatchTSTStdScaler()
        self.patchifier = PatchTSTPatchify(context_length, patch_length, patch_stride)
        num_patches = self.patchifier.num_patches
        self.input_embedding = nn.Linear(patch_length, d_model)
        self.position_enc = nn.Parameter(torch.randn(1, num_patches, d_model) * 0.02)
        self.encoder = nn.TransformerEncoderLayer(d_model, 4, 128, dropout=0.0, batch_first=True)
        self.flatten = nn.Flatten(start_dim=2)
        self.projection = nn.Linear(num_patches * d_model, prediction_length)

    def forward(self, past_values):
        past_observed_mask = torch.ones_like(past_values)
        scaled_past_values, loc, scale = self.scaler(past_values, past_observed_mask)
        patched_values = self.patchifier(scaled_past_values)
        bs, num_channels, num_patches, _ = patched_values.shape
        hidden = self.input_embedding(patched_values) + self.position_enc
        hidden = self.encoder(hidden.reshape(bs * num_channels, num_patches, -1))
        hidden = hidden.reshape(bs, num_channels, num_patches, -1)
        y_hat = self.projection(self.flatten(hidden))  # [bs x num_channels x prediction_length]
        y_hat = y_hat.transpose(2, 1)
        return y_hat * scale + loc


def make_model():
    return PatchTSTLite().eval()


def example_inputs():
    return (torch.randn(2, 512, 7).cumsum(1),)


def other_inputs():
    return [(torch.randn(5, 512, 7).cumsum(1),), (torch.randn(1, 512, 7).cumsum(1),)]


def probe_inputs():
    return other_inputs()
