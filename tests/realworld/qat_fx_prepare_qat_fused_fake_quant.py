"""FX graph-mode QAT: a two-conv model prepared with `quantize_fx.prepare_qat_fx`, observers switched
off with `model.apply(torch.quantization.disable_observer)`, then exported; the report: "Exporting the
operator fused_moving_avg_obs_fake_quant to ONNX opset version 13 is not supported" (it worked with
PyTorch 1.8, before the default QAT fake-quant became the fused op).

Source: https://github.com/pytorch/pytorch/issues/68638
"""
import torch
import torch.nn as nn
import torch.quantization.quantize_fx as quantize_fx

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-5"


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.conv_0 = nn.Conv2d(in_channels=12, out_channels=16, kernel_size=3)
        self.conv_1 = nn.Conv2d(in_channels=16, out_channels=20, kernel_size=(2,4), stride=(2,1), padding=2, dilation=1)

    def forward(self, x):
        x = self.conv_0(x)
        x = self.conv_1(x)
        return x


def make_model():
    model_to_quantize = Model().train()
    qconfig_dict = {"": torch.quantization.get_default_qat_qconfig('fbgemm')}
    # torch >= 1.13 requires example_inputs for prepare_qat_fx
    model_to_quantize_fx = quantize_fx.prepare_qat_fx(model_to_quantize, qconfig_dict,
                                                      example_inputs=(torch.randn(1, 12, 60, 60),))
    model_to_quantize_fx.apply(torch.quantization.disable_observer)
    return model_to_quantize_fx


def example_inputs():
    return (torch.randn(1, 12, 60, 60),)


def other_inputs():
    return [(torch.randn(2, 12, 48, 64),), (torch.randn(3, 12, 40, 40),)]


def probe_inputs():
    return other_inputs()
