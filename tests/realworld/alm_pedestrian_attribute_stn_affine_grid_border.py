"""ALM pedestrian-attribute recognition: each attribute's SpatialTransformBlock predicts 4 box
parameters, builds a 2x3 `theta`, and crops the feature map with `F.affine_grid` + `F.grid_sample(...,
padding_mode='border')`. The report lists two torch.onnx.export errors: "Failed to export an ONNX attribute
'onnx::Gather', since it's not constant" at the `F.avg_pool2d(stn_feature, stn_feature.size()[2:])` line,
and "Exporting the operator affine_grid_generator to ONNX opset version 11 is not supported" (the user
ended up deleting the affine_grid/grid_sample lines). `.cuda()` calls dropped for CPU.

Source: https://github.com/chufengt/ALM-pedestrian-attribute/issues/44
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"features": {0: "batch"}}
BLIND = "operators-35"


class ChannelAttn(nn.Module):
    def __init__(self, in_channels, reduction_rate=16):
        super(ChannelAttn, self).__init__()
        assert in_channels%reduction_rate == 0
        self.conv1 = nn.Conv2d(in_channels, in_channels // reduction_rate, kernel_size=1, stride=1, padding=0)
        self.conv2 = nn.Conv2d(in_channels // reduction_rate, in_channels, kernel_size=1, stride=1, padding=0)

    def forward(self, x):
        # squeeze operation (global average pooling)
        x = F.avg_pool2d(x, x.size()[2:])
        # excitation operation (2 conv layers)
        x = F.relu(self.conv1(x))
        x = self.conv2(x)
        return torch.sigmoid(x)


class SpatialTransformBlock(nn.Module):
    def __init__(self, num_classes, pooling_size, channels):
        super(SpatialTransformBlock, self).__init__()
        self.num_classes = num_classes
        self.spatial = pooling_size

        self.global_pool = nn.AvgPool2d((pooling_size, pooling_size//2), stride=1, padding=0, ceil_mode=True, count_include_pad=True)

        self.gap_list = nn.ModuleList()
        self.fc_list = nn.ModuleList()
        self.att_list = nn.ModuleList()
        self.stn_list = nn.ModuleList()
        for i in range(self.num_classes):
            self.gap_list.append(nn.AvgPool2d((pooling_size, pooling_size//2), stride=1, padding=0, ceil_mode=True, count_include_pad=True))
            self.fc_list.append(nn.Linear(channels, 1))
            self.att_list.append(ChannelAttn(channels))
            self.stn_list.append(nn.Linear(channels, 4))

    def stn(self, x, theta):
        grid = F.affine_grid(theta, x.size())
        x = F.grid_sample(x, grid, padding_mode='border')
        return x  # original: x.cuda()

    def transform_theta(self, theta_i, region_idx):
        theta = torch.zeros(theta_i.size(0), 2, 3)
        theta[:,0,0] = torch.sigmoid(theta_i[:,0])
        theta[:,1,1] = torch.sigmoid(theta_i[:,1])
        theta[:,0,2] = torch.tanh(theta_i[:,2])
        theta[:,1,2] = torch.tanh(theta_i[:,3])
        return theta  # original: theta.cuda()

    def forward(self, features):
        pred_list = []
        bs = features.size(0)
        for i in range(self.num_classes):
            stn_feature = features * self.att_list[i](features) + features

            theta_i = self.stn_list[i](F.avg_pool2d(stn_feature, stn_feature.size()[2:]).view(bs,-1)).view(-1,4)
            theta_i = self.transform_theta(theta_i, i)

            sub_feature = self.stn(stn_feature, theta_i)
            pred = self.gap_list[i](sub_feature).view(bs,-1)
            pred = self.fc_list[i](pred)
            pred_list.append(pred)
        pred = torch.cat(pred_list, 1)
        return pred


def make_model():
    # st_5b of the paper's InceptionNet (256 channels, 8x4 map), with 3 attributes instead of 51
    return SpatialTransformBlock(3, 8, 256).eval()


def example_inputs():
    return (torch.randn(2, 256, 8, 4),)


def other_inputs():
    return [(torch.randn(5, 256, 8, 4),), (torch.randn(1, 256, 8, 4),)]


def probe_inputs():
    return other_inputs()
