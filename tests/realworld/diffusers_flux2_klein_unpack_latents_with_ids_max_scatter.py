"""Diffusers Flux2KleinPipeline's latent decode step: `_unpack_latents_with_ids` scatters the packed tokens back
into a (C, H, W) grid whose size it reads from the position ids, `h = torch.max(h_ids) + 1`,
`w = torch.max(w_ids) + 1`, then `torch.zeros((h * w, ch))` / `out.view(h, w, ch)`. The PR reports this as a
device-to-host sync (`torch.max().item()`) that stalls the compiled pipeline, and passes the latent
height/width in instead: the grid size is read from tensor values.

Source: https://github.com/huggingface/diffusers/pull/13356
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"latents": {0: "batch", 1: "tokens"}, "latent_ids": {0: "batch", 1: "tokens"}}
BLIND = "domains-56"


class Flux2LatentDecodeStep(nn.Module):
    """The end of Flux2KleinPipeline.__call__: unpack tokens, undo the VAE batch-norm, unpatchify, decode."""

    def __init__(self, num_channels=16, batch_norm_eps=1e-4):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_channels, eps=batch_norm_eps)
        self.bn.running_mean.normal_()
        self.bn.running_var.uniform_(0.5, 1.5)
        self.batch_norm_eps = batch_norm_eps
        self.decoder = nn.Conv2d(num_channels // 4, 3, 3, padding=1)

    @staticmethod
    def _unpack_latents_with_ids(x: torch.Tensor, x_ids: torch.Tensor) -> list[torch.Tensor]:
        """
        using position ids to scatter tokens into place
        """
        x_list = []
        for data, pos in zip(x, x_ids):
            _, ch = data.shape  # noqa: F841
            h_ids = pos[:, 1].to(torch.int64)
            w_ids = pos[:, 2].to(torch.int64)

            h = torch.max(h_ids) + 1
            w = torch.max(w_ids) + 1

            flat_ids = h_ids * w + w_ids

            out = torch.zeros((h * w, ch), device=data.device, dtype=data.dtype)
            out.scatter_(0, flat_ids.unsqueeze(1).expand(-1, ch), data)

            # reshape from (H * W, C) to (H, W, C) and permute to (C, H, W)

            out = out.view(h, w, ch).permute(2, 0, 1)
            x_list.append(out)

        return torch.stack(x_list, dim=0)

    @staticmethod
    def _unpatchify_latents(latents):
        batch_size, num_channels_latents, height, width = latents.shape
        latents = latents.reshape(batch_size, num_channels_latents // (2 * 2), 2, 2, height, width)
        latents = latents.permute(0, 1, 4, 2, 5, 3)
        latents = latents.reshape(batch_size, num_channels_latents // (2 * 2), height * 2, width * 2)
        return latents

    def forward(self, latents, latent_ids):
        latents = self._unpack_latents_with_ids(latents, latent_ids)

        latents_bn_mean = self.bn.running_mean.view(1, -1, 1, 1).to(latents.device, latents.dtype)
        latents_bn_std = torch.sqrt(self.bn.running_var.view(1, -1, 1, 1) + self.batch_norm_eps).to(
            latents.device, latents.dtype
        )
        latents = latents * latents_bn_std + latents_bn_mean
        latents = self._unpatchify_latents(latents)
        return self.decoder(latents)


def _prepare_latent_ids(batch_size, height, width):
    t = torch.arange(1)  # [0] - time dimension
    h = torch.arange(height)
    w = torch.arange(width)
    l = torch.arange(1)  # [0] - layer dimension
    latent_ids = torch.cartesian_prod(t, h, w, l)
    return latent_ids.unsqueeze(0).expand(batch_size, -1, -1).contiguous()


def _inputs(batch_size, height, width):
    return (torch.randn(batch_size, height * width, 16), _prepare_latent_ids(batch_size, height, width))


def make_model():
    return Flux2LatentDecodeStep().eval()


def example_inputs():
    return _inputs(2, 6, 8)


def other_inputs():
    return [_inputs(3, 8, 8), _inputs(1, 5, 7)]


def probe_inputs():
    return other_inputs()
