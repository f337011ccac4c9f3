"""Hugging Face DepthPro's patch encoder builds an image pyramid, cuts each level into overlapping patches
(`split_to_patches`, returning early when the level already equals the patch size), and after the ViT re-assembles
them in `merge_patches`: the patch grid side is `torch_int(n_patches_per_batch**0.5)`, the branch/padding choice
depends on the patch count, and the padded merge is a Python double loop over that grid; the output size uses
`torch_int(math.log2(width / self.out_size))`. Exporting DepthPro to ONNX with dynamic_axes gives "a bunch of warning
messages" on these lines (from the DepthPro PR thread).

Source: https://github.com/huggingface/transformers/pull/34583
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-26"


def torch_int(x):
    return x.to(torch.int64) if torch.jit.is_tracing() and isinstance(x, torch.Tensor) else int(x)


def split_to_patches(pixel_values: torch.Tensor, patch_size: int, overlap_ratio: float) -> torch.Tensor:
    """Creates Patches from Batch."""
    batch_size, num_channels, height, width = pixel_values.shape

    if height == width == patch_size:
        # create patches only if scaled image is not already equal to patch size
        return pixel_values

    stride = torch_int(patch_size * (1 - overlap_ratio))

    patches = F.unfold(pixel_values, kernel_size=(patch_size, patch_size), stride=(stride, stride))
    patches = patches.permute(2, 0, 1)
    patches = patches.reshape(-1, num_channels, patch_size, patch_size)

    return patches


def reshape_features(hidden_states: torch.Tensor) -> torch.Tensor:
    """Discard class token and reshape 1D feature map to a 2D grid."""
    n_samples, seq_len, hidden_size = hidden_states.shape
    size = torch_int(seq_len**0.5)

    hidden_states = hidden_states[:, -(size**2) :, :]  # remove special tokens if there are any
    hidden_states = hidden_states.reshape(n_samples, size, size, hidden_size)
    hidden_states = hidden_states.permute(0, 3, 1, 2)

    return hidden_states


def merge_patches(patches: torch.Tensor, batch_size: int, padding: int) -> torch.Tensor:
    """Merges smaller patches into image-like feature map."""
    n_patches, hidden_size, out_size, out_size = patches.shape
    n_patches_per_batch = n_patches // batch_size
    sqrt_n_patches_per_batch = torch_int(n_patches_per_batch**0.5)
    new_out_size = sqrt_n_patches_per_batch * out_size

    if n_patches == batch_size:
        # merge only if the patches were created from scaled image
        return patches

    if n_patches_per_batch < 4:
        padding = 0

    # make sure padding is not large enough to remove more than half of the patch
    padding = min(out_size // 4, padding)

    if padding == 0:
        merged = patches.reshape(n_patches_per_batch, batch_size, hidden_size, out_size, out_size)
        merged = merged.permute(1, 2, 0, 3, 4)
        merged = merged[:, :, : sqrt_n_patches_per_batch**2, :, :]
        merged = merged.reshape(
            batch_size, hidden_size, sqrt_n_patches_per_batch, sqrt_n_patches_per_batch, out_size, out_size
        )
        merged = merged.permute(0, 1, 2, 4, 3, 5)
        merged = merged.reshape(batch_size, hidden_size, new_out_size, new_out_size)
    else:
        i = 0
        boxes = []
        for h in range(sqrt_n_patches_per_batch):
            boxes_in_row = []
            for w in range(sqrt_n_patches_per_batch):
                box = patches[batch_size * i : batch_size * (i + 1)]

                # collect paddings
                paddings = [0, 0, 0, 0]
                if h != 0:
                    paddings[0] = padding
                if w != 0:
                    paddings[2] = padding
                if h != sqrt_n_patches_per_batch - 1:
                    paddings[1] = padding
                if w != sqrt_n_patches_per_batch - 1:
                    paddings[3] = padding

                # remove paddings
                _, _, box_h, box_w = box.shape
                pad_top, pad_bottom, pad_left, pad_right = paddings
                box = box[:, :, pad_top : box_h - pad_bottom, pad_left : box_w - pad_right]

                boxes_in_row.append(box)
                i += 1
            boxes_in_row = torch.cat(boxes_in_row, dim=-1)
            boxes.append(boxes_in_row)
        merged = torch.cat(boxes, dim=-2)

    return merged


def reconstruct_feature_maps(hidden_state, batch_size, padding, output_size):
    features = reshape_features(hidden_state)
    features = merge_patches(features, batch_size=batch_size, padding=padding)
    features = F.interpolate(features, size=output_size, mode="bilinear", align_corners=False)
    return features


class TinyViT(nn.Module):
    """Stand-in for the Dinov2 patch model: patch embedding + cls token + one MLP block."""

    def __init__(self, patch_size=4, hidden_size=32):
        super().__init__()
        self.embed = nn.Conv2d(3, hidden_size, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, hidden_size) * 0.02)
        self.mlp = nn.Sequential(nn.LayerNorm(hidden_size), nn.Linear(hidden_size, hidden_size), nn.GELU())

    def forward(self, pixel_values):
        x = self.embed(pixel_values).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        return (x + self.mlp(x),)


class DepthProPatchEncoder(nn.Module):
    def __init__(self, patch_size=16, image_size=16, vit_patch_size=4):
        super().__init__()
        self.patch_size = patch_size
        self.scaled_images_ratios = [0.25, 0.5, 1]
        self.scaled_images_overlap_ratios = [0.0, 0.5, 0.25]
        self.merge_padding_value = 3
        self.n_scaled_images = len(self.scaled_images_ratios)
        self.out_size = image_size // vit_patch_size
        self.model = TinyViT(patch_size=vit_patch_size)

    def forward(self, pixel_values: torch.Tensor):
        batch_size, num_channels, height, width = pixel_values.shape

        # STEP 1: create 3-level image
        scaled_images = []
        for ratio in self.scaled_images_ratios:
            scaled_images.append(
                F.interpolate(pixel_values, scale_factor=ratio, mode="bilinear", align_corners=False)
            )

        # STEP 2: create patches
        for i in range(self.n_scaled_images):
            scaled_images[i] = split_to_patches(
                scaled_images[i],
                patch_size=self.patch_size,
                overlap_ratio=self.scaled_images_overlap_ratios[i],
            )
        n_patches_per_scaled_image = [len(i) for i in scaled_images]
        patches = torch.cat(scaled_images[::-1], dim=0)

        # STEP 3: apply patch encoder
        encodings = self.model(patches)
        scaled_images_last_hidden_state = torch.split_with_sizes(encodings[0], n_patches_per_scaled_image[::-1])
        scaled_images_last_hidden_state = scaled_images_last_hidden_state[::-1]

        # calculate base height and width
        exponent_value = torch_int(math.log2(width / self.out_size))
        base_height = height // 2**exponent_value
        base_width = width // 2**exponent_value

        # STEP 4: get patch features
        scaled_images_features = []
        for i in range(self.n_scaled_images):
            hidden_state = scaled_images_last_hidden_state[i]
            padding = torch_int(self.merge_padding_value * (1 / self.scaled_images_ratios[i]))
            output_height = base_height * 2**i
            output_width = base_width * 2**i
            features = reconstruct_feature_maps(
                hidden_state, batch_size=batch_size, padding=padding, output_size=(output_height, output_width)
            )
            scaled_images_features.append(features)

        return tuple(scaled_images_features)


def make_model():
    return DepthProPatchEncoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 96),), (torch.randn(1, 3, 80, 80),)]


def probe_inputs():
    return other_inputs()
