"""HF transformers WavTokenizer (SEANet encoder of the audio tokenizer): `WavTokenizerConv1d` keeps stride,
kernel size and padding_total as tensor buffers, so the extra right padding computed from the input length is a
0-d tensor; `_pad1d` (reflect mode) then does `max_pad = max(padding_left, padding_right)` and
`if length <= max_pad:` on it. The model test disables torch.export: "data-dependent control flow in `_pad1d`
(`if length <= max_pad`)". Trimmed to the encoder's first conv, one residual block and a strided downsampling conv.

Source: https://github.com/huggingface/transformers/blob/a4cf5f3e6e28b8ed92a7dc2251cabec332fd59f9/tests/models/wavtokenizer/test_modeling_wavtokenizer.py
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "tensor_data"
DYNAMIC = {"input_values": {0: "batch", 2: "samples"}}
BLIND = "domains-55"


class WavTokenizerConfig:
    audio_channels = 1
    num_filters = 8
    use_causal_conv = False
    pad_mode = "reflect"
    norm_type = "weight_norm"
    kernel_size = 7
    residual_kernel_size = 3
    compress = 2
    use_conv_shortcut = True


class WavTokenizerConv1d(nn.Module):
    """Conv1d with asymmetric or causal padding and normalization."""

    def __init__(self, config, in_channels, out_channels, kernel_size, stride=1, dilation=1):
        super().__init__()
        self.causal = config.use_causal_conv
        self.pad_mode = config.pad_mode
        self.norm_type = config.norm_type

        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        weight_norm = nn.utils.weight_norm
        if hasattr(nn.utils.parametrizations, "weight_norm"):
            weight_norm = nn.utils.parametrizations.weight_norm

        if self.norm_type == "weight_norm":
            self.conv = weight_norm(self.conv)
        elif self.norm_type == "time_group_norm":
            self.norm = nn.GroupNorm(1, out_channels)

        kernel_size = self.conv.kernel_size[0]
        stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)
        dilation = self.conv.dilation[0]

        # Effective kernel size with dilations.
        kernel_size = torch.tensor((kernel_size - 1) * dilation + 1, dtype=torch.int64)

        self.register_buffer("stride", stride, persistent=False)
        self.register_buffer("kernel_size", kernel_size, persistent=False)
        self.register_buffer("padding_total", kernel_size - stride, persistent=False)

    def _get_extra_padding_for_conv1d(self, hidden_states):
        """See `pad_for_conv1d`."""
        length = hidden_states.shape[-1]
        n_frames = (length - self.kernel_size + self.padding_total) / self.stride + 1
        n_frames = torch.ceil(n_frames).to(torch.int64) - 1
        ideal_length = n_frames * self.stride + self.kernel_size - self.padding_total

        return ideal_length - length

    @staticmethod
    def _pad1d(hidden_states, paddings, mode="zero", value=0.0):
        length = hidden_states.shape[-1]
        padding_left, padding_right = paddings
        if mode != "reflect":
            return nn.functional.pad(hidden_states, paddings, mode, value)

        max_pad = max(padding_left, padding_right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            hidden_states = nn.functional.pad(hidden_states, (0, extra_pad))
        padded = nn.functional.pad(hidden_states, paddings, mode, value)
        end = padded.shape[-1] - extra_pad
        return padded[..., :end]

    def forward(self, hidden_states):
        extra_padding = self._get_extra_padding_for_conv1d(hidden_states)

        if self.causal:
            # Left padding for causal
            hidden_states = self._pad1d(hidden_states, (self.padding_total, extra_padding), mode=self.pad_mode)
        else:
            # Asymmetric padding required for odd strides
            padding_right = self.padding_total // 2
            padding_left = self.padding_total - padding_right
            hidden_states = self._pad1d(
                hidden_states, (padding_left, padding_right + extra_padding), mode=self.pad_mode
            )

        hidden_states = self.conv(hidden_states)

        if self.norm_type == "time_group_norm":
            hidden_states = self.norm(hidden_states)

        return hidden_states


class WavTokenizerResnetBlock(nn.Module):
    def __init__(self, config, dim, dilations):
        super().__init__()
        kernel_sizes = (config.residual_kernel_size, 1)
        hidden = dim // config.compress
        block = []
        for i, (kernel_size, dilation) in enumerate(zip(kernel_sizes, dilations)):
            in_chs = dim if i == 0 else hidden
            out_chs = dim if i == len(kernel_sizes) - 1 else hidden
            block += [nn.ELU()]
            block += [WavTokenizerConv1d(config, in_chs, out_chs, kernel_size, dilation=dilation)]
        self.block = nn.ModuleList(block)
        self.shortcut = WavTokenizerConv1d(config, dim, dim, kernel_size=1)

    def forward(self, hidden_states):
        residual = hidden_states
        for layer in self.block:
            hidden_states = layer(hidden_states)
        return self.shortcut(residual) + hidden_states


class WavTokenizerEncoder(nn.Module):
    def __init__(self, config=WavTokenizerConfig()):
        super().__init__()
        nf = config.num_filters
        self.layers = nn.ModuleList([
            WavTokenizerConv1d(config, config.audio_channels, nf, config.kernel_size),
            WavTokenizerResnetBlock(config, nf, [1, 1]),
            nn.ELU(),
            WavTokenizerConv1d(config, nf, nf * 2, kernel_size=4 * 2, stride=4),
        ])

    def forward(self, input_values):
        hidden_states = input_values
        for layer in self.layers:
            hidden_states = layer(hidden_states)
        return hidden_states


def make_model():
    return WavTokenizerEncoder().eval()


def example_inputs():
    return (torch.randn(2, 1, 480),)


def other_inputs():
    return [(torch.randn(3, 1, 613),), (torch.randn(1, 1, 257),)]


def probe_inputs():
    return other_inputs()
