"""UnivNet GAN vocoder (NeMo): the LVCBlock's location-variable convolution pads the feature map and slices it into
hop-sized windows with Tensor.unfold, then contracts with the predicted kernels by einsum; exporting the generator
fails with "Unsupported: ONNX export of operator Unfold, input size not accessible".

Source: https://github.com/NVIDIA-NeMo/Speech/issues/5417
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "samples"}, "c": {0: "batch", 2: "frames"}}
BLIND = "operators-14"


class KernelPredictor(nn.Module):
    def __init__(self, cond_channels, conv_in_channels, conv_out_channels, conv_kernel_size=3):
        super().__init__()
        self.conv_in_channels = conv_in_channels
        self.conv_out_channels = conv_out_channels
        self.conv_kernel_size = conv_kernel_size
        self.input_conv = nn.Conv1d(cond_channels, 16, 5, padding=2)
        self.kernel_conv = nn.Conv1d(16, conv_in_channels * conv_out_channels * conv_kernel_size, 3, padding=1)
        self.bias_conv = nn.Conv1d(16, conv_out_channels, 3, padding=1)

    def forward(self, c):
        batch, _, cond_length = c.shape
        c = F.leaky_relu(self.input_conv(c), 0.1)
        k = self.kernel_conv(c)
        b = self.bias_conv(c)
        kernels = k.contiguous().view(batch, self.conv_in_channels, self.conv_out_channels,
                                      self.conv_kernel_size, cond_length)
        bias = b.contiguous().view(batch, self.conv_out_channels, cond_length)
        return kernels, bias


class LVCBlock(nn.Module):
    def __init__(self, in_channels=4, cond_channels=8, cond_hop_length=16, conv_kernel_size=3):
        super().__init__()
        self.cond_hop_length = cond_hop_length
        self.kernel_predictor = KernelPredictor(cond_channels, in_channels, 2 * in_channels, conv_kernel_size)
        self.conv = nn.Conv1d(in_channels, in_channels, 3, padding=1)

    def forward(self, x, c):
        kernels, bias = self.kernel_predictor(c)
        h = F.leaky_relu(self.conv(x), 0.2)
        h = self.location_variable_convolution(h, kernels, bias, dilation=1, hop_size=self.cond_hop_length)
        return x + torch.sigmoid(h[:, :x.shape[1]]) * torch.tanh(h[:, x.shape[1]:])

    def location_variable_convolution(self, x, kernel, bias, dilation=1, hop_size=256):
        batch, _, in_length = x.shape
        batch, _, out_channels, kernel_size, kernel_length = kernel.shape
        padding = dilation * int((kernel_size - 1) / 2)
        x = F.pad(x, (padding, padding), 'constant', 0)  # (batch, in_channels, in_length + 2*padding)
        x = x.unfold(2, hop_size + 2 * padding, hop_size)  # (batch, in_channels, kernel_length, hop_size + 2*padding)
        if hop_size < dilation:
            x = F.pad(x, (0, dilation), 'constant', 0)
        x = x.unfold(3, dilation, dilation)  # (batch, in_channels, kernel_length, (hop_size + 2*padding)/dilation, dilation)
        x = x[:, :, :, :, :hop_size]
        x = x.transpose(3, 4)  # (batch, in_channels, kernel_length, dilation, _)
        x = x.unfold(4, kernel_size, 1)  # (batch, in_channels, kernel_length, dilation, _, kernel_size)
        o = torch.einsum('bildsk,biokl->bolsd', x, kernel)
        o = o + bias.unsqueeze(-1).unsqueeze(-1)
        o = o.contiguous().view(batch, out_channels, -1)
        return o


def make_model():
    return LVCBlock().eval()


def example_inputs():
    return (torch.randn(2, 4, 10 * 16), torch.randn(2, 8, 10))


def other_inputs():
    return [(torch.randn(3, 4, 7 * 16), torch.randn(3, 8, 7)), (torch.randn(1, 4, 13 * 16), torch.randn(1, 8, 13))]


def probe_inputs():
    return other_inputs()
