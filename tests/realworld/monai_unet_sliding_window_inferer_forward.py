"""A MONAI UNet trained on patches of very wide medical images runs its inference through
monai.inferers.SlidingWindowInferer inside the exported forward: the window grid is built in Python from
the image size (scan intervals, dense_patch_slices with NumPy), the windows are run in a Python loop and
stitched into zero buffers of the image's size; the user reports the model cannot be converted to ONNX.

Source: https://github.com/Project-MONAI/MONAI/issues/6526
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-22"


# ---- monai/data/utils.py and monai/inferers/utils.py (constant blending, tensor output), trimmed ----
def dense_patch_slices(image_size, patch_size, scan_interval):
    num_spatial_dims = len(image_size)
    scan_num = []
    for i in range(num_spatial_dims):
        if scan_interval[i] == 0:
            scan_num.append(1)
        else:
            num = int(math.ceil(float(image_size[i]) / scan_interval[i]))
            scan_dim = next((d for d in range(num) if d * scan_interval[i] + patch_size[i] >= image_size[i]), None)
            scan_num.append(scan_dim + 1 if scan_dim is not None else 1)
    starts = []
    for dim in range(num_spatial_dims):
        dim_starts = []
        for idx in range(scan_num[dim]):
            start_idx = idx * scan_interval[dim]
            start_idx -= max(start_idx + patch_size[dim] - image_size[dim], 0)
            dim_starts.append(start_idx)
        starts.append(dim_starts)
    out = np.asarray([x.flatten() for x in np.meshgrid(*starts, indexing="ij")]).T
    return [tuple(slice(s, s + patch_size[d]) for d, s in enumerate(x)) for x in out]


def _get_scan_interval(image_size, roi_size, num_spatial_dims, overlap):
    scan_interval = []
    for i in range(num_spatial_dims):
        if roi_size[i] == image_size[i]:
            scan_interval.append(int(roi_size[i]))
        else:
            interval = int(roi_size[i] * (1 - overlap))
            scan_interval.append(interval if interval > 0 else 1)
    return tuple(scan_interval)


def sliding_window_inference(inputs, roi_size, sw_batch_size, predictor, overlap=0.25, cval=0.0):
    compute_dtype = inputs.dtype
    num_spatial_dims = len(inputs.shape) - 2
    batch_size, _, *image_size_ = inputs.shape
    device = inputs.device

    # in case that image size is smaller than roi size
    image_size = tuple(max(image_size_[i], roi_size[i]) for i in range(num_spatial_dims))
    pad_size = []
    for k in range(len(inputs.shape) - 1, 1, -1):
        diff = max(roi_size[k - 2] - inputs.shape[k], 0)
        half = diff // 2
        pad_size.extend([half, diff - half])
    if max(pad_size) > 0:
        inputs = F.pad(inputs, pad=pad_size, mode="constant", value=cval)

    scan_interval = _get_scan_interval(image_size, roi_size, num_spatial_dims, overlap)
    slices = dense_patch_slices(image_size, roi_size, scan_interval)
    num_win = len(slices)  # number of windows per image
    total_slices = num_win * batch_size  # total number of windows

    importance_map_ = torch.ones(roi_size, dtype=compute_dtype, device=device)
    min_non_zero = max(torch.min(importance_map_).item(), 1e-3)
    importance_map_ = torch.clamp_(importance_map_.to(torch.float32), min=min_non_zero).to(compute_dtype)

    output_image, count_map = None, None
    for slice_g in range(0, total_slices, sw_batch_size):
        slice_range = range(slice_g, min(slice_g + sw_batch_size, total_slices))
        unravel_slice = [
            [slice(int(idx / num_win), int(idx / num_win) + 1), slice(None)] + list(slices[idx % num_win])
            for idx in slice_range
        ]
        window_data = torch.cat([inputs[win_slice] for win_slice in unravel_slice])
        seg_prob = predictor(window_data)  # batched patch segmentation

        if output_image is None:  # init. the buffer at the first iteration
            output_shape = [batch_size, seg_prob.shape[1]] + list(image_size)
            output_image = torch.zeros(output_shape, dtype=compute_dtype, device=device)
            count_map = torch.zeros([1, 1] + output_shape[2:], dtype=compute_dtype, device=device)

        for idx, original_idx in zip(slice_range, unravel_slice):
            output_image[original_idx] += importance_map_ * seg_prob[idx - slice_g]
            count_map[original_idx] += importance_map_.unsqueeze(0).unsqueeze(0).expand(count_map[original_idx].shape)

    for _i in range(output_image.shape[1]):
        output_image[:, _i : _i + 1, ...] /= count_map

    # remove padding if image_size smaller than roi_size
    final_slicing = []
    for sp in range(num_spatial_dims):
        slice_dim = slice(pad_size[sp * 2], image_size_[num_spatial_dims - sp - 1] + pad_size[sp * 2])
        final_slicing.insert(0, slice_dim)
    while len(final_slicing) < len(output_image.shape):
        final_slicing.insert(0, slice(None))
    return output_image[final_slicing]


class UNet(nn.Module):
    def __init__(self, in_channels=1, out_channels=2, ch=8):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(in_channels, ch, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(ch, 2 * ch, 3, stride=2, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(2 * ch, ch, 2, stride=2)
        self.head = nn.Conv2d(2 * ch, out_channels, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        d = self.up(self.enc2(e1))
        return self.head(torch.cat([e1, d], dim=1))


class SegmentationModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = UNet()
        self.roi_size = (32, 32)
        self.sw_batch_size = 4

    def forward(self, inputs):
        return sliding_window_inference(inputs, self.roi_size, self.sw_batch_size, self.net, overlap=0.25)


def make_model():
    return SegmentationModel().eval()


def example_inputs():
    return (torch.randn(2, 1, 40, 96),)


def other_inputs():
    return [(torch.randn(1, 1, 32, 160),), (torch.randn(3, 1, 56, 72),)]


def probe_inputs():
    return other_inputs()
