"""MoCha-Stereo's motif channel correlation volume (Mca_Camp) high-pass filters each concatenated
left/right feature map with an averaging kernel built in forward from the feature's channel count,
`torch.ones((C, C, kernel_size, kernel_size))` with `B,C,H,W = feature.shape`; exporting with dynamic
axes fails with "Unsupported: ONNX export of convolution for kernel of unknown shape".
(Backbone reduced to three strided convs per image; channel widths scaled down from [256,192,448];
the 1/16 level, gwc volume, hourglass and refinement are left out.)

Source: https://github.com/ZYangChen/MoCha-Stereo/issues/21
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"image1": {0: "batch", 2: "height", 3: "width"}, "image2": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-13"


class BasicConv_IN(nn.Module):

    def __init__(self, in_channels, out_channels, deconv=False, is_3d=False, IN=True, relu=True, **kwargs):
        super(BasicConv_IN, self).__init__()

        self.relu = relu
        self.use_in = IN
        if is_3d:
            self.conv = nn.Conv3d(in_channels, out_channels, bias=False, **kwargs)
            self.IN = nn.InstanceNorm3d(out_channels)
        else:
            self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
            self.IN = nn.InstanceNorm2d(out_channels)

    def forward(self, x):
        x = self.conv(x)
        if self.use_in:
            x = self.IN(x)
        if self.relu:
            x = nn.LeakyReLU()(x)#, inplace=True)
        return x


class Mca_Camp(nn.Module):
    def __init__(self):
        super(Mca_Camp, self).__init__()
        chans = [32,24,56,48]
        laten_chans = [4,4,4,4]
        self.sw_4x = nn.Conv2d(chans[0] * 2, laten_chans[0], 3, 1, 1, bias=False)
        self.sw_8x = nn.Conv2d(chans[1] * 2,laten_chans[1], 3, 1, 1, bias=False)

        self.Conv3d_layer_4x = BasicConv_IN(laten_chans[0],1, is_3d=True, kernel_size=3, stride=1, padding=1)
        self.Conv3d_layer_8x = BasicConv_IN(laten_chans[1],1, is_3d=True, kernel_size=3, stride=1, padding=1)

    def high_frequency_sliding_window_filter(self, feature):
        B,C,H,W = feature.shape
        kernel_size = 3
        # 创建高斯核
        kernel = torch.ones((C, C, kernel_size, kernel_size)) / (kernel_size ** 2)
        kernel = kernel.to(feature.device)

        # 在输入上应用高斯滤波
        smoothed = F.conv2d(feature, kernel, padding=kernel_size // 2)

        # 高通滤波器: 输入减去平滑后的结果
        feature = feature - smoothed

        return feature

    def forward(self, features_left, features_right):

        normal_feature= []
        normal_feature.append(torch.cat([features_left[0], features_right[0]], dim=1))
        normal_feature.append(torch.cat([features_left[1], features_right[1]], dim=1))

        #mca 1/4
        normal_feature[0] = self.high_frequency_sliding_window_filter(normal_feature[0])
        motif_4x = F.softmax(self.sw_4x(normal_feature[0]), dim=1)#torch.Size([B, 4, 80, 184])
        #camp
        CAMP_4x = motif_4x.unsqueeze(1) * features_left[0].unsqueeze(2) #torch.Size([B, 256, 4, 80, 184])
        CAMP_4x = CAMP_4x.transpose(1, 2) #torch.Size([B, 4, 256, 80, 184])
        #Conv3d_layer
        channel_correlation_volume_4x = self.Conv3d_layer_4x(CAMP_4x).squeeze(1)

        #mca 1/8
        normal_feature[1] = self.high_frequency_sliding_window_filter(normal_feature[1])
        motif_8x = F.softmax(self.sw_8x(normal_feature[1]), dim=1)
        # camp
        CAMP_8x = motif_8x.unsqueeze(1) * features_left[1].unsqueeze(2)
        CAMP_8x = CAMP_8x.transpose(1, 2)
        # Conv3d_layer
        channel_correlation_volume_8x = self.Conv3d_layer_8x(CAMP_8x).squeeze(1)

        return [channel_correlation_volume_4x, channel_correlation_volume_8x]


class MochaCostVolume(nn.Module):
    def __init__(self):
        super().__init__()
        self.feat_4x = nn.Conv2d(3, 32, 4, 4)
        self.feat_8x = nn.Conv2d(32, 24, 2, 2)
        self.mccv = Mca_Camp()

    def features(self, x):
        f4 = self.feat_4x(x)
        return [f4, self.feat_8x(f4)]

    def forward(self, image1, image2):
        features_left = self.features(image1)
        features_right = self.features(image2)
        Channel_Correlation_Volume = self.mccv(features_left, features_right)
        return tuple(Channel_Correlation_Volume)


def make_model():
    return MochaCostVolume().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96), torch.randn(1, 3, 64, 96))


def other_inputs():
    return [(torch.randn(2, 3, 80, 64), torch.randn(2, 3, 80, 64)),
            (torch.randn(3, 3, 48, 112), torch.randn(3, 3, 48, 112))]


def probe_inputs():
    return other_inputs()
