"""NVIDIA pytorch-quantization (QAT toolkit) QuantConv2d exported with `use_fb_fake_quant = True`: the
input TensorQuantizer has no calibrated `_amax`, so `_get_amax` reduces it from the input and
`_fb_fake_quant` passes `amax.item() / bound` as the scale; TracerWarning "Converting a tensor to a
Python number" and the QuantizeLinear scale is whatever the dummy input gave.

Source: https://github.com/NVIDIA/TensorRT/issues/2352
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-11"


def reduce_amax(input, axis=None, keepdims=True):
    with torch.no_grad():
        if axis is None:
            max_val = torch.max(input)
            min_val = torch.min(input)
            output = torch.max(torch.abs(max_val), torch.abs(min_val))
        else:
            max_val = torch.amax(input, dim=axis, keepdim=keepdims)
            min_val = torch.amin(input, dim=axis, keepdim=keepdims)
            output = torch.max(torch.abs(max_val), torch.abs(min_val))
            if output.numel() == 1:
                output.squeeze_()
        return output


class TensorQuantizer(nn.Module):
    use_fb_fake_quant = False

    def __init__(self, num_bits=8, axis=None, unsigned=False):
        super().__init__()
        self._num_bits = num_bits
        self._axis = axis
        self._unsigned = unsigned
        self._scale_amax = None

    def _get_amax(self, inputs):
        """get amax from buffer or compute it dynamically."""
        if hasattr(self, '_amax'):
            amax = self._amax
        else:
            if self._axis is None:
                reduce_axis = None
            else:
                reduce_axis = []
                axis = self._axis if isinstance(self._axis, (list, tuple)) else [self._axis]
                for i in range(inputs.dim()):
                    if not i in axis:
                        reduce_axis.append(i)
            amax = reduce_amax(inputs, axis=reduce_axis, keepdims=True).detach()
        if self._scale_amax is not None:
            amax = amax.detach() * self._scale_amax
        return amax

    def _fb_fake_quant(self, inputs, amax):
        bound = (1 << (self._num_bits - 1 + int(self._unsigned))) - 1
        if amax.numel() == 1:
            outputs = torch.fake_quantize_per_tensor_affine(
                inputs, amax.item() / bound, 0,
                -bound - 1 if not self._unsigned else 0, bound)
        else:
            amax_sequeeze = amax.squeeze().detach().to(inputs.device)
            if len(amax_sequeeze.shape) != 1:
                raise TypeError("Pytorch's native quantization doesn't support multiple axes")
            quant_dim = list(amax.shape).index(list(amax_sequeeze.shape)[0])
            scale = amax_sequeeze / bound
            outputs = torch.fake_quantize_per_channel_affine(
                inputs, scale.data, torch.zeros_like(scale, dtype=torch.int32).data, quant_dim,
                -bound - 1 if not self._unsigned else 0, bound)
        return outputs

    def forward(self, inputs):
        amax = self._get_amax(inputs)
        return self._fb_fake_quant(inputs, amax)


class QuantConv2d(nn.Conv2d):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._input_quantizer = TensorQuantizer()
        self._weight_quantizer = TensorQuantizer(axis=(0,))

    def forward(self, input):
        quant_input = self._input_quantizer(input)
        quant_weight = self._weight_quantizer(self.weight)
        return F.conv2d(quant_input, quant_weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class QuantStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = QuantConv2d(3, 16, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = QuantConv2d(16, 16, kernel_size=3, padding=1, bias=False)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        return self.conv2(x)


def make_model():
    TensorQuantizer.use_fb_fake_quant = True
    return QuantStem().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(3.0 * torch.randn(3, 3, 40, 24),), (0.25 * torch.randn(1, 3, 24, 48),)]


def probe_inputs():
    return other_inputs()
