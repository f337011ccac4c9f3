"""DETR detector called on a batch tensor: `DETR.forward` wraps it with `nested_tensor_from_tensor_list`, which
takes `_max_by_axis([list(img.shape) for img in tensor_list])`, allocates zeros/ones of `[len(tensor_list)] + max_size`
and pads image by image in a Python loop (`for img, pad_img, m in zip(tensor_list, tensor, mask):
pad_img[...].copy_(img); m[...] = False`); the PR says this "does not export well to ONNX" and adds a tracing-only
variant. (ResNet backbone shown as two convs, the transformer as one encoder/decoder attention.)

Source: https://github.com/facebookresearch/detr/pull/173
"""
import math
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import nn, Tensor

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"samples": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-33"


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


def nested_tensor_from_tensor_list(tensor_list: List[Tensor]):
    # TODO make this more general
    if tensor_list[0].ndim == 3:
        # TODO make it support different-sized images
        max_size = _max_by_axis([list(img.shape) for img in tensor_list])
        batch_shape = [len(tensor_list)] + max_size
        b, c, h, w = batch_shape
        dtype = tensor_list[0].dtype
        device = tensor_list[0].device
        tensor = torch.zeros(batch_shape, dtype=dtype, device=device)
        mask = torch.ones((b, h, w), dtype=torch.bool, device=device)
        for img, pad_img, m in zip(tensor_list, tensor, mask):
            pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
            m[: img.shape[1], :img.shape[2]] = False
    else:
        raise ValueError('not supported')
    return NestedTensor(tensor, mask)


class PositionEmbeddingSine(nn.Module):
    def __init__(self, num_pos_feats=16, temperature=10000, normalize=True):
        super().__init__()
        self.num_pos_feats = num_pos_feats
        self.temperature = temperature
        self.normalize = normalize
        self.scale = 2 * math.pi

    def forward(self, tensor_list: NestedTensor):
        x = tensor_list.tensors
        mask = tensor_list.mask
        not_mask = ~mask
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        if self.normalize:
            eps = 1e-6
            y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
            x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32, device=x.device)
        dim_t = self.temperature ** (2 * (dim_t // 2) / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
        pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
        return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)


class DETR(nn.Module):
    def __init__(self, num_classes=5, hidden_dim=32, num_queries=10):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 64, 3, 2, 1), nn.ReLU())
        self.position_embedding = PositionEmbeddingSine(hidden_dim // 2)
        self.input_proj = nn.Conv2d(64, hidden_dim, kernel_size=1)
        self.encoder = nn.MultiheadAttention(hidden_dim, 4)
        self.decoder = nn.MultiheadAttention(hidden_dim, 4)
        self.query_embed = nn.Embedding(num_queries, hidden_dim)
        self.class_embed = nn.Linear(hidden_dim, num_classes + 1)
        self.bbox_embed = nn.Linear(hidden_dim, 4)

    def forward(self, samples):
        if isinstance(samples, (list, torch.Tensor)):
            samples = nested_tensor_from_tensor_list(samples)
        x = self.body(samples.tensors)
        m = samples.mask
        mask = F.interpolate(m[None].float(), size=x.shape[-2:]).to(torch.bool)[0]
        src = NestedTensor(x, mask)
        pos = self.position_embedding(src).to(x.dtype)

        src = self.input_proj(x)
        bs, c, h, w = src.shape
        src = src.flatten(2).permute(2, 0, 1)
        pos_embed = pos.flatten(2).permute(2, 0, 1)
        query_embed = self.query_embed.weight.unsqueeze(1).repeat(1, bs, 1)
        mask = mask.flatten(1)
        memory = src + self.encoder(src + pos_embed, src + pos_embed, src, key_padding_mask=mask)[0]
        hs = self.decoder(query_embed, memory + pos_embed, memory, key_padding_mask=mask)[0].transpose(0, 1)
        outputs_class = self.class_embed(hs)
        outputs_coord = self.bbox_embed(hs).sigmoid()
        return outputs_class, outputs_coord


def make_model():
    return DETR().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 80),)


def other_inputs():
    return [(torch.rand(3, 3, 72, 64),), (torch.rand(1, 3, 48, 96),)]


def probe_inputs():
    return other_inputs()
