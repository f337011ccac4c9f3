"""NISQA's AdaptCNN framewise model (speech-quality prediction) pools each 48x15 Mel-spec segment
with `F.adaptive_max_pool2d(x, output_size=(self.pool_1))` to [24, 7], then [12, 5] and [6, 3]; the
widths are not factors of the input widths, and export fails ("Unsupported: ONNX export of operator
adaptive_max_pool2d, since output size is not factor of input size", a segfault on torch 1.10).

Source: https://github.com/pytorch/pytorch/issues/75383
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "segments"}}
BLIND = "operators-6"


class AdaptCNN(nn.Module):
    def __init__(self, input_channels=1, c_out_1=16, c_out_2=32, c_out_3=64, kernel_size=3,
                 dropout=0.2, pool_1=[24, 7], pool_2=[12, 5], pool_3=[6, 3], fc_out_h=20):
        super().__init__()
        self.c_out_3 = c_out_3
        self.pool_1 = pool_1
        self.pool_2 = pool_2
        self.pool_3 = pool_3
        self.fc_out_h = fc_out_h
        self.dropout = nn.Dropout2d(p=dropout)
        self.kernel_size = (kernel_size, kernel_size)
        self.kernel_size_last = (self.kernel_size[0], self.pool_3[1])
        self.cnn_pad = (1, 1)
        self.conv1 = nn.Conv2d(input_channels, c_out_1, self.kernel_size, padding=self.cnn_pad)
        self.bn1 = nn.BatchNorm2d(self.conv1.out_channels)
        self.conv2 = nn.Conv2d(self.conv1.out_channels, c_out_2, self.kernel_size, padding=self.cnn_pad)
        self.bn2 = nn.BatchNorm2d(self.conv2.out_channels)
        self.conv3 = nn.Conv2d(self.conv2.out_channels, c_out_3, self.kernel_size, padding=self.cnn_pad)
        self.bn3 = nn.BatchNorm2d(self.conv3.out_channels)
        self.conv4 = nn.Conv2d(self.conv3.out_channels, c_out_3, self.kernel_size, padding=self.cnn_pad)
        self.bn4 = nn.BatchNorm2d(self.conv4.out_channels)
        self.conv5 = nn.Conv2d(self.conv4.out_channels, c_out_3, self.kernel_size, padding=self.cnn_pad)
        self.bn5 = nn.BatchNorm2d(self.conv5.out_channels)
        self.conv6 = nn.Conv2d(self.conv5.out_channels, c_out_3, self.kernel_size_last, padding=(1, 0))
        self.bn6 = nn.BatchNorm2d(self.conv6.out_channels)
        self.fc = nn.Linear(self.conv6.out_channels * self.pool_3[0], self.fc_out_h)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.adaptive_max_pool2d(x, output_size=(self.pool_1))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_max_pool2d(x, output_size=(self.pool_2))
        x = self.dropout(x)
        x = F.relu(self.bn3(self.conv3(x)))
        x = self.dropout(x)
        x = F.relu(self.bn4(self.conv4(x)))
        x = F.adaptive_max_pool2d(x, output_size=(self.pool_3))
        x = self.dropout(x)
        x = F.relu(self.bn5(self.conv5(x)))
        x = self.dropout(x)
        x = F.relu(self.bn6(self.conv6(x)))
        x = x.view(-1, self.conv6.out_channels * self.pool_3[0])
        if self.fc_out_h:
            x = self.fc(x)
        return x


def make_model():
    return AdaptCNN().eval()


def example_inputs():
    # packed Mel-spec segments: (n_segments, 1, ms_n_mels=48, ms_seg_length=15)
    return (torch.randn(12, 1, 48, 15),)


def other_inputs():
    return [(torch.randn(7, 1, 48, 15),), (torch.randn(30, 1, 48, 15),)]


def probe_inputs():
    return other_inputs()
