"""CenterPoint (det3d) PointPillars reader after pytorch-quantization QAT calibration: the PFN layer's
QuantLinear calls `fake_tensor_quant`, a Python `torch.autograd.Function` (FakeTensorQuantFunction)
whose `_tensor_quant` branches on `amax.min()`; exporting `model.reader` (voxels, num_voxels,
coordinates) fails with "ONNX export failed: Couldn't export Python operator FakeTensorQuantFunction".

Source: https://github.com/NVIDIA/TensorRT/issues/2398
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Function

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"features": {0: "voxels"}, "num_voxels": {0: "voxels"}, "coors": {0: "voxels"}}
BLIND = "domains-11"


def _tensor_quant(inputs, amax, num_bits=8, unsigned=False, narrow_range=True):
    """Shared function body between TensorQuantFunction and FakeTensorQuantFunction"""
    input_dtype = inputs.dtype
    min_amax = amax.min()
    if min_amax < 0:
        raise ValueError("Negative values in amax")
    max_bound = torch.tensor((2.0**(num_bits - 1 + int(unsigned))) - 1.0, device=amax.device)
    if unsigned:
        min_bound = 0
    elif narrow_range:
        min_bound = -max_bound
    else:
        min_bound = -max_bound - 1
    scale = max_bound / amax
    epsilon = 1. / (1 << 24)
    if min_amax <= epsilon:  # Treat amax smaller than minimum representable of fp16 0
        zero_amax_mask = (amax <= epsilon)
        scale[zero_amax_mask] = 0
    outputs = torch.clamp((inputs * scale).round_(), min_bound, max_bound)
    if min_amax <= epsilon:
        scale[zero_amax_mask] = 1.
    return outputs, scale


class FakeTensorQuantFunction(Function):
    """Fake version of TensorQuantFunction"""

    @staticmethod
    def forward(ctx, inputs, amax, num_bits=8, unsigned=False, narrow_range=True):
        ctx.save_for_backward(inputs, amax)
        outputs, scale = _tensor_quant(inputs, amax, num_bits, unsigned, narrow_range)
        return outputs / scale.to(inputs.dtype)

    @staticmethod
    def backward(ctx, grad_outputs):
        inputs, amax = ctx.saved_tensors
        zero = grad_outputs.new_zeros(1)
        grad_inputs = torch.where(inputs.abs() <= amax, grad_outputs, zero)
        return grad_inputs, None, None, None, None


fake_tensor_quant = FakeTensorQuantFunction.apply


class TensorQuantizer(nn.Module):
    def __init__(self, amax, num_bits=8, unsigned=False, narrow_range=True):
        super().__init__()
        self._num_bits, self._unsigned, self._narrow_range = num_bits, unsigned, narrow_range
        self.register_buffer('_amax', amax)  # loaded by load_calib_amax()

    def forward(self, inputs):
        return fake_tensor_quant(inputs, self._amax, self._num_bits, self._unsigned, self._narrow_range)


class QuantLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self._input_quantizer = TensorQuantizer(torch.tensor(4.0))
        self._weight_quantizer = TensorQuantizer(self.weight.detach().abs().amax(dim=1, keepdim=True))

    def forward(self, input):
        quant_input = self._input_quantizer(input)
        quant_weight = self._weight_quantizer(self.weight)
        return F.linear(quant_input, quant_weight, bias=self.bias)


def get_paddings_indicator(actual_num, max_num, axis=0):
    actual_num = torch.unsqueeze(actual_num, axis + 1)
    max_num_shape = [1] * len(actual_num.shape)
    max_num_shape[axis + 1] = -1
    max_num = torch.arange(max_num, dtype=torch.int, device=actual_num.device).view(max_num_shape)
    paddings_indicator = actual_num.int() > max_num
    return paddings_indicator


class PFNLayer(nn.Module):
    def __init__(self, in_channels, out_channels, last_layer=False):
        super().__init__()
        self.units = out_channels if last_layer else out_channels // 2
        self.linear = QuantLinear(in_channels, self.units, bias=False)
        self.norm = nn.BatchNorm1d(self.units, eps=1e-3, momentum=0.01)
        self.last_vfe = last_layer

    def forward(self, inputs):
        x = self.linear(inputs)
        x = self.norm(x.permute(0, 2, 1).contiguous()).permute(0, 2, 1).contiguous()
        x = F.relu(x)
        x_max = torch.max(x, dim=1, keepdim=True)[0]
        if self.last_vfe:
            return x_max
        x_repeat = x_max.repeat(1, inputs.shape[1], 1)
        return torch.cat([x, x_repeat], dim=2)


class PillarFeatureNet(nn.Module):
    def __init__(self, num_input_features=4, num_filters=(64,), voxel_size=(0.2, 0.2, 8),
                 pc_range=(-51.2, -51.2, -5.0, 51.2, 51.2, 3.0)):
        super().__init__()
        num_input_features += 5
        self.pfn_layers = nn.ModuleList([PFNLayer(num_input_features, num_filters[0], last_layer=True)])
        self.vx, self.vy = voxel_size[0], voxel_size[1]
        self.x_offset = self.vx / 2 + pc_range[0]
        self.y_offset = self.vy / 2 + pc_range[1]

    def forward(self, features, num_voxels, coors):
        points_mean = features[:, :, :3].sum(dim=1, keepdim=True) / num_voxels.type_as(features).view(-1, 1, 1)
        f_cluster = features[:, :, :3] - points_mean
        f_center = torch.zeros_like(features[:, :, :2])
        f_center[:, :, 0] = features[:, :, 0] - (coors[:, 3].float().unsqueeze(1) * self.vx + self.x_offset)
        f_center[:, :, 1] = features[:, :, 1] - (coors[:, 2].float().unsqueeze(1) * self.vy + self.y_offset)
        features = torch.cat([features, f_cluster, f_center], dim=-1)
        voxel_count = features.shape[1]
        mask = get_paddings_indicator(num_voxels, voxel_count, axis=0)
        mask = torch.unsqueeze(mask, -1).type_as(features)
        features *= mask
        for pfn in self.pfn_layers:
            features = pfn(features)
        return features.squeeze()


def make_model():
    return PillarFeatureNet().eval()


def _voxels(n):
    num = torch.randint(1, 21, (n,), dtype=torch.int32)
    coors = torch.cat([torch.zeros(n, 1, dtype=torch.int32), torch.zeros(n, 1, dtype=torch.int32),
                       torch.randint(0, 512, (n, 2), dtype=torch.int32)], dim=1)
    return (torch.randn(n, 20, 4), num, coors)


def example_inputs():
    return _voxels(64)


def other_inputs():
    return [_voxels(100), _voxels(37)]


def probe_inputs():
    return other_inputs()
