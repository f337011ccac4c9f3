"""detectron2 Mask R-CNN post-processing pastes the 28x28 ROI masks into the image with the
`@torch.jit.script_if_tracing` paste_masks_in_image, whose `if N == 0:` early exit returns a uint8 empty tensor
while the normal path returns a bool mask; torch.onnx.export warns the model failed ONNX shape inference
("(op_type:If) [TypeInferenceError] Mismatched tensor element type: source=9 target=2") and it cannot run in ORT.

Source: https://github.com/facebookresearch/detectron2/issues/4907
"""
from typing import Tuple

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"mask_logits": {0: "num_instances"}, "boxes": {0: "num_instances"},
           "image": {2: "height", 3: "width"}}
BLIND = "domains-13"


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


@torch.jit.script_if_tracing
def paste_masks_in_image(
    masks: torch.Tensor, boxes: torch.Tensor, image_shape: Tuple[int, int], threshold: float = 0.5
):
    assert masks.shape[-1] == masks.shape[-2], "Only square mask predictions are supported"
    N = len(masks)
    if N == 0:
        return masks.new_empty((0,) + image_shape, dtype=torch.uint8)
    device = boxes.device
    assert len(boxes) == N, boxes.shape

    img_h, img_w = image_shape

    # CPU is most efficient when they are pasted one by one with skip_empty=True
    num_chunks = N
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
            # for visualization and debugging
            masks_chunk = (masks_chunk * 255).to(dtype=torch.uint8)

        if torch.jit.is_scripting():  # Scripting does not use the optimized codepath
            img_masks[inds] = masks_chunk
        else:
            img_masks[(inds,) + spatial_inds] = masks_chunk
    return img_masks


@torch.jit.script_if_tracing
def _paste_masks_tensor_shape(
    masks: torch.Tensor,
    boxes: torch.Tensor,
    image_shape: Tuple[torch.Tensor, torch.Tensor],
    threshold: float = 0.5,
):
    """During tracing, shapes are tensors instead of ints; the Tensor->int conversion is scripted."""
    return paste_masks_in_image(masks, boxes, (int(image_shape[0]), int(image_shape[1])), threshold)


class MaskRCNNPostprocess(nn.Module):
    """mask_rcnn_inference + detector_postprocess: sigmoid of the class-specific mask logits, then paste."""

    def __init__(self, mask_threshold=0.5):
        super().__init__()
        self.mask_threshold = mask_threshold

    def forward(self, mask_logits, boxes, image):
        mask_probs_pred = mask_logits.sigmoid()
        output_height, output_width = image.shape[-2:]
        # ROIMasks.to_bitmasks: during tracing the image size comes as tensors
        if torch.jit.is_tracing() and isinstance(output_height, torch.Tensor):
            paste_func = _paste_masks_tensor_shape
        else:
            paste_func = paste_masks_in_image
        return paste_func(mask_probs_pred, boxes, (output_height, output_width), threshold=self.mask_threshold)


def make_model():
    return MaskRCNNPostprocess().eval()


def _boxes(n, h, w):
    xy = torch.rand(n, 2) * torch.tensor([w * 0.6, h * 0.6])
    wh = 4 + torch.rand(n, 2) * torch.tensor([w * 0.35, h * 0.35])
    return torch.cat([xy, xy + wh], dim=1)


def example_inputs():
    return (torch.randn(4, 28, 28), _boxes(4, 48, 64), torch.randn(1, 3, 48, 64))


def other_inputs():
    return [(torch.randn(7, 28, 28), _boxes(7, 40, 56), torch.randn(1, 3, 40, 56)),
            (torch.randn(2, 28, 28), _boxes(2, 64, 40), torch.randn(1, 3, 64, 40))]


def probe_inputs():
    return other_inputs()
