"""AdelaiDet CondInst inference: `DynamicMaskHead` runs only `if len(pred_instances) > 0`, gathers
`mask_feats[im_inds]`, splits the per-instance controller params and applies them with
`F.conv2d(..., groups=num_insts)` where `n_inst = len(instances)`; AdelaiDet's onnx/export_model_to_onnx.py
leaves this dynamic mask head out of the exported graph ("Why is there no dynamic_mask_head in the output
ONNX?"), so users have to re-implement it as post-processing.
(The FCOS detector that produces the instances is replaced by inputs; the head code is the repository's.)

Source: https://github.com/aim-uofa/AdelaiDet/issues/399
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"mask_feats": {0: "batch", 2: "height", 3: "width"}, "mask_head_params": {0: "num_inst"},
           "locations": {0: "num_inst"}, "im_inds": {0: "num_inst"}, "fpn_levels": {0: "num_inst"}}
BLIND = "domains-74"


def compute_locations(h, w, stride, device):
    shifts_x = torch.arange(0, w * stride, step=stride, dtype=torch.float32, device=device)
    shifts_y = torch.arange(0, h * stride, step=stride, dtype=torch.float32, device=device)
    shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x)
    shift_x = shift_x.reshape(-1)
    shift_y = shift_y.reshape(-1)
    locations = torch.stack((shift_x, shift_y), dim=1) + stride // 2
    return locations


def aligned_bilinear(tensor, factor):
    assert tensor.dim() == 4
    assert factor >= 1
    assert int(factor) == factor
    if factor == 1:
        return tensor
    h, w = tensor.size()[2:]
    tensor = F.pad(tensor, pad=(0, 1, 0, 1), mode="replicate")
    oh = factor * h + 1
    ow = factor * w + 1
    tensor = F.interpolate(tensor, size=(oh, ow), mode='bilinear', align_corners=True)
    tensor = F.pad(tensor, pad=(factor // 2, 0, factor // 2, 0), mode="replicate")
    return tensor[:, :, :oh - 1, :ow - 1]


def parse_dynamic_params(params, channels, weight_nums, bias_nums):
    assert params.dim() == 2
    assert len(weight_nums) == len(bias_nums)
    assert params.size(1) == sum(weight_nums) + sum(bias_nums)

    num_insts = params.size(0)
    num_layers = len(weight_nums)

    params_splits = list(torch.split_with_sizes(
        params, weight_nums + bias_nums, dim=1
    ))

    weight_splits = params_splits[:num_layers]
    bias_splits = params_splits[num_layers:]

    for l in range(num_layers):
        if l < num_layers - 1:
            # out_channels x in_channels x 1 x 1
            weight_splits[l] = weight_splits[l].reshape(num_insts * channels, -1, 1, 1)
            bias_splits[l] = bias_splits[l].reshape(num_insts * channels)
        else:
            # out_channels x in_channels x 1 x 1
            weight_splits[l] = weight_splits[l].reshape(num_insts * 1, -1, 1, 1)
            bias_splits[l] = bias_splits[l].reshape(num_insts)

    return weight_splits, bias_splits


class Instances:
    """Minimal stand-in for detectron2.structures.Instances (fields + len)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __len__(self):
        return self.mask_head_params.shape[0]


class DynamicMaskHead(nn.Module):
    def __init__(self, num_layers=3, channels=8, in_channels=8, mask_out_stride=4,
                 soi=(64, 128, 256, 512)):
        super(DynamicMaskHead, self).__init__()
        self.num_layers = num_layers
        self.channels = channels
        self.in_channels = in_channels
        self.mask_out_stride = mask_out_stride
        self.disable_rel_coords = False
        soi = list(soi)
        self.register_buffer("sizes_of_interest", torch.tensor(soi + [soi[-1] * 2]))

        weight_nums, bias_nums = [], []
        for l in range(self.num_layers):
            if l == 0:
                weight_nums.append((self.in_channels + 2) * self.channels)
                bias_nums.append(self.channels)
            elif l == self.num_layers - 1:
                weight_nums.append(self.channels * 1)
                bias_nums.append(1)
            else:
                weight_nums.append(self.channels * self.channels)
                bias_nums.append(self.channels)
        self.weight_nums = weight_nums
        self.bias_nums = bias_nums
        self.num_gen_params = sum(weight_nums) + sum(bias_nums)

    def mask_heads_forward(self, features, weights, biases, num_insts):
        assert features.dim() == 4
        n_layers = len(weights)
        x = features
        for i, (w, b) in enumerate(zip(weights, biases)):
            x = F.conv2d(
                x, w, bias=b,
                stride=1, padding=0,
                groups=num_insts
            )
            if i < n_layers - 1:
                x = F.relu(x)
        return x

    def mask_heads_forward_with_coords(self, mask_feats, mask_feat_stride, instances):
        locations = compute_locations(
            mask_feats.size(2), mask_feats.size(3),
            stride=mask_feat_stride, device=mask_feats.device
        )
        n_inst = len(instances)

        im_inds = instances.im_inds
        mask_head_params = instances.mask_head_params

        N, _, H, W = mask_feats.size()

        instance_locations = instances.locations
        relative_coords = instance_locations.reshape(-1, 1, 2) - locations.reshape(1, -1, 2)
        relative_coords = relative_coords.permute(0, 2, 1).float()
        soi = self.sizes_of_interest.float()[instances.fpn_levels]
        relative_coords = relative_coords / soi.reshape(-1, 1, 1)
        relative_coords = relative_coords.to(dtype=mask_feats.dtype)

        mask_head_inputs = torch.cat([
            relative_coords, mask_feats[im_inds].reshape(n_inst, self.in_channels, H * W)
        ], dim=1)

        mask_head_inputs = mask_head_inputs.reshape(1, -1, H, W)

        weights, biases = parse_dynamic_params(
            mask_head_params, self.channels,
            self.weight_nums, self.bias_nums
        )

        mask_logits = self.mask_heads_forward(mask_head_inputs, weights, biases, n_inst)

        mask_logits = mask_logits.reshape(-1, 1, H, W)

        assert mask_feat_stride >= self.mask_out_stride
        assert mask_feat_stride % self.mask_out_stride == 0
        mask_logits = aligned_bilinear(mask_logits, int(mask_feat_stride / self.mask_out_stride))

        return mask_logits

    def forward(self, mask_feats, mask_head_params, locations, im_inds, fpn_levels):
        mask_feat_stride = 8
        pred_instances = Instances(mask_head_params=mask_head_params, locations=locations,
                                   im_inds=im_inds, fpn_levels=fpn_levels)
        if len(pred_instances) > 0:
            mask_logits = self.mask_heads_forward_with_coords(
                mask_feats, mask_feat_stride, pred_instances
            )
            pred_instances.pred_global_masks = mask_logits.sigmoid()

        return pred_instances.pred_global_masks


def make_model():
    return DynamicMaskHead().eval()


def _inputs(n, n_inst, h, w):
    head = DynamicMaskHead()
    return (torch.randn(n, 8, h, w), torch.randn(n_inst, head.num_gen_params) * 0.1,
            torch.rand(n_inst, 2) * 8 * w, torch.randint(0, n, (n_inst,)), torch.randint(0, 5, (n_inst,)))


def example_inputs():
    return _inputs(2, 5, 12, 16)


def other_inputs():
    return [_inputs(3, 7, 10, 14), _inputs(1, 3, 16, 9)]


def probe_inputs():
    return other_inputs()
