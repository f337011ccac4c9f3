"""StyleGAN2 generator (adriansahlman/stylegan2_pytorch) modulated ConvLayer: the style-modulated,
demodulated kernel is built per sample at run time and applied as one grouped F.conv2d with
groups=input.size(0). The report: torch.onnx.export of the generator fails with
"Unsupported: ONNX export of convolution for kernel of unknown shape".

Source: https://github.com/adriansahlman/stylegan2_pytorch/issues/23
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}, "latent": {0: "batch"}}
BLIND = "operators-15"


def _get_weight_and_coef(shape, lr_mul=1, weight_scale=True, gain=1, fill=None):
    fan_in = np.prod(shape[1:])
    he_std = gain / np.sqrt(fan_in)
    if weight_scale:
        init_std = 1 / lr_mul
        runtime_coef = he_std * lr_mul
    else:
        init_std = he_std / lr_mul
        runtime_coef = lr_mul
    weight = torch.empty(*shape)
    if fill is None:
        weight.normal_(0, init_std)
    else:
        weight.fill_(fill)
    return nn.Parameter(weight), runtime_coef


def _apply_conv(input, *args, transpose=False, **kwargs):
    dim = input.dim() - 2
    conv_fn = getattr(
        F, 'conv{}{}d'.format('_transpose' if transpose else '', dim))
    return conv_fn(input=input, *args, **kwargs)


class DenseLayer(nn.Module):
    def __init__(self, in_features, out_features, lr_mul=1, weight_scale=True, gain=1):
        super(DenseLayer, self).__init__()
        weight, weight_coef = _get_weight_and_coef(
            shape=[out_features, in_features], lr_mul=lr_mul, weight_scale=weight_scale, gain=gain)
        self.register_parameter('weight', weight)
        self.weight_coef = weight_coef
        # BiasActivationWrapper(activation='linear', bias_init=1)
        self.bias = nn.Parameter(torch.ones(out_features))

    def forward(self, input, **kwargs):
        weight = self.weight
        if self.weight_coef != 1:
            weight = self.weight_coef * weight
        return input.matmul(weight.t()) + self.bias


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, latent_size, kernel_size=3, dim=2, eps=1e-8):
        super(ConvLayer, self).__init__()
        kernel_shape = [out_channels, in_channels] + dim * [kernel_size]
        weight, weight_coef = _get_weight_and_coef(shape=kernel_shape)
        self.register_parameter('weight', weight)
        self.weight_coef = weight_coef
        self.dense = DenseLayer(in_features=latent_size, out_features=in_channels)
        self.dense_reshape = [-1, 1, in_channels] + dim * [1]
        self.dmod_reshape = [-1, out_channels, 1] + dim * [1]
        self.padding = (kernel_size - 1) // 2
        self.out_channels = out_channels
        self.eps = eps

    def forward_mod(self, input, latent, weight, **kwargs):
        style_mod = self.dense(input=latent)
        style_mod = style_mod.view(*self.dense_reshape)
        weight = weight.unsqueeze(0)
        weight = weight * style_mod
        dmod = torch.rsqrt(
            torch.sum(weight.view(weight.size(0), weight.size(1), -1) ** 2, dim=-1) + self.eps)
        dmod = dmod.view(*self.dmod_reshape)
        weight = weight * dmod
        x = input.view(1, -1, *input.size()[2:])
        weight = weight.view(-1, *weight.size()[2:])
        x = self._process(input=x, weight=weight, groups=input.size(0))
        x = x.view(-1, self.out_channels, *x.size()[2:])
        return x

    def forward(self, input, latent=None, **kwargs):
        weight = self.weight
        if self.weight_coef != 1:
            weight = self.weight_coef * weight
        return self.forward_mod(input=input, latent=latent, weight=weight)

    def _process(self, input, weight, **kwargs):
        kwargs.update(padding=self.padding)
        return _apply_conv(input=input, weight=weight, transpose=False, **kwargs)


def make_model():
    return ConvLayer(in_channels=8, out_channels=8, latent_size=16).eval()


def example_inputs():
    return (torch.randn(2, 8, 16, 16), torch.randn(2, 16))


def other_inputs():
    return [(torch.randn(3, 8, 12, 20), torch.randn(3, 16)),
            (torch.randn(1, 8, 9, 9), torch.randn(1, 16))]


def probe_inputs():
    return other_inputs()
