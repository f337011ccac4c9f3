"""Stable Diffusion VAE encoder exported as the diffusers `AutoencoderKL.encode`: it returns an
`AutoencoderKLOutput` whose `latent_dist` is a `DiagonalGaussianDistribution` object (mean/logvar/std
attributes, `.sample()`/`.mode()` methods), not a tensor, so the exporter cannot take it as a graph
output; optimum's VAE encoder export had to override `forward` with
`encode(x=sample)["latent_dist"].sample()` to get a tensor out.

Source: https://github.com/huggingface/optimum/pull/705
"""
from collections import OrderedDict
from dataclasses import dataclass, fields

import torch
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-38"


class BaseOutput(OrderedDict):
    def __post_init__(self):
        for field in fields(self):
            v = getattr(self, field.name)
            if v is not None:
                self[field.name] = v

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


class DiagonalGaussianDistribution(object):
    def __init__(self, parameters, deterministic=False):
        self.parameters = parameters
        self.mean, self.logvar = torch.chunk(parameters, 2, dim=1)
        self.logvar = torch.clamp(self.logvar, -30.0, 20.0)
        self.deterministic = deterministic
        self.std = torch.exp(0.5 * self.logvar)
        self.var = torch.exp(self.logvar)
        if self.deterministic:
            self.var = self.std = torch.zeros_like(self.mean, device=self.parameters.device, dtype=self.parameters.dtype)

    def sample(self, generator=None):
        sample = torch.randn(self.mean.shape, generator=generator, device=self.parameters.device, dtype=self.parameters.dtype)
        x = self.mean + self.std * sample
        return x

    def mode(self):
        return self.mean


@dataclass
class AutoencoderKLOutput(BaseOutput):
    latent_dist: DiagonalGaussianDistribution


class Encoder(nn.Module):
    def __init__(self, in_channels=3, out_channels=4, block_out_channels=(16, 32)):
        super().__init__()
        self.conv_in = nn.Conv2d(in_channels, block_out_channels[0], kernel_size=3, stride=1, padding=1)
        self.down_blocks = nn.ModuleList()
        ch = block_out_channels[0]
        for i, out_ch in enumerate(block_out_channels):
            is_final_block = i == len(block_out_channels) - 1
            self.down_blocks.append(nn.Sequential(
                nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, out_ch, 3, padding=1),
                nn.Identity() if is_final_block else nn.Conv2d(out_ch, out_ch, 3, stride=2, padding=1)))
            ch = out_ch
        self.conv_norm_out = nn.GroupNorm(num_channels=ch, num_groups=8, eps=1e-6)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(ch, 2 * out_channels, 3, padding=1)

    def forward(self, x):
        sample = self.conv_in(x)
        for down_block in self.down_blocks:
            sample = down_block(sample)
        sample = self.conv_norm_out(sample)
        sample = self.conv_act(sample)
        return self.conv_out(sample)


class AutoencoderKL(nn.Module):
    def __init__(self, latent_channels=4):
        super().__init__()
        self.encoder = Encoder(out_channels=latent_channels)
        self.quant_conv = nn.Conv2d(2 * latent_channels, 2 * latent_channels, 1)

    def encode(self, x, return_dict=True):
        h = self.encoder(x)
        moments = self.quant_conv(h)
        posterior = DiagonalGaussianDistribution(moments)
        if not return_dict:
            return (posterior,)
        return AutoencoderKLOutput(latent_dist=posterior)

    def forward(self, x):
        # exported as `vae.encode` (the optimum export set `forward` to the encode call)
        return self.encode(x)


def make_model():
    return AutoencoderKL().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 48, 80),), (torch.randn(3, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
