"""MuggledSAM (SAMv2 segmentation) image encoder exported to ONNX with the model in bfloat16: the export breaks
on "unsupported type: tensor(bfloat16)" at the half-step patch embedding convolution; the reporter cut the
encoder's forward down to `self.patch_embed(image_tensor_bchw)` alone and still got the same error (the maintainer
notes float16/float32 work).

Source: https://github.com/heyoeyo/muggled_sam/issues/7
"""
import torch
import torch.nn as nn
from torch import Tensor

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"image_tensor_bchw": {0: "batch"}}
BLIND = "domains-10"


class HalfStepPatchEmbed(nn.Module):
    def __init__(self, features_per_token, patch_size_px=7, num_input_channels=3):
        super().__init__()
        assert (patch_size_px % 2) == 1, "Must use odd number for patch size"
        stride = (patch_size_px + 1) // 2
        padding = stride - 1
        self.proj = nn.Conv2d(
            num_input_channels,
            features_per_token,
            kernel_size=patch_size_px,
            stride=stride,
            padding=padding,
        )

    def forward(self, image_tensor_bchw: Tensor) -> Tensor:
        return self.proj(image_tensor_bchw)


class SAMV2ImageEncoder(nn.Module):
    def __init__(self, features_per_token=32, base_patch_grid_hw=(16, 16)):
        super().__init__()
        self.patch_embed = HalfStepPatchEmbed(features_per_token)
        self.base_embedding = nn.Parameter(torch.randn(1, features_per_token, *base_patch_grid_hw) * 0.02)

    def forward(self, image_tensor_bchw: Tensor) -> Tensor:
        # Prepare image tokens for transformer (the rest of the forward commented out, as in the report)
        patch_tokens_bchw = self.patch_embed(image_tensor_bchw)
        patch_tokens_bchw = patch_tokens_bchw + self.base_embedding
        return patch_tokens_bchw


def make_model():
    model = SAMV2ImageEncoder().eval()
    return model.to(dtype=torch.bfloat16)


def example_inputs():
    return (torch.randn(2, 3, 64, 64, dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 64, dtype=torch.bfloat16),), (torch.randn(3, 3, 64, 64, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
