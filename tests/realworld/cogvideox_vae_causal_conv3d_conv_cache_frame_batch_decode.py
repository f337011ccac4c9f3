"""CogVideoX 3-D VAE (diffusers AutoencoderKLCogVideoX before the refactor): every CogVideoXCausalConv3d keeps
`self.conv_cache` (the last frames of its input) as module state, set in forward and read by the next call, while
`_decode` walks the latent in frame batches (`for i in range(num_frames // frame_batch_size)`) and clears the caches
at the end; CogVideoXSafeConv3d sizes itself with `torch.prod(torch.tensor(input.shape)).item()`. The PR moved the
cache into arguments/return values (and the size into Python ints) because the VAE could not be compiled as one
graph. Decoder trimmed to conv_in, one resnet block and conv_out.

Source: https://github.com/huggingface/diffusers/pull/9524
"""
from typing import Optional, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"z": {0: "batch", 2: "latent_frames", 3: "height", 4: "width"}}
BLIND = "domains-69"


class CogVideoXSafeConv3d(nn.Conv3d):
    r"""
    A 3D convolution layer that splits the input tensor into smaller parts to avoid OOM in CogVideoX Model.
    """

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        memory_count = torch.prod(torch.tensor(input.shape)).item() * 2 / 1024**3

        # Set to 2GB, suitable for CuDNN
        if memory_count > 2:
            kernel_size = self.kernel_size[0]
            part_num = int(memory_count / 2) + 1
            input_chunks = torch.chunk(input, part_num, dim=2)

            if kernel_size > 1:
                input_chunks = [input_chunks[0]] + [
                    torch.cat((input_chunks[i - 1][:, :, -kernel_size + 1 :], input_chunks[i]), dim=2)
                    for i in range(1, len(input_chunks))
                ]

            output_chunks = []
            for input_chunk in input_chunks:
                output_chunks.append(super().forward(input_chunk))
            output = torch.cat(output_chunks, dim=2)
            return output
        else:
            return super().forward(input)


class CogVideoXCausalConv3d(nn.Module):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Union[int, Tuple[int, int, int]],
        stride: int = 1,
        dilation: int = 1,
        pad_mode: str = "constant",
    ):
        super().__init__()

        if isinstance(kernel_size, int):
            kernel_size = (kernel_size,) * 3

        time_kernel_size, height_kernel_size, width_kernel_size = kernel_size

        self.pad_mode = pad_mode
        time_pad = dilation * (time_kernel_size - 1) + (1 - stride)
        height_pad = height_kernel_size // 2
        width_pad = width_kernel_size // 2

        self.height_pad = height_pad
        self.width_pad = width_pad
        self.time_pad = time_pad
        self.time_causal_padding = (width_pad, width_pad, height_pad, height_pad, time_pad, 0)

        self.temporal_dim = 2
        self.time_kernel_size = time_kernel_size

        stride = (stride, 1, 1)
        dilation = (dilation, 1, 1)
        self.conv = CogVideoXSafeConv3d(
            in_channels=in_channels,
            out_channels=out_channels,
            kernel_size=kernel_size,
            stride=stride,
            dilation=dilation,
        )

        self.conv_cache = None

    def fake_context_parallel_forward(self, inputs: torch.Tensor) -> torch.Tensor:
        kernel_size = self.time_kernel_size
        if kernel_size > 1:
            cached_inputs = (
                [self.conv_cache] if self.conv_cache is not None else [inputs[:, :, :1]] * (kernel_size - 1)
            )
            inputs = torch.cat(cached_inputs + [inputs], dim=2)
        return inputs

    def _clear_fake_context_parallel_cache(self):
        del self.conv_cache
        self.conv_cache = None

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        inputs = self.fake_context_parallel_forward(inputs)

        self._clear_fake_context_parallel_cache()
        # Note: we could move these to the cpu for a lower maximum memory usage but its only a few
        # hundred megabytes and so let's not do it for now
        self.conv_cache = inputs[:, :, -self.time_kernel_size + 1 :].clone()

        padding_2d = (self.width_pad, self.width_pad, self.height_pad, self.height_pad)
        inputs = F.pad(inputs, padding_2d, mode="constant", value=0)

        output = self.conv(inputs)
        return output


class CogVideoXResnetBlock3D(nn.Module):
    def __init__(self, channels: int, groups: int = 4, eps: float = 1e-6):
        super().__init__()
        self.norm1 = nn.GroupNorm(num_channels=channels, num_groups=groups, eps=eps)
        self.conv1 = CogVideoXCausalConv3d(channels, channels, kernel_size=3, pad_mode="constant")
        self.norm2 = nn.GroupNorm(num_channels=channels, num_groups=groups, eps=eps)
        self.conv2 = CogVideoXCausalConv3d(channels, channels, kernel_size=3, pad_mode="constant")
        self.nonlinearity = nn.SiLU()

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        hidden_states = self.conv1(self.nonlinearity(self.norm1(inputs)))
        hidden_states = self.conv2(self.nonlinearity(self.norm2(hidden_states)))
        return inputs + hidden_states


class CogVideoXDecoder3D(nn.Module):
    def __init__(self, in_channels: int = 4, out_channels: int = 3, channels: int = 16):
        super().__init__()
        self.conv_in = CogVideoXCausalConv3d(in_channels, channels, kernel_size=3, pad_mode="constant")
        self.mid_block = CogVideoXResnetBlock3D(channels)
        self.norm_out = nn.GroupNorm(4, channels, eps=1e-6)
        self.conv_act = nn.SiLU()
        self.conv_out = CogVideoXCausalConv3d(channels, out_channels, kernel_size=3, pad_mode="constant")

    def forward(self, sample: torch.Tensor, temb: Optional[torch.Tensor] = None) -> torch.Tensor:
        hidden_states = self.conv_in(sample)
        hidden_states = self.mid_block(hidden_states)
        hidden_states = self.conv_act(self.norm_out(hidden_states))
        return self.conv_out(hidden_states)


class AutoencoderKLCogVideoXDecode(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = CogVideoXDecoder3D()
        self.post_quant_conv = None
        self.use_tiling = False
        self.num_latent_frames_batch_size = 2

    def _clear_fake_context_parallel_cache(self):
        for name, module in self.named_modules():
            if isinstance(module, CogVideoXCausalConv3d):
                module._clear_fake_context_parallel_cache()

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        # AutoencoderKLCogVideoX._decode(z, return_dict=False)[0]
        batch_size, num_channels, num_frames, height, width = z.shape

        frame_batch_size = self.num_latent_frames_batch_size
        num_batches = num_frames // frame_batch_size
        dec = []
        for i in range(num_batches):
            remaining_frames = num_frames % frame_batch_size
            start_frame = frame_batch_size * i + (0 if i == 0 else remaining_frames)
            end_frame = frame_batch_size * (i + 1) + remaining_frames
            z_intermediate = z[:, :, start_frame:end_frame]
            if self.post_quant_conv is not None:
                z_intermediate = self.post_quant_conv(z_intermediate)
            z_intermediate = self.decoder(z_intermediate)
            dec.append(z_intermediate)

        self._clear_fake_context_parallel_cache()
        dec = torch.cat(dec, dim=2)
        return dec


def make_model():
    return AutoencoderKLCogVideoXDecode().eval()


def example_inputs():
    return (torch.randn(1, 4, 5, 8, 10),)


def other_inputs():
    return [(torch.randn(2, 4, 7, 6, 12),), (torch.randn(1, 4, 4, 10, 6),)]


def probe_inputs():
    return other_inputs()
