"""detectron2 Mask R-CNN mask postprocessing (before "make mask r-cnn postprocessing traceable"):
ROIMasks.to_bitmasks pastes the 28x28 mask probabilities into full-image masks with paste_masks_in_image, which
returns early on `N == 0`, loops over `torch.chunk(torch.arange(N), N)` on CPU, builds `torch.arange(y0_int,
y1_int)` from the boxes' values and writes each chunk through value-dependent slices; the commit wraps it in
`torch.jit.script_if_tracing` so an exported model can output full-image masks.

Source: https://github.com/facebookresearch/detectron2/commit/175b2453c2bc4227b8039118c01494ee75b08136
"""
from typing import Tuple

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"image": {2: "height", 3: "width"}, "roi_features": {0: "num_dets"}, "boxes": {0: "num_dets"}}
BLIND = "domains-53"

BYTES_PER_FLOAT = 4
GPU_MEM_LIMIT = 1024 ** 3  # 1 GB memory limit


def retry_if_cuda_oom(func):
    return func


def _do_paste_mask(masks, boxes, img_h: int, img_w: int, skip_empty: bool = True):
    device = masks.device

    if skip_empty and not torch.jit.is_scripting():
        x0_int, y0_int = torch.clamp(boxes.min(dim=0).values.floor()[:2] - 1, min=0).to(
            dtype=torch.int32
        )
        x1_int = torch.clamp(boxes[:, 2].max().ceil() + 1, max=img_w).to(dtype=torch.int32)
        y1_int = torch.clamp(boxes[:, 3].max().ceil() + 1, max=img_h).to(dtype=torch.int32)
    else:
        x0_int, y0_int = 0, 0
        x1_int, y1_int = img_w, img_h
    x0, y0, x1, y1 = torch.split(boxes, 1, dim=1)  # each is Nx1

    N = masks.shape[0]

    img_y = torch.arange(y0_int, y1_int, device=device, dtype=torch.float32) + 0.5
    img_x = torch.arange(x0_int, x1_int, device=device, dtype=torch.float32) + 0.5
    img_y = (img_y - y0) / (y1 - y0) * 2 - 1
    img_x = (img_x - x0) / (x1 - x0) * 2 - 1

    gx = img_x[:, None, :].expand(N, img_y.size(1), img_x.size(1))
    gy = img_y[:, :, None].expand(N, img_y.size(1), img_x.size(1))
    grid = torch.stack([gx, gy], dim=3)

    if not torch.jit.is_scripting():
        if not masks.dtype.is_floating_point:
            masks = masks.float()
    img_masks = F.grid_sample(masks, grid.to(masks.dtype), align_corners=False)

    if skip_empty and not torch.jit.is_scripting():
        return img_masks[:, 0], (slice(y0_int, y1_int), slice(x0_int, x1_int))
    else:
        return img_masks[:, 0], ()


def paste_masks_in_image(masks: torch.Tensor, boxes, image_shape: Tuple[int, int], threshold: float = 0.5):
    assert masks.shape[-1] == masks.shape[-2], "Only square mask predictions are supported"
    N = len(masks)
    if N == 0:
        return masks.new_empty((0,) + image_shape, dtype=torch.uint8)
    if not isinstance(boxes, torch.Tensor):
        boxes = boxes.tensor
    device = boxes.device
    assert len(boxes) == N, boxes.shape

    img_h, img_w = image_shape

    if device.type == "cpu" or torch.jit.is_scripting():
        num_chunks = N
    else:
        num_chunks = int(np.ceil(N * int(img_h) * int(img_w) * BYTES_PER_FLOAT / GPU_MEM_LIMIT))
        assert num_chunks <= N, "Default GPU_MEM_LIMIT in mask_ops.py is too small; try increasing it"
    chunks = torch.chunk(torch.arange(N, device=device), num_chunks)

    img_masks = torch.zeros(
        N, img_h, img_w, device=device, dtype=torch.bool if threshold >= 0 else torch.uint8
    )
    for inds in chunks:
        masks_chunk, spatial_inds = _do_paste_mask(
            masks[inds, None, :, :], boxes[inds], img_h, img_w, skip_empty=device.type == "cpu"
        )

        if threshold >= 0:
            masks_chunk = (masks_chunk >= threshold).to(dtype=torch.bool)
        else:
            masks_chunk = (masks_chunk * 255).to(dtype=torch.uint8)

        if torch.jit.is_scripting():
            img_masks[inds] = masks_chunk
        else:
            img_masks[(inds,) + spatial_inds] = masks_chunk
    return img_masks


class ROIMasks:
    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor

    def to_bitmasks(self, boxes: torch.Tensor, height, width, threshold=0.5):
        paste = retry_if_cuda_oom(paste_masks_in_image)
        bitmasks = paste(self.tensor, boxes, (height, width), threshold=threshold)
        return bitmasks


class MaskRCNNPostprocess(nn.Module):
    """A small mask head (deconv + predictor) followed by the detector_postprocess mask pasting."""

    def __init__(self, in_channels=8):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, 8, 2, stride=2)
        self.predictor = nn.Conv2d(8, 1, 1)

    def forward(self, image, roi_features, boxes):
        output_height, output_width = image.shape[-2:]
        mask_probs = self.predictor(F.relu(self.deconv(roi_features))).sigmoid()[:, 0]  # N x 28 x 28
        roi_masks = ROIMasks(mask_probs)
        return roi_masks.to_bitmasks(boxes, output_height, output_width, 0.5)


def make_model():
    return MaskRCNNPostprocess().eval()


def _inputs(h, w, n):
    xy = torch.rand(n, 2) * torch.tensor([w * 0.6, h * 0.6])
    wh = torch.rand(n, 2) * torch.tensor([w * 0.3, h * 0.3]) + 8
    return (torch.randn(1, 3, h, w), torch.randn(n, 8, 14, 14), torch.cat([xy, xy + wh], dim=1))


def example_inputs():
    return _inputs(96, 128, 4)


def other_inputs():
    return [_inputs(128, 80, 6), _inputs(64, 96, 2)]


def probe_inputs():
    return other_inputs()
