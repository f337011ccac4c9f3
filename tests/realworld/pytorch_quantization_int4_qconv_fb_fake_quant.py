"""A small conv net whose Conv2d layers are pytorch_quantization QuantConv2d with 4-bit TensorQuantizers
(calibrated amax, TensorQuantizer.use_fb_fake_quant = True so that PyTorch's native fake quantization is
used for export); the report says the 4-bit model cannot be exported because "torch.onnx.export is not
support 4bit": _fb_fake_quant calls torch.fake_quantize_per_tensor/per_channel_affine with (-8, 7).

Source: https://github.com/NVIDIA/TensorRT/issues/4262
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-53"


class TensorQuantizer(nn.Module):
    # trimmed from pytorch_quantization/nn/modules/tensor_quantizer.py
    use_fb_fake_quant = True

    def __init__(self, num_bits=4, unsigned=False, amax=None):
        super().__init__()
        self._num_bits = num_bits
        self._unsigned = unsigned
        self.register_buffer('_amax', amax)

    def _fb_fake_quant(self, inputs, amax):
        """Native pytorch fake quantization."""
        bound = (1 << (self._num_bits - 1 + int(self._unsigned))) - 1
        # To be consistent with ONNX, full range is used. e.g. range is [-128, 127] in int8
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
        return self._fb_fake_quant(inputs, self._amax)


class QuantConv2d(nn.Conv2d):
    def __init__(self, in_ch, out_ch, k, num_bits=4, **kw):
        super().__init__(in_ch, out_ch, k, **kw)
        self._input_quantizer = TensorQuantizer(num_bits, amax=torch.tensor(3.0))
        self._weight_quantizer = TensorQuantizer(
            num_bits, amax=self.weight.detach().abs().amax(dim=(1, 2, 3), keepdim=True))

    def forward(self, input):
        quant_input = self._input_quantizer(input)
        quant_weight = self._weight_quantizer(self.weight)
        return F.conv2d(quant_input, quant_weight, self.bias, self.stride, self.padding)


class Int4Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = QuantConv2d(3, 16, 3, padding=1)
        self.conv2 = QuantConv2d(16, 16, 3, padding=1)

    def forward(self, x):
        return self.conv2(F.relu(self.conv1(x)))


def make_model():
    return Int4Net().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 16, 48),)]


def probe_inputs():
    return other_inputs()
