"""diffusers UNet2DModel (DDPM denoiser) returns `UNet2DOutput(sample=...)`, a `BaseOutput`
(OrderedDict + dataclass) subclass, by default (`return_dict=True`); until BaseOutput subclasses were
registered as torch.utils._pytree nodes, PT2 / dynamo ONNX export failed on that output type
("Found <class UNet2DOutput> in output, which is not a known type ... register a pytree").

Source: https://github.com/huggingface/diffusers/pull/5459
"""
import math
from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import Any, Tuple

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"sample": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-39"


class BaseOutput(OrderedDict):
    """Base class for all model outputs as dataclass (diffusers.utils.outputs, before the pytree registration)."""

    def __post_init__(self):
        class_fields = fields(self)
        if not len(class_fields):
            raise ValueError(f"{self.__class__.__name__} has no fields.")
        first_field = getattr(self, class_fields[0].name)
        other_fields_are_none = all(getattr(self, field.name) is None for field in class_fields[1:])
        if other_fields_are_none and isinstance(first_field, dict):
            for key, value in first_field.items():
                self[key] = value
        else:
            for field in class_fields:
                v = getattr(self, field.name)
                if v is not None:
                    self[field.name] = v

    def __getitem__(self, k):
        if isinstance(k, str):
            inner_dict = dict(self.items())
            return inner_dict[k]
        else:
            return self.to_tuple()[k]

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            # Don't call self.__setitem__ to avoid recursion errors
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __setitem__(self, key, value):
        # Will raise a KeyException if needed
        super().__setitem__(key, value)
        # Don't call self.__setattr__ to avoid recursion errors
        super().__setattr__(key, value)

    def to_tuple(self) -> Tuple[Any]:
        return tuple(self[k] for k in self.keys())


@dataclass
class UNet2DOutput(BaseOutput):
    sample: torch.FloatTensor


def get_timestep_embedding(timesteps, embedding_dim, flip_sin_to_cos=False, downscale_freq_shift=1, max_period=10000):
    assert len(timesteps.shape) == 1, "Timesteps should be a 1d-array"
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32, device=timesteps.device)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    return emb


class ResnetBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels, temb_channels):
        super().__init__()
        self.norm1 = nn.GroupNorm(4, in_channels)
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.norm2 = nn.GroupNorm(4, out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.conv_shortcut = nn.Conv2d(in_channels, out_channels, 1) if in_channels != out_channels else None

    def forward(self, input_tensor, temb):
        hidden_states = self.conv1(F.silu(self.norm1(input_tensor)))
        hidden_states = hidden_states + self.time_emb_proj(F.silu(temb))[:, :, None, None]
        hidden_states = self.conv2(F.silu(self.norm2(hidden_states)))
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor)
        return input_tensor + hidden_states


class UNet2DModel(nn.Module):
    def __init__(self, in_channels=3, out_channels=3, block_out_channels=(8, 16)):
        super().__init__()
        self.block_out_channels = block_out_channels
        time_embed_dim = block_out_channels[0] * 4
        self.conv_in = nn.Conv2d(in_channels, block_out_channels[0], 3, padding=1)
        self.time_embedding = nn.Sequential(
            nn.Linear(block_out_channels[0], time_embed_dim), nn.SiLU(), nn.Linear(time_embed_dim, time_embed_dim))
        self.down = ResnetBlock2D(block_out_channels[0], block_out_channels[1], time_embed_dim)
        self.downsample = nn.Conv2d(block_out_channels[1], block_out_channels[1], 3, stride=2, padding=1)
        self.mid_block = ResnetBlock2D(block_out_channels[1], block_out_channels[1], time_embed_dim)
        self.up_conv = nn.Conv2d(block_out_channels[1], block_out_channels[1], 3, padding=1)
        self.up = ResnetBlock2D(block_out_channels[1] * 2, block_out_channels[0], time_embed_dim)
        self.conv_norm_out = nn.GroupNorm(4, block_out_channels[0])
        self.conv_out = nn.Conv2d(block_out_channels[0], out_channels, 3, padding=1)

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def forward(self, sample, timestep, return_dict: bool = True):
        # 1. time
        timesteps = timestep
        if not torch.is_tensor(timesteps):
            timesteps = torch.tensor([timesteps], dtype=torch.long, device=sample.device)
        elif torch.is_tensor(timesteps) and len(timesteps.shape) == 0:
            timesteps = timesteps[None].to(sample.device)

        # broadcast to batch dimension in a way that's compatible with ONNX/Core ML
        timesteps = timesteps * torch.ones(sample.shape[0], dtype=timesteps.dtype, device=timesteps.device)

        t_emb = get_timestep_embedding(timesteps, self.block_out_channels[0])
        # timesteps does not contain any weights and will always return f32 tensors
        # but time_embedding might actually be running in fp16. so we need to cast here.
        t_emb = t_emb.to(dtype=self.dtype)
        emb = self.time_embedding(t_emb)

        # 2. pre-process
        sample = self.conv_in(sample)

        # 3. down
        sample = self.down(sample, emb)
        res_sample = sample
        sample = self.downsample(sample)

        # 4. mid
        sample = self.mid_block(sample, emb)

        # 5. up
        sample = self.up_conv(F.interpolate(sample, size=res_sample.shape[2:], mode="nearest"))
        sample = self.up(torch.cat([sample, res_sample], dim=1), emb)

        # 6. post-process
        sample = self.conv_out(F.silu(self.conv_norm_out(sample)))

        if not return_dict:
            return (sample,)

        return UNet2DOutput(sample=sample)


def make_model():
    return UNet2DModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32), torch.tensor(50))


def other_inputs():
    return [(torch.randn(3, 3, 40, 48), torch.tensor(999)), (torch.randn(1, 3, 24, 24), torch.tensor(7))]


def probe_inputs():
    return other_inputs()
