"""CondInst mask head (mmdet 3.x `CondInstMaskHead.forward_single`): the per-instance dynamic filters are
applied with `F.conv2d(x, w, bias=b, groups=num_insts)` where `num_insts = pos_param_preds.shape[0]` is the
number of detected instances, after an `if num_inst == 0` early return; mmdeploy could not export this head
as written and rewrote it for ONNX ("replace dynamic conv with bmm") when adding CondInst support.

Source: https://github.com/open-mmlab/mmdeploy/pull/2469
"""
from typing import List, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}, "param_preds": {0: "num_inst"},
           "points": {0: "num_inst"}, "strides": {0: "num_inst"}}
BLIND = "domains-42"


def aligned_bilinear(tensor: Tensor, factor: int) -> Tensor:
    assert tensor.dim() == 4
    assert factor >= 1
    assert int(factor) == factor
    if factor == 1:
        return tensor
    h, w = tensor.size()[2:]
    tensor = F.pad(tensor, pad=(0, 1, 0, 1), mode='replicate')
    oh = factor * h + 1
    ow = factor * w + 1
    tensor = F.interpolate(tensor, size=(oh, ow), mode='bilinear', align_corners=True)
    tensor = F.pad(tensor, pad=(factor // 2, 0, factor // 2, 0), mode='replicate')
    return tensor[:, :, :oh - 1, :ow - 1]


def relative_coordinate_maps(locations, centers, strides, size_of_interest, feat_sizes):
    H, W = feat_sizes
    rel_coordinates = centers.reshape(-1, 1, 2) - locations.reshape(1, -1, 2)
    rel_coordinates = rel_coordinates.permute(0, 2, 1).float()
    rel_coordinates = rel_coordinates / (strides[:, None, None] * size_of_interest)
    return rel_coordinates.reshape(-1, 2, H, W)


class MlvlPointGenerator:
    def __init__(self, strides, offset=0.5):
        self.strides = [(s, s) for s in strides]
        self.offset = offset

    def _meshgrid(self, x, y):
        yy, xx = torch.meshgrid(y, x, indexing='ij')
        return xx.reshape(-1), yy.reshape(-1)

    def single_level_grid_priors(self, featmap_size, level_idx, dtype=torch.float32, device='cuda'):
        feat_h, feat_w = featmap_size
        stride_w, stride_h = self.strides[level_idx]
        shift_x = ((torch.arange(0, feat_w, device=device) + self.offset) * stride_w).to(dtype)
        shift_y = ((torch.arange(0, feat_h, device=device) + self.offset) * stride_h).to(dtype)
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        return torch.stack([shift_xx, shift_yy], dim=-1).to(device)


class CondInstMaskHead(nn.Module):
    def __init__(self, in_feat=16, num_layers=3, feat_channels=8, mask_out_stride=4, size_of_interest=8):
        super().__init__()
        self.mask_feature_head = nn.Conv2d(in_feat, 8, 3, padding=1)  # MaskFeatModule stand-in
        self.mask_feat_stride = 8
        self.in_channels = 8
        self.num_layers = num_layers
        self.feat_channels = feat_channels
        self.size_of_interest = size_of_interest
        self.mask_out_stride = mask_out_stride
        self.prior_generator = MlvlPointGenerator([self.mask_feat_stride])
        self._init_layers()

    def _init_layers(self) -> None:
        weight_nums, bias_nums = [], []
        for i in range(self.num_layers):
            if i == 0:
                weight_nums.append((self.in_channels + 2) * self.feat_channels)
                bias_nums.append(self.feat_channels)
            elif i == self.num_layers - 1:
                weight_nums.append(self.feat_channels * 1)
                bias_nums.append(1)
            else:
                weight_nums.append(self.feat_channels * self.feat_channels)
                bias_nums.append(self.feat_channels)
        self.weight_nums = weight_nums
        self.bias_nums = bias_nums
        self.num_params = sum(weight_nums) + sum(bias_nums)

    def parse_dynamic_params(self, params: Tensor) -> Tuple[List[Tensor], List[Tensor]]:
        """parse the dynamic params for dynamic conv."""
        num_insts = params.size(0)
        params_splits = list(torch.split_with_sizes(params, self.weight_nums + self.bias_nums, dim=1))
        weight_splits = params_splits[:self.num_layers]
        bias_splits = params_splits[self.num_layers:]
        for i in range(self.num_layers):
            if i < self.num_layers - 1:
                weight_splits[i] = weight_splits[i].reshape(num_insts * self.in_channels, -1, 1, 1)
                bias_splits[i] = bias_splits[i].reshape(num_insts * self.in_channels)
            else:
                # out_channels x in_channels x 1 x 1
                weight_splits[i] = weight_splits[i].reshape(num_insts * 1, -1, 1, 1)
                bias_splits[i] = bias_splits[i].reshape(num_insts)
        return weight_splits, bias_splits

    def dynamic_conv_forward(self, features: Tensor, weights: List[Tensor],
                             biases: List[Tensor], num_insts: int) -> Tensor:
        """dynamic forward, each layer follow a relu."""
        n_layers = len(weights)
        x = features
        for i, (w, b) in enumerate(zip(weights, biases)):
            x = F.conv2d(x, w, bias=b, stride=1, padding=0, groups=num_insts)
            if i < n_layers - 1:
                x = F.relu(x)
        return x

    def forward_single(self, mask_feat: Tensor, pos_param_preds, pos_points, pos_strides) -> Tensor:
        num_inst = pos_param_preds.shape[0]
        mask_feat = mask_feat[None].repeat(num_inst, 1, 1, 1)
        _, _, H, W = mask_feat.size()
        if num_inst == 0:
            return (pos_param_preds.new_zeros((0, 1, H, W)), )

        locations = self.prior_generator.single_level_grid_priors(
            mask_feat.size()[2:], 0, device=mask_feat.device)

        rel_coords = relative_coordinate_maps(locations, pos_points, pos_strides,
                                              self.size_of_interest, mask_feat.size()[2:])
        mask_head_inputs = torch.cat([rel_coords, mask_feat], dim=1)
        mask_head_inputs = mask_head_inputs.reshape(1, -1, H, W)

        weights, biases = self.parse_dynamic_params(pos_param_preds)
        mask_preds = self.dynamic_conv_forward(mask_head_inputs, weights, biases, num_inst)
        mask_preds = mask_preds.reshape(-1, H, W)
        mask_preds = aligned_bilinear(
            mask_preds.unsqueeze(0), int(self.mask_feat_stride / self.mask_out_stride)).squeeze(0)
        return (mask_preds, )

    def forward(self, x, param_preds, points, strides):
        mask_feats = self.mask_feature_head(x)
        return self.forward_single(mask_feats[0], param_preds, points, strides)[0]


def make_model():
    return CondInstMaskHead().eval()


def _inputs(n, h, w):
    points = torch.rand(n, 2) * torch.tensor([w * 8.0, h * 8.0])
    strides = torch.tensor([8.0, 16.0, 32.0, 64.0, 128.0])[torch.randint(0, 5, (n,))]
    return (torch.randn(1, 16, h, w), torch.randn(n, 169) * 0.1, points, strides)


def example_inputs():
    return _inputs(5, 20, 24)


def other_inputs():
    return [_inputs(7, 16, 30), _inputs(3, 28, 20)]


def probe_inputs():
    return other_inputs()
