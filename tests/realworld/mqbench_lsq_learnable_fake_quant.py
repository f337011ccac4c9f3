"""MQBench LSQ quantization-aware model: every activation goes through LearnableFakeQuantize, whose
forward calls `torch._fake_quantize_learnable_per_tensor_affine(X, self.scale, self.zero_point,
quant_min, quant_max, grad_factor)`; export fails with "Exporting the operator
_fake_quantize_learnable_per_tensor_affine to ONNX opset version 9 is not supported".

Source: https://github.com/ModelTC/MQBench/issues/183
"""
import torch
from torch import nn
from torch.nn.parameter import Parameter

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-2"


class LearnableFakeQuantize(nn.Module):
    def __init__(self, scale=1., zero_point=0., quant_min=0, quant_max=255, use_grad_scaling=True):
        super(LearnableFakeQuantize, self).__init__()
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.use_grad_scaling = use_grad_scaling
        self.scale = Parameter(torch.tensor([scale]))
        self.zero_point = Parameter(torch.tensor([zero_point]))

    def forward(self, X):
        # observer disabled, fake quant enabled (the exported, calibrated state)
        if self.use_grad_scaling:
            grad_factor = 1.0 / (X.numel() * self.quant_max) ** 0.5
        else:
            grad_factor = 1.0
        X = torch._fake_quantize_learnable_per_tensor_affine(
            X, self.scale, self.zero_point,
            self.quant_min, self.quant_max, grad_factor)
        return X


class QConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.act1 = nn.ReLU()
        self.conv1_post_act_fake_quantizer = LearnableFakeQuantize(scale=0.02, zero_point=0.)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.act2 = nn.ReLU()
        self.conv2_post_act_fake_quantizer = LearnableFakeQuantize(scale=0.02, zero_point=0.)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.conv1_post_act_fake_quantizer(self.act1(self.conv1(x)))
        x = self.conv2_post_act_fake_quantizer(self.act2(self.conv2(x)))
        return self.fc(x.mean(dim=(2, 3)))


def make_model():
    return QConvBlock()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 24, 40),), (torch.randn(1, 3, 17, 29),)]


def probe_inputs():
    return other_inputs()
