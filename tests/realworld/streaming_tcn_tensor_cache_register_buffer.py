"""Streaming TCN (temporal convolutional network run one time step at a time on a sensor stream): each
dilated causal conv reads a `TensorCache` whose registered buffer is updated in forward,
`self.cache = torch.cat((self.cache[:, :, 1:], x.detach()), dim=2)`; the report says the ONNX model treats
the buffer as a constant and only the last value follows the input, so the cache never advances across
onnxruntime calls.

Source: https://github.com/pytorch/pytorch/issues/60828
"""
import torch
import torch.nn as nn
from torch.nn.utils import weight_norm

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {}  # one frame (B=1, CH, 1) per call; the history lives in the module's buffers
BLIND = "domains-7"


class TensorCache(nn.Module):
    def __init__(self, tensor):
        super(TensorCache, self).__init__()
        self.register_buffer('cache', tensor)

    def forward(self, x):
        cache_update = torch.cat((self.cache[:, :, 1:], x[:, :, :].detach()), dim=2)
        self.cache = cache_update
        return self.cache


class TemporalInferenceBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, block_num, batch_size=1):
        super(TemporalInferenceBlock, self).__init__()
        self.conv1 = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size,
                                           stride=stride, padding=0, dilation=dilation))
        self.relu1 = nn.ReLU()
        self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size,
                                           stride=stride, padding=0, dilation=dilation))
        self.relu2 = nn.ReLU()
        self.batch_size = batch_size

        self.cache1 = TensorCache(torch.zeros(
            batch_size, self.conv1.in_channels, (self.conv1.kernel_size[0] - 1) * self.conv1.dilation[0] + 1))
        self.cache2 = TensorCache(torch.zeros(
            batch_size, self.conv2.in_channels, (self.conv2.kernel_size[0] - 1) * self.conv2.dilation[0] + 1))

        self.stage1 = nn.Sequential(self.conv1, self.relu1)
        self.stage2 = nn.Sequential(self.conv2, self.relu2)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else nn.Identity()
        self.relu = nn.ReLU()

    def forward(self, x):
        '''
        x is of shape (B, CH, 1)
        '''
        out = self.stage1(self.cache1(x))
        out = self.stage2(self.cache2(out))
        res = self.downsample(x)
        return self.relu(out + res)


class TCNInferenceNet(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2):
        super(TCNInferenceNet, self).__init__()
        layers = []
        num_levels = len(num_channels)
        for i in range(num_levels):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            out_channels = num_channels[i]
            layers += [TemporalInferenceBlock(in_channels, out_channels, kernel_size, stride=1,
                                              dilation=dilation_size, batch_size=1, block_num=i)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        out = x
        for i, block in enumerate(self.network):
            out = block(out)
        return out


def make_model():
    return TCNInferenceNet(num_inputs=4, num_channels=[8, 8, 8]).eval()


def example_inputs():
    return (torch.randn(1, 4, 1),)


def other_inputs():
    # successive frames of the same stream
    return [(torch.randn(1, 4, 1),), (torch.randn(1, 4, 1),), (torch.randn(1, 4, 1),)]


def probe_inputs():
    return other_inputs()
