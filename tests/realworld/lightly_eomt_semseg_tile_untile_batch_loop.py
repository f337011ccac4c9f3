"""lightly-train DINOv3 EoMT semantic segmentation: `_forward_logits` tiles every (non-square) image of the batch into
square crops in Python (`for i, image in enumerate(images)`, `math.ceil(long_side_size / crop_size)`,
`int(j * (crop_size - overlap_per_crop))`) and untiles the crop logits back into per-image `torch.zeros` buffers.
The PR says the ONNX export tests failed and that Dynamo "struggles to infer the correct shapes within the tiling
algorithm", so export was restricted to square images. (The DINOv3 backbone is a two-block stand-in.)

Source: https://github.com/lightly-ai/lightly-train/pull/752
"""
import math

import torch
from torch import Tensor, nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-9"


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, dim * 3), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.mlp(self.norm2(x))


class EoMTSemanticSegmentation(nn.Module):
    def __init__(self, num_classes=4, num_queries=6, dim=32, patch_size=16):
        super().__init__()
        self.patch_size, self.num_queries = patch_size, num_queries
        self.patch_embed = nn.Conv2d(3, dim, patch_size, patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.blocks = nn.ModuleList([Block(dim), Block(dim)])
        self.norm = nn.LayerNorm(dim)
        self.queries = nn.Embedding(num_queries, dim)
        self.class_head = nn.Linear(dim, num_classes + 1)
        self.mask_head = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.upscale = nn.Sequential(nn.ConvTranspose2d(dim, dim, 2, 2), nn.GELU(), nn.ConvTranspose2d(dim, dim, 2, 2))
        self.register_buffer("internal_class_to_class", torch.tensor([0, 1, 2, 5]))

    def forward_train(self, x):
        _, _, H, W = x.shape
        grid_size = (H // self.patch_size, W // self.patch_size)
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = self.blocks[0](x)
        x = torch.cat((self.queries.weight[None, :, :].expand(x.shape[0], -1, -1), x), dim=1)
        x = self.norm(self.blocks[1](x))
        q = x[:, : self.num_queries, :]
        class_logits = self.class_head(q)
        x = x[:, self.num_queries + 1:, :]
        x = x.transpose(1, 2).reshape(x.shape[0], -1, *grid_size)
        mask_logits = torch.einsum("bqc, bchw -> bqhw", self.mask_head(q), self.upscale(x))
        return [mask_logits], [class_logits]

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        # Function used for ONNX export
        logits = self._forward_logits(x)  # (B, K+1, H, W), K = len(self.classes)
        # Restrict logits to known classes only.
        logits = logits[:, :-1]  # (B, K, H, W)
        masks = logits.argmax(dim=1)  # (B, H, W)
        # Map internal class IDs to class IDs.
        masks = self.internal_class_to_class[masks]
        return masks, logits

    def tile(self, images):
        crops, origins = [], []

        for i, image in enumerate(images):
            h, w = image.shape[-2:]
            long_side_size = max(h, w)
            short_side_size = min(h, w)

            # Is the image tall or wide?
            is_tall = h > w

            # By construction the short side size is equal to the crop size.
            crop_size = short_side_size
            num_crops = math.ceil(long_side_size / crop_size)
            overlap = num_crops * crop_size - long_side_size
            overlap_per_crop = (overlap / (num_crops - 1)) if overlap > 0 else 0

            for j in range(num_crops):
                start = int(j * (crop_size - overlap_per_crop))
                end = start + crop_size

                # Image is tall.
                if is_tall:
                    crop = image[:, start:end, :]

                # Image is wide.
                else:
                    crop = image[:, :, start:end]

                # Store the crop.
                crops.append(crop)

                # Store the position of the crop.
                origins.append((i, start, end, is_tall))

        return crops, origins

    def untile(self, crop_logits, origins, image_sizes):
        logit_sums, logit_counts = [], []

        # Initialize the tensors containing the final predictions.
        for size in image_sizes:
            logit_sums.append(torch.zeros((crop_logits.shape[1], *size), device=crop_logits.device))
            logit_counts.append(torch.zeros((crop_logits.shape[1], *size), device=crop_logits.device))

        for crop_index, (image_index, start, end, is_tall) in enumerate(origins):
            # Image is tall.
            if is_tall:
                logit_sums[image_index][:, start:end, :] += crop_logits[crop_index]
                logit_counts[image_index][:, start:end, :] += 1
            # Image is wide.
            else:
                logit_sums[image_index][:, :, start:end] += crop_logits[crop_index]
                logit_counts[image_index][:, :, start:end] += 1

        # Average the logits in the regions of overlap.
        return [logit_sum / logit_count for logit_sum, logit_count in zip(logit_sums, logit_counts)]

    def to_per_pixel_logits_semantic(self, mask_logits, class_logits):
        return torch.einsum("bqhw, bqc -> bchw", mask_logits.sigmoid(), class_logits.softmax(dim=-1))

    def _forward_logits(self, x: Tensor) -> Tensor:
        # x is a batch of images with shape (B, C, H, W).
        _, _, H, W = x.shape

        # The current implementation of tile and untile leads to large amounts of memory being consumed when
        # running the model as ONNX. Therefore we add a fallback for the case when these methods are not necessary.
        use_onnx_fallback = torch.onnx.is_in_onnx_export() and H == W

        # Tiling.
        if use_onnx_fallback:
            crops = x
        else:
            image_sizes = [img.shape[-2:] for img in x]
            crops_list, origins = self.tile(images=x)
            crops = torch.stack(crops_list)
        crop_h, crop_w = crops.shape[-2:]

        mask_logits_per_layer, class_logits_per_layer = self.forward_train(crops)
        mask_logits = mask_logits_per_layer[-1]
        class_logits = class_logits_per_layer[-1]

        # Interpolate and untile.
        mask_logits = F.interpolate(mask_logits, (crop_h, crop_w), mode="bilinear")
        crop_logits = self.to_per_pixel_logits_semantic(mask_logits, class_logits)
        if use_onnx_fallback:
            logits = crop_logits
        else:
            logits_list = self.untile(crop_logits=crop_logits, origins=origins, image_sizes=image_sizes)
            logits = torch.stack(logits_list)  # (B, C, H, W)
        return logits


def make_model():
    return EoMTSemanticSegmentation().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 96),), (torch.randn(1, 3, 64, 96),)]


def probe_inputs():
    return other_inputs()
