"""RTMDet-Ins mask branch (mmdet 3.x `RTMDetInsHead._mask_predict_by_feat_single`): after an `if num_inst < 1`
early return, the prototype features are tiled with `mask_feat.repeat(num_inst, 1, 1, 1)` and the per-instance
kernels from `parse_dynamic_params` are applied with `F.conv2d(x, weight, bias=bias, groups=num_inst)`, where
`num_inst = priors.shape[0]` is the number of kept detections. mmdeploy rewrote the function for ONNX export
(dynamic conv replaced with `torch.bmm`) when adding RTMDet-Ins support.

Source: https://github.com/open-mmlab/mmdeploy/pull/1662
"""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"mask_feat": {1: "height", 2: "width"}, "kernels": {0: "num_inst"},
           "priors": {0: "num_inst"}}
BLIND = "domains-55"


class MlvlPointGenerator:
    """mmdet/models/task_modules/prior_generators/point_generator.py (the part used here)."""

    def __init__(self, strides, offset=0.5):
        self.strides = [(stride, stride) for stride in strides]
        self.offset = offset

    def _meshgrid(self, x, y, row_major=True):
        yy, xx = torch.meshgrid(y, x)
        if row_major:
            return xx.reshape(-1), yy.reshape(-1)
        else:
            return yy.reshape(-1), xx.reshape(-1)

    def single_level_grid_priors(self, featmap_size, level_idx, dtype=torch.float32,
                                 device='cuda', with_stride=False):
        feat_h, feat_w = featmap_size
        stride_w, stride_h = self.strides[level_idx]
        shift_x = (torch.arange(0, feat_w, device=device) + self.offset) * stride_w
        # keep featmap_size as Tensor instead of int, so that we
        # can convert to ONNX correctly
        shift_x = shift_x.to(dtype)

        shift_y = (torch.arange(0, feat_h, device=device) + self.offset) * stride_h
        # keep featmap_size as Tensor instead of int, so that we
        # can convert to ONNX correctly
        shift_y = shift_y.to(dtype)
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        if not with_stride:
            shifts = torch.stack([shift_xx, shift_yy], dim=-1)
        else:
            stride_w = shift_xx.new_full((shift_xx.shape[0], ), stride_w).to(dtype)
            stride_h = shift_xx.new_full((shift_yy.shape[0], ), stride_h).to(dtype)
            shifts = torch.stack([shift_xx, shift_yy, stride_w, stride_h], dim=-1)
        all_points = shifts.to(device)
        return all_points


class RTMDetInsMaskBranch(nn.Module):
    def __init__(self, num_prototypes=8, dyconv_channels=8, num_dyconvs=3, strides=(8, 16, 32)):
        super().__init__()
        self.num_prototypes = num_prototypes
        self.dyconv_channels = dyconv_channels
        self.num_dyconvs = num_dyconvs
        self.prior_generator = MlvlPointGenerator(strides, offset=0)
        weight_nums, bias_nums = [], []
        for i in range(self.num_dyconvs):
            if i == 0:
                weight_nums.append((self.num_prototypes + 2) * self.dyconv_channels)
                bias_nums.append(self.dyconv_channels)
            elif i == self.num_dyconvs - 1:
                weight_nums.append(self.dyconv_channels)
                bias_nums.append(1)
            else:
                weight_nums.append(self.dyconv_channels * self.dyconv_channels)
                bias_nums.append(self.dyconv_channels)
        self.weight_nums = weight_nums
        self.bias_nums = bias_nums
        self.num_gen_params = sum(weight_nums) + sum(bias_nums)

    def parse_dynamic_params(self, flatten_kernels: Tensor) -> tuple:
        """split kernel head prediction to conv weight and bias."""
        n_inst = flatten_kernels.size(0)
        n_layers = len(self.weight_nums)
        params_splits = list(
            torch.split_with_sizes(
                flatten_kernels, self.weight_nums + self.bias_nums, dim=1))
        weight_splits = params_splits[:n_layers]
        bias_splits = params_splits[n_layers:]
        for i in range(n_layers):
            if i < n_layers - 1:
                weight_splits[i] = weight_splits[i].reshape(
                    n_inst * self.dyconv_channels, -1, 1, 1)
                bias_splits[i] = bias_splits[i].reshape(n_inst * self.dyconv_channels)
            else:
                weight_splits[i] = weight_splits[i].reshape(n_inst, -1, 1, 1)
                bias_splits[i] = bias_splits[i].reshape(n_inst)

        return weight_splits, bias_splits

    def _mask_predict_by_feat_single(self, mask_feat: Tensor, kernels: Tensor,
                                     priors: Tensor) -> Tensor:
        num_inst = priors.shape[0]
        h, w = mask_feat.size()[-2:]
        if num_inst < 1:
            return torch.empty(
                size=(num_inst, h, w),
                dtype=mask_feat.dtype,
                device=mask_feat.device)
        if len(mask_feat.shape) < 4:
            mask_feat.unsqueeze(0)

        coord = self.prior_generator.single_level_grid_priors(
            (h, w), level_idx=0, device=mask_feat.device).reshape(1, -1, 2)
        num_inst = priors.shape[0]
        points = priors[:, :2].reshape(-1, 1, 2)
        strides = priors[:, 2:].reshape(-1, 1, 2)
        relative_coord = (points - coord).permute(0, 2, 1) / (
            strides[..., 0].reshape(-1, 1, 1) * 8)
        relative_coord = relative_coord.reshape(num_inst, 2, h, w)

        mask_feat = torch.cat(
            [relative_coord,
             mask_feat.repeat(num_inst, 1, 1, 1)], dim=1)
        weights, biases = self.parse_dynamic_params(kernels)

        n_layers = len(weights)
        x = mask_feat.reshape(1, -1, h, w)
        for i, (weight, bias) in enumerate(zip(weights, biases)):
            x = F.conv2d(
                x, weight, bias=bias, stride=1, padding=0, groups=num_inst)
            if i < n_layers - 1:
                x = F.relu(x)
        x = x.reshape(num_inst, h, w)
        return x

    def forward(self, mask_feat, kernels, priors):
        mask_logits = self._mask_predict_by_feat_single(mask_feat, kernels, priors)
        stride = self.prior_generator.strides[0][0]
        mask_logits = F.interpolate(
            mask_logits.unsqueeze(0), scale_factor=stride, mode='bilinear')
        masks = mask_logits.sigmoid()
        return masks


def make_model():
    return RTMDetInsMaskBranch().eval()


def _inputs(n, h, w):
    mask_feat = torch.randn(8, h, w)
    kernels = torch.randn(n, 169) * 0.3
    stride = torch.tensor([8., 16., 32.])[torch.randint(0, 3, (n,))]
    xy = torch.rand(n, 2) * torch.tensor([w * 8., h * 8.])
    priors = torch.cat([xy, stride[:, None], stride[:, None]], dim=1)
    return (mask_feat, kernels, priors)


def example_inputs():
    return _inputs(5, 20, 24)


def other_inputs():
    return [_inputs(9, 16, 30), _inputs(3, 28, 20)]


def probe_inputs():
    return other_inputs()
