"""Stable Diffusion UNet (diffusers `UNet2DConditionModel`, late 2022) decides in Python whether the latent
size is a multiple of the overall upsampling factor (`any(s % default_overall_up_factor != 0 for s in
sample.shape[-2:])`) and only then forwards `upsample_size` to the up blocks' `F.interpolate`; otherwise it
upsamples with `scale_factor=2.0`. The exported ONNX UNet used by the ONNX img2img pipeline fails on images
divisible by 8 but not by 16/32, i.e. latents not divisible by the up factor. Trimmed to a tiny UNet
(no attention, no text conditioning).

Source: https://github.com/huggingface/diffusers/pull/1571
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"sample": {0: "batch", 2: "height", 3: "width"}, "timestep": {0: "batch"}}
BLIND = "domains-8"


def get_timestep_embedding(timesteps, embedding_dim, max_period=10000):
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32)
    emb = torch.exp(exponent / half_dim)
    emb = timesteps[:, None].float() * emb[None, :]
    return torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)


class ResnetBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels, temb_channels):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.conv_shortcut = nn.Conv2d(in_channels, out_channels, 1)

    def forward(self, input_tensor, temb):
        hidden_states = self.conv1(F.silu(input_tensor))
        hidden_states = hidden_states + self.time_emb_proj(F.silu(temb))[:, :, None, None]
        hidden_states = self.conv2(F.silu(hidden_states))
        return self.conv_shortcut(input_tensor) + hidden_states


class Upsample2D(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, hidden_states, output_size=None):
        # if `output_size` is passed we force the interpolation output
        # size and do not make use of `scale_factor=2`
        if output_size is None:
            hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        else:
            hidden_states = F.interpolate(hidden_states, size=output_size, mode="nearest")
        return self.conv(hidden_states)


class DownBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels, temb_channels, add_downsample):
        super().__init__()
        self.resnets = nn.ModuleList([ResnetBlock2D(in_channels, out_channels, temb_channels)])
        self.downsamplers = nn.ModuleList([nn.Conv2d(out_channels, out_channels, 3, stride=2, padding=1)]) if add_downsample else None

    def forward(self, hidden_states, temb):
        output_states = ()
        for resnet in self.resnets:
            hidden_states = resnet(hidden_states, temb)
            output_states += (hidden_states,)
        if self.downsamplers is not None:
            for downsampler in self.downsamplers:
                hidden_states = downsampler(hidden_states)
            output_states += (hidden_states,)
        return hidden_states, output_states


class UpBlock2D(nn.Module):
    def __init__(self, in_channels, prev_output_channel, out_channels, temb_channels, add_upsample):
        super().__init__()
        self.resnets = nn.ModuleList([
            ResnetBlock2D(prev_output_channel + in_channels, out_channels, temb_channels),
            ResnetBlock2D(out_channels + in_channels, out_channels, temb_channels),
        ])
        self.upsamplers = nn.ModuleList([Upsample2D(out_channels)]) if add_upsample else None

    def forward(self, hidden_states, res_hidden_states_tuple, temb=None, upsample_size=None):
        for resnet in self.resnets:
            # pop res hidden states
            res_hidden_states = res_hidden_states_tuple[-1]
            res_hidden_states_tuple = res_hidden_states_tuple[:-1]
            hidden_states = torch.cat([hidden_states, res_hidden_states], dim=1)
            hidden_states = resnet(hidden_states, temb)
        if self.upsamplers is not None:
            for upsampler in self.upsamplers:
                hidden_states = upsampler(hidden_states, upsample_size)
        return hidden_states


class UNet2DModel(nn.Module):
    def __init__(self, in_channels=4, ch=16, temb_channels=32):
        super().__init__()
        self.temb_channels = temb_channels
        self.time_embedding = nn.Sequential(nn.Linear(temb_channels, temb_channels), nn.SiLU(), nn.Linear(temb_channels, temb_channels))
        self.conv_in = nn.Conv2d(in_channels, ch, 3, padding=1)
        self.down_blocks = nn.ModuleList([DownBlock2D(ch, ch, temb_channels, i < 2) for i in range(3)])
        self.up_blocks = nn.ModuleList([UpBlock2D(ch, ch, ch, temb_channels, i < 2) for i in range(3)])
        self.num_upsamplers = 2
        self.conv_out = nn.Conv2d(ch, in_channels, 3, padding=1)

    def forward(self, sample, timestep):
        # By default samples have to be AT least a multiple of the overall upsampling factor.
        # The overall upsampling factor is equal to 2 ** (# num of upsampling layears).
        # However, the upsampling interpolation output size can be forced to fit any upsampling size
        # on the fly if necessary.
        default_overall_up_factor = 2**self.num_upsamplers

        # upsample size should be forwarded when sample is not a multiple of `default_overall_up_factor`
        forward_upsample_size = False
        upsample_size = None

        if any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]):
            forward_upsample_size = True

        emb = self.time_embedding(get_timestep_embedding(timestep, self.temb_channels))

        sample = self.conv_in(sample)
        down_block_res_samples = (sample,)
        for downsample_block in self.down_blocks:
            sample, res_samples = downsample_block(hidden_states=sample, temb=emb)
            down_block_res_samples += res_samples

        for i, upsample_block in enumerate(self.up_blocks):
            is_final_block = i == len(self.up_blocks) - 1

            res_samples = down_block_res_samples[-len(upsample_block.resnets) :]
            down_block_res_samples = down_block_res_samples[: -len(upsample_block.resnets)]

            # if we have not reached the final block and need to forward the
            # upsample size, we do it here
            if not is_final_block and forward_upsample_size:
                upsample_size = down_block_res_samples[-1].shape[2:]

            sample = upsample_block(
                hidden_states=sample, temb=emb, res_hidden_states_tuple=res_samples, upsample_size=upsample_size
            )
        return self.conv_out(F.silu(sample))


def make_model():
    return UNet2DModel().eval()


def example_inputs():
    return (torch.randn(2, 4, 16, 16), torch.tensor([981.0, 981.0]))


def other_inputs():
    return [(torch.randn(1, 4, 18, 22), torch.tensor([500.0])), (torch.randn(3, 4, 20, 14), torch.tensor([21.0, 21.0, 21.0]))]


def probe_inputs():
    return other_inputs()
