"""DETR exported with dynamic batch_size/height/width: batch inference in onnxruntime fails with
"Non-zero status code returned while running Split node ... Cannot split using values in 'split'
attribute. Axis=0 Input shape={4,3,800,1204} NumOutputs=1". While tracing, `nested_tensor_from_tensor_list`
calls `_onnx_nested_tensor_from_tensor_list`, which iterates over the images of the batch tensor in
Python (`for img in tensor_list`) to pad them and build the mask (backbone/transformer trimmed).

Source: https://github.com/facebookresearch/detr/issues/534
"""
import math
from typing import List, Optional

import torch
from torch import nn, Tensor
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"samples": {0: "batch_size", 2: "height", 3: "width"}}
BLIND = "domains-6"


class NestedTensor(object):
    def __init__(self, tensors, mask: Optional[Tensor]):
        self.tensors = tensors
        self.mask = mask

    def decompose(self):
        return self.tensors, self.mask


def _max_by_axis(the_list):
    # type: (List[List[int]]) -> List[int]
    maxes = the_list[0]
    for sublist in the_list[1:]:
        for index, item in enumerate(sublist):
            maxes[index] = max(maxes[index], item)
    return maxes


@torch.jit.unused
def _onnx_nested_tensor_from_tensor_list(tensor_list: List[Tensor]) -> NestedTensor:
    max_size = []
    for i in range(tensor_list[0].dim()):
        max_size_i = torch.max(torch.stack([img.shape[i] for img in tensor_list]).to(torch.float32)).to(torch.int64)
        max_size.append(max_size_i)
    max_size = tuple(max_size)
    padded_imgs = []
    padded_masks = []
    for img in tensor_list:
        padding = [(s1 - s2) for s1, s2 in zip(max_size, tuple(img.shape))]
        padded_img = torch.nn.functional.pad(img, (0, padding[2], 0, padding[1], 0, padding[0]))
        padded_imgs.append(padded_img)
        m = torch.zeros_like(img[0], dtype=torch.int, device=img.device)
        padded_mask = torch.nn.functional.pad(m, (0, padding[2], 0, padding[1]), "constant", 1)
        padded_masks.append(padded_mask.to(torch.bool))
    tensor = torch.stack(padded_imgs)
    mask = torch.stack(padded_masks)
    return NestedTensor(tensor, mask=mask)


def nested_tensor_from_tensor_list(tensor_list: List[Tensor]):
    if tensor_list[0].ndim == 3:
        if torch.jit.is_tracing():
            # nested_tensor_from_tensor_list() does not export well to ONNX
            # call _onnx_nested_tensor_from_tensor_list() instead
            return _onnx_nested_tensor_from_tensor_list(tensor_list)
        max_size = _max_by_axis([list(img.shape) for img in tensor_list])
        batch_shape = [len(tensor_list)] + max_size
        b, c, h, w = batch_shape
        tensor = torch.zeros(batch_shape, dtype=tensor_list[0].dtype, device=tensor_list[0].device)
        mask = torch.ones((b, h, w), dtype=torch.bool, device=tensor_list[0].device)
        for img, pad_img, m in zip(tensor_list, tensor, mask):
            pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
            m[: img.shape[1], :img.shape[2]] = False
    else:
        raise ValueError('not supported')
    return NestedTensor(tensor, mask)


class PositionEmbeddingSine(nn.Module):
    def __init__(self, num_pos_feats=16, temperature=10000):
        super().__init__()
        self.num_pos_feats = num_pos_feats
        self.temperature = temperature
        self.scale = 2 * math.pi

    def forward(self, tensor_list: NestedTensor):
        not_mask = ~tensor_list.mask
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        eps = 1e-6
        y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
        x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32, device=not_mask.device)
        dim_t = self.temperature ** (2 * (dim_t // 2) / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
        pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
        return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)


class DETR(nn.Module):
    def __init__(self, num_classes=5, hidden_dim=32, num_queries=10):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, hidden_dim, 3, 4, 1), nn.ReLU(), nn.Conv2d(hidden_dim, hidden_dim, 3, 2, 1))
        self.position_embedding = PositionEmbeddingSine(hidden_dim // 2)
        self.query_embed = nn.Embedding(num_queries, hidden_dim)
        self.class_embed = nn.Linear(hidden_dim, num_classes + 1)
        self.bbox_embed = nn.Linear(hidden_dim, 4)

    def forward(self, samples):
        if isinstance(samples, (list, torch.Tensor)):
            samples = nested_tensor_from_tensor_list(samples)
        x, m = samples.decompose()
        src = self.backbone(x)
        mask = F.interpolate(m[None].float(), size=src.shape[-2:]).to(torch.bool)[0]
        pos = self.position_embedding(NestedTensor(src, mask))
        memory = (src + pos).flatten(2).masked_fill(mask.flatten(1)[:, None], 0.0)  # stand-in for the transformer
        attn = torch.einsum('qc,bcn->bqn', self.query_embed.weight, memory).softmax(-1)
        hs = torch.einsum('bqn,bcn->bqc', attn, memory)
        return self.class_embed(hs), self.bbox_embed(hs).sigmoid()


def make_model():
    return DETR().eval()


def example_inputs():
    return (torch.randn(1, 3, 96, 128),)


def other_inputs():
    return [(torch.randn(4, 3, 96, 160),), (torch.randn(2, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
