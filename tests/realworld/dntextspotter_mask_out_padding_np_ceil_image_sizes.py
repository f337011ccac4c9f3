"""DNTextSpotter (AdelaiDet-style DETR text spotter, OCR): MaskedBackbone.mask_out_padding builds the padding
mask of every feature level with `int(np.ceil(float(h) / self.feature_strides[idx]))` from the ImageList
image sizes; the ONNX export log in the report shows "Converting a tensor to a Python float might cause the
trace to be incorrect" there, so the unmasked region (and the sine position encoding computed from the mask)
is frozen to the export resolution. (Backbone trimmed to two strided convolutions; the deformable
transformer and heads are left out.)

Source: https://github.com/yyyyyxie/DNTextSpotter/pull/11
"""
from typing import List, Optional

import numpy as np
import torch
from torch import nn, Tensor

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "domains-20"


class NestedTensor(object):
    def __init__(self, tensors, mask: Optional[Tensor]):
        self.tensors = tensors
        self.mask = mask


class ImageList:
    def __init__(self, tensor, image_sizes):
        self.tensor = tensor
        self.image_sizes = image_sizes

    @staticmethod
    def from_tensors(tensors):
        image_sizes = [(im.shape[-2], im.shape[-1]) for im in tensors]
        return ImageList(torch.stack(tensors), image_sizes)


class TinyBackbone(nn.Module):
    def __init__(self, channels=16):
        super().__init__()
        self.res4 = nn.Sequential(nn.Conv2d(3, channels, 3, 8, 1), nn.ReLU())
        self.res5 = nn.Sequential(nn.Conv2d(channels, channels, 3, 2, 1), nn.ReLU())
        self.strides = {"res4": 8, "res5": 16}

    def forward(self, x):
        r4 = self.res4(x)
        return {"res4": r4, "res5": self.res5(r4)}


class MaskedBackbone(nn.Module):
    """ This is a thin wrapper around D2's backbone to provide padding masking"""
    def __init__(self):
        super().__init__()
        self.backbone = TinyBackbone()
        self.feature_strides = [self.backbone.strides[f] for f in ["res4", "res5"]]
        self.num_channels = 16

    def forward(self, images):
        features = self.backbone(images.tensor)
        masks = self.mask_out_padding(
            [features_per_level.shape for features_per_level in features.values()],
            images.image_sizes,
            images.tensor.device,
        )
        assert len(features) == len(masks)
        for i, k in enumerate(features.keys()):
            features[k] = NestedTensor(features[k], masks[i])
        return features

    def mask_out_padding(self, feature_shapes, image_sizes, device):
        masks = []
        assert len(feature_shapes) == len(self.feature_strides)
        for idx, shape in enumerate(feature_shapes):
            N, _, H, W = shape
            masks_per_feature_level = torch.ones((N, H, W), dtype=torch.bool, device=device)
            for img_idx, (h, w) in enumerate(image_sizes):
                masks_per_feature_level[
                    img_idx,
                    : int(np.ceil(float(h) / self.feature_strides[idx])),
                    : int(np.ceil(float(w) / self.feature_strides[idx])),
                ] = 0
            masks.append(masks_per_feature_level)
        return masks


class PositionalEncoding2D(nn.Module):
    def __init__(self, num_pos_feats=8, temperature=10000, normalize=True, scale=None):
        super().__init__()
        self.num_pos_feats = num_pos_feats
        self.temperature = temperature
        self.normalize = normalize
        self.scale = 2 * np.pi if scale is None else scale

    def forward(self, tensors):
        x = tensors.tensors
        mask = tensors.mask
        not_mask = ~mask
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        if self.normalize:
            eps = 1e-6
            y_embed = (y_embed - 0.5) / (y_embed[:, -1:, :] + eps) * self.scale
            x_embed = (x_embed - 0.5) / (x_embed[:, :, -1:] + eps) * self.scale
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32, device=x.device)
        dim_t = self.temperature ** (2 * torch.div(dim_t, 2, rounding_mode='trunc') / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
        pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
        return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)


class Joiner(nn.Sequential):
    def __init__(self, backbone, position_embedding):
        super().__init__(backbone, position_embedding)

    def forward(self, tensor_list):
        xs = self[0](tensor_list)
        out: List[NestedTensor] = []
        pos = []
        for _, x in xs.items():
            out.append(x)
            pos.append(self[1](x).to(x.tensors.dtype))
        return out, pos


class TextSpotterBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Joiner(MaskedBackbone(), PositionalEncoding2D())
        pixel_mean = torch.Tensor([103.53, 116.28, 123.675]).view(3, 1, 1)
        pixel_std = torch.Tensor([57.375, 57.12, 58.395]).view(3, 1, 1)
        self.normalizer = lambda x: (x - pixel_mean) / pixel_std

    def forward(self, image):
        batched_inputs = [{"image": image[0]}]
        images = [self.normalizer(x["image"]) for x in batched_inputs]
        images = ImageList.from_tensors(images)
        features, pos = self.backbone(images)
        return features[0].tensors, pos[0], features[1].tensors, pos[1]


def make_model():
    return TextSpotterBackbone().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 96) * 255,)


def other_inputs():
    return [(torch.rand(1, 3, 96, 160) * 255,), (torch.rand(1, 3, 48, 64) * 255,)]


def probe_inputs():
    return other_inputs()
