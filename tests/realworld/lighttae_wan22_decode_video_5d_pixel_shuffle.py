"""LightTAE / TAEHV tiny video VAE decoder (Wan 2.2 config, patch_size=2): `decode_video` runs the decoder over
NTCHW latents with `apply_model_with_memblocks` (parallel path) and then calls `F.pixel_shuffle(x, self.patch_size)`
on the 5-D NTCHW output. The browser-export script inlines the decoder and rewrites that last step to squeeze to
4-D first, commenting "pixel_shuffle on 4D (ONNX only supports 4D pixel_shuffle)" (the TorchScript exporter, which
the script uses with dynamo=False, rejects pixel_shuffle on a 5-D input). Widths are reduced, one MemBlock per
stage instead of three, and the tqdm wrapper around the block loop is dropped.

Source: https://github.com/cretz/intabai/blob/70b7ba2668b36b0d72b1b34c54acef6ec9809906/web/scripts/export-fastwan-vae.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames", 3: "height", 4: "width"}}
BLIND = "operators-39"


def conv(n_in, n_out, **kwargs):
    return nn.Conv2d(n_in, n_out, 3, padding=1, **kwargs)


class Clamp(nn.Module):
    def forward(self, x):
        return torch.tanh(x / 3) * 3


class MemBlock(nn.Module):
    def __init__(self, n_in, n_out, act_func):
        super().__init__()
        self.conv = nn.Sequential(conv(n_in * 2, n_out), act_func, conv(n_out, n_out), act_func, conv(n_out, n_out))
        self.skip = nn.Conv2d(n_in, n_out, 1, bias=False) if n_in != n_out else nn.Identity()
        self.act = act_func

    def forward(self, x, past):
        return self.act(self.conv(torch.cat([x, past], 1)) + self.skip(x))


class TGrow(nn.Module):
    def __init__(self, n_f, stride):
        super().__init__()
        self.stride = stride
        self.conv = nn.Conv2d(n_f, n_f * stride, 1, bias=False)

    def forward(self, x):
        _NT, C, H, W = x.shape
        x = self.conv(x)
        return x.reshape(-1, C, H, W)


def apply_model_with_memblocks(model, x, parallel, show_progress_bar):
    assert x.ndim == 5, f"TAEHV operates on NTCHW tensors, but got {x.ndim}-dim tensor"
    N, T, C, H, W = x.shape
    x = x.reshape(N * T, C, H, W)
    # parallel over input timesteps, iterate over blocks
    for b in model:
        if isinstance(b, MemBlock):
            NT, C, H, W = x.shape
            T = NT // N
            _x = x.reshape(N, T, C, H, W)
            mem = F.pad(_x, (0, 0, 0, 0, 0, 0, 1, 0), value=0)[:, :T].reshape(x.shape)
            x = b(x, mem)
        else:
            x = b(x)
    NT, C, H, W = x.shape
    T = NT // N
    x = x.view(N, T, C, H, W)
    return x


class TAEHVDecoder(nn.Module):
    def __init__(self, patch_size=2, latent_channels=48, decoder_time_upscale=(True, True)):
        super().__init__()
        self.patch_size = patch_size
        self.latent_channels = latent_channels
        self.image_channels = 3
        act_func = nn.ReLU(inplace=True)
        n_f = [64, 32, 16, 16]
        self.frames_to_trim = 2 ** sum(decoder_time_upscale) - 1
        self.decoder = nn.Sequential(
            Clamp(), conv(self.latent_channels, n_f[0]), act_func,
            MemBlock(n_f[0], n_f[0], act_func),
            nn.Upsample(scale_factor=2), TGrow(n_f[0], 1), conv(n_f[0], n_f[1], bias=False),
            MemBlock(n_f[1], n_f[1], act_func),
            nn.Upsample(scale_factor=2), TGrow(n_f[1], 2), conv(n_f[1], n_f[2], bias=False),
            MemBlock(n_f[2], n_f[2], act_func),
            nn.Upsample(scale_factor=2), TGrow(n_f[2], 2), conv(n_f[2], n_f[3], bias=False),
            act_func, conv(n_f[3], self.image_channels * self.patch_size**2),
        )

    def decode_video(self, x, parallel=True, show_progress_bar=True):
        x = apply_model_with_memblocks(self.decoder, x, parallel, show_progress_bar)
        x = x.clamp_(0, 1)
        if self.patch_size > 1:
            x = F.pixel_shuffle(x, self.patch_size)
        return x[:, self.frames_to_trim :]

    def forward(self, x):
        return self.decode_video(x, parallel=True, show_progress_bar=False)


def make_model():
    return TAEHVDecoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 48, 4, 5),)


def other_inputs():
    return [(torch.randn(2, 4, 48, 3, 6),), (torch.randn(1, 2, 48, 5, 4),)]


def probe_inputs():
    return other_inputs()
