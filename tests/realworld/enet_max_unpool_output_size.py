"""ENet segmentation decoder: the upsampling bottleneck unpools with `nn.MaxUnpool2d(kernel_size=2)` using the
indices of the encoder's `MaxPool2d(return_indices=True)` and `output_size` taken from the stage input size;
"Exporting the operator max_unpool2d to ONNX opset version 11 is not supported".

Source: https://github.com/davidtvs/PyTorch-ENet/issues/57
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-2"


class DownsamplingBottleneck(nn.Module):
    def __init__(self, in_channels, out_channels, return_indices=False, bias=False):
        super().__init__()
        self.return_indices = return_indices
        self.main_max1 = nn.MaxPool2d(2, stride=2, return_indices=return_indices)
        self.ext_conv1 = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=2, stride=2, bias=bias),
            nn.BatchNorm2d(out_channels), nn.PReLU())
        self.out_prelu = nn.PReLU()

    def forward(self, x):
        # Main branch shortcut
        if self.return_indices:
            main, max_indices = self.main_max1(x)
        else:
            main = self.main_max1(x)
        ext = self.ext_conv1(x)
        out = main + ext
        return self.out_prelu(out), max_indices


class UpsamplingBottleneck(nn.Module):
    def __init__(self, in_channels, out_channels, bias=False):
        super().__init__()
        self.main_conv1 = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=bias),
            nn.BatchNorm2d(out_channels))
        # Remember that the stride is the same as the kernel_size, just like
        # the max pooling layers
        self.main_unpool1 = nn.MaxUnpool2d(kernel_size=2)
        self.out_prelu = nn.ReLU()

    def forward(self, x, max_indices, output_size):
        # Main branch shortcut
        main = self.main_conv1(x)
        main = self.main_unpool1(
            main, max_indices, output_size=output_size)
        return self.out_prelu(main)


class ENetLite(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.initial_block = nn.Conv2d(3, 16, 3, padding=1)
        self.downsample1_0 = DownsamplingBottleneck(16, 16, return_indices=True)
        self.regular1_1 = nn.Conv2d(16, 16, 3, padding=1)
        self.upsample5_0 = UpsamplingBottleneck(16, 16)
        self.classifier = nn.Conv2d(16, num_classes, 1)

    def forward(self, x):
        x = self.initial_block(x)
        stage1_input_size = x.size()
        x, max_indices1_0 = self.downsample1_0(x)
        x = self.regular1_1(x)
        x = self.upsample5_0(x, max_indices1_0, output_size=stage1_input_size)
        return self.classifier(x)


def make_model():
    return ENetLite().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(2, 3, 64, 32),), (torch.randn(3, 3, 16, 24),)]


def probe_inputs():
    return other_inputs()
