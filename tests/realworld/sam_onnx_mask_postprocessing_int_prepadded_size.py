"""Segment Anything `SamOnnxModel` (v1.0 release): `mask_postprocessing` upsamples the low-res masks to 1024x1024,
crops the padding with `masks[..., : int(prepadded_size[0]), : int(prepadded_size[1])]` where `prepadded_size` is
computed from the `orig_im_size` input tensor, then resizes to `orig_im_size`; the report finds the exported ONNX
decoder "prebaked" to the aspect ratio of the dummy `orig_im_size` (masks deformed/clipped for other images).

Source: https://github.com/facebookresearch/segment-anything/issues/56
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"point_coords": {1: "num_points"}, "point_labels": {1: "num_points"}}
BLIND = "domains-51"


class TinyMaskDecoder(nn.Module):
    # stand-in for SAM's MaskDecoder.predict_masks: 4 mask tokens, low-res masks at 1/4 of the 64x64 input
    def __init__(self, dim=16, num_mask_tokens=4):
        super().__init__()
        self.num_mask_tokens = num_mask_tokens
        self.proj = nn.Linear(dim, dim)
        self.upscale = nn.ConvTranspose2d(dim, dim, 2, stride=2)
        self.heads = nn.Conv2d(dim, num_mask_tokens, 1)
        self.iou_head = nn.Linear(dim, num_mask_tokens)

    def predict_masks(self, image_embeddings, sparse_prompt_embeddings):
        tokens = self.proj(sparse_prompt_embeddings).mean(dim=1)  # B x C
        src = image_embeddings + tokens[:, :, None, None]
        masks = self.heads(F.gelu(self.upscale(src)))
        scores = self.iou_head(tokens)
        return masks, scores


class SamOnnxModel(nn.Module):
    def __init__(self, dim=16, img_size=64):
        super().__init__()
        self.mask_decoder = TinyMaskDecoder(dim)
        self.img_size = img_size
        self.pe = nn.Linear(2, dim)
        self.point_embeddings = nn.Embedding(2, dim)

    @staticmethod
    def resize_longest_image_size(
        input_image_size: torch.Tensor, longest_side: int
    ) -> torch.Tensor:
        input_image_size = input_image_size.to(torch.float32)
        scale = longest_side / torch.max(input_image_size)
        transformed_size = scale * input_image_size
        transformed_size = torch.floor(transformed_size + 0.5).to(torch.int64)
        return transformed_size

    def _embed_points(self, point_coords, point_labels):
        point_coords = point_coords + 0.5
        point_coords = point_coords / self.img_size
        point_embedding = self.pe(point_coords)
        point_labels = point_labels.unsqueeze(-1).expand_as(point_embedding)
        point_embedding = point_embedding * (point_labels != -1)
        for i in range(2):
            point_embedding = point_embedding + self.point_embeddings.weight[i] * (point_labels == i)
        return point_embedding

    def mask_postprocessing(self, masks: torch.Tensor, orig_im_size: torch.Tensor) -> torch.Tensor:
        masks = F.interpolate(
            masks,
            size=(self.img_size, self.img_size),
            mode="bilinear",
            align_corners=False,
        )

        prepadded_size = self.resize_longest_image_size(orig_im_size, self.img_size)
        masks = masks[..., : int(prepadded_size[0]), : int(prepadded_size[1])]

        orig_im_size = orig_im_size.to(torch.int64)
        h, w = orig_im_size[0], orig_im_size[1]
        masks = F.interpolate(masks, size=(h, w), mode="bilinear", align_corners=False)
        return masks

    @torch.no_grad()
    def forward(self, image_embeddings, point_coords, point_labels, orig_im_size):
        sparse_embedding = self._embed_points(point_coords, point_labels)
        masks, scores = self.mask_decoder.predict_masks(image_embeddings, sparse_embedding)
        upscaled_masks = self.mask_postprocessing(masks, orig_im_size)
        return upscaled_masks, scores, masks


def make_model():
    return SamOnnxModel().eval()


def _inputs(n, h, w):
    coords = torch.rand(1, n, 2) * 64
    labels = torch.randint(-1, 2, (1, n)).float()
    return (torch.randn(1, 16, 8, 8), coords, labels, torch.tensor([h, w], dtype=torch.float))


def example_inputs():
    return _inputs(3, 60, 80)


def other_inputs():
    return [_inputs(5, 90, 50), _inputs(2, 40, 40)]


def probe_inputs():
    return other_inputs()
