"""DeblurGAN-v2 FPNInception deblurring generator: the repo's `Predictor` runs the generator with
`self.model.train(True)` ("GAN inference should be in train mode to use actual stats in norm layers, it's not a
bug"); its norm layer is `InstanceNorm2d(affine=False, track_running_stats=True)` and the Inception-ResNet-v2
stem uses BatchNorm, so in that mode every image is normalised with its own statistics. The user exported
`predictor.model` to ONNX with dynamic height/width (also tried TorchScript) and the ONNX result is wrong
compared with PyTorch: the exported graph normalises with the running statistics instead.
(Inception-ResNet-v2 stem reduced to one BasicConv2d per stage with the same kernel/stride/padding, channel
counts shrunk; FPN, heads and the upsample/pad/tanh tail as in fpn_inception.py.)

Source: https://github.com/pytorch/pytorch/issues/50685
"""
import functools

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "exporter-defaults"
FAMILY = "operators"
DYNAMIC = {"x": {2: "height", 3: "width"}}   # the report exports dynamic height/width only
BLIND = "domains-51"


def get_norm_layer(norm_type='instance'):
    if norm_type == 'batch':
        norm_layer = functools.partial(nn.BatchNorm2d, affine=True)
    elif norm_type == 'instance':
        norm_layer = functools.partial(nn.InstanceNorm2d, affine=False, track_running_stats=True)
    else:
        raise NotImplementedError('normalization layer [%s] is not found' % norm_type)
    return norm_layer


class BasicConv2d(nn.Module):
    def __init__(self, in_planes, out_planes, kernel_size, stride, padding=0):
        super(BasicConv2d, self).__init__()
        self.conv = nn.Conv2d(in_planes, out_planes, kernel_size=kernel_size, stride=stride, padding=padding, bias=False)
        self.bn = nn.BatchNorm2d(out_planes, eps=0.001, momentum=0.1, affine=True)
        self.relu = nn.ReLU(inplace=False)

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class FPNHead(nn.Module):
    def __init__(self, num_in, num_mid, num_out):
        super().__init__()
        self.block0 = nn.Conv2d(num_in, num_mid, kernel_size=3, padding=1, bias=False)
        self.block1 = nn.Conv2d(num_mid, num_out, kernel_size=3, padding=1, bias=False)

    def forward(self, x):
        x = nn.functional.relu(self.block0(x), inplace=True)
        x = nn.functional.relu(self.block1(x), inplace=True)
        return x


class FPN(nn.Module):
    def __init__(self, norm_layer, num_filters=64):
        super().__init__()
        # inceptionresnetv2 stages: conv2d_1a | conv2d_2a, conv2d_2b, maxpool_3a | conv2d_3b, conv2d_4a, maxpool_5a
        # | mixed_5b, repeat, mixed_6a | repeat_1, mixed_7a
        self.enc0 = BasicConv2d(3, 32, kernel_size=3, stride=2)
        self.enc1 = nn.Sequential(BasicConv2d(32, 32, kernel_size=3, stride=1),
                                  BasicConv2d(32, 64, kernel_size=3, stride=1, padding=1),
                                  nn.MaxPool2d(3, stride=2))
        self.enc2 = nn.Sequential(BasicConv2d(64, 80, kernel_size=1, stride=1),
                                  BasicConv2d(80, 96, kernel_size=3, stride=1),
                                  nn.MaxPool2d(3, stride=2))
        self.enc3 = BasicConv2d(96, 128, kernel_size=3, stride=2)
        self.enc4 = BasicConv2d(128, 160, kernel_size=3, stride=2)
        self.td1 = nn.Sequential(nn.Conv2d(num_filters, num_filters, kernel_size=3, padding=1),
                                 norm_layer(num_filters), nn.ReLU(inplace=True))
        self.td2 = nn.Sequential(nn.Conv2d(num_filters, num_filters, kernel_size=3, padding=1),
                                 norm_layer(num_filters), nn.ReLU(inplace=True))
        self.td3 = nn.Sequential(nn.Conv2d(num_filters, num_filters, kernel_size=3, padding=1),
                                 norm_layer(num_filters), nn.ReLU(inplace=True))
        self.pad = nn.ReflectionPad2d(1)
        self.lateral4 = nn.Conv2d(160, num_filters, kernel_size=1, bias=False)
        self.lateral3 = nn.Conv2d(128, num_filters, kernel_size=1, bias=False)
        self.lateral2 = nn.Conv2d(96, num_filters, kernel_size=1, bias=False)
        self.lateral1 = nn.Conv2d(64, num_filters, kernel_size=1, bias=False)
        self.lateral0 = nn.Conv2d(32, num_filters // 2, kernel_size=1, bias=False)

    def forward(self, x):
        # Bottom-up pathway, from ResNet
        enc0 = self.enc0(x)
        enc1 = self.enc1(enc0)
        enc2 = self.enc2(enc1)
        enc3 = self.enc3(enc2)
        enc4 = self.enc4(enc3)
        # Lateral connections
        lateral4 = self.pad(self.lateral4(enc4))
        lateral3 = self.pad(self.lateral3(enc3))
        lateral2 = self.lateral2(enc2)
        lateral1 = self.pad(self.lateral1(enc1))
        lateral0 = self.lateral0(enc0)
        # Top-down pathway
        pad = (1, 2, 1, 2)  # pad last dim by 1 on each side
        pad1 = (0, 1, 0, 1)
        map4 = lateral4
        map3 = self.td1(lateral3 + nn.functional.upsample(map4, scale_factor=2, mode="nearest"))
        map2 = self.td2(F.pad(lateral2, pad, "reflect") + nn.functional.upsample(map3, scale_factor=2, mode="nearest"))
        map1 = self.td3(lateral1 + nn.functional.upsample(map2, scale_factor=2, mode="nearest"))
        return F.pad(lateral0, pad1, "reflect"), map1, map2, map3, map4


class FPNInception(nn.Module):
    def __init__(self, norm_layer, output_ch=3, num_filters=32, num_filters_fpn=64):
        super().__init__()
        self.fpn = FPN(num_filters=num_filters_fpn, norm_layer=norm_layer)
        self.head1 = FPNHead(num_filters_fpn, num_filters, num_filters)
        self.head2 = FPNHead(num_filters_fpn, num_filters, num_filters)
        self.head3 = FPNHead(num_filters_fpn, num_filters, num_filters)
        self.head4 = FPNHead(num_filters_fpn, num_filters, num_filters)
        self.smooth = nn.Sequential(
            nn.Conv2d(4 * num_filters, num_filters, kernel_size=3, padding=1),
            norm_layer(num_filters),
            nn.ReLU(),
        )
        self.smooth2 = nn.Sequential(
            nn.Conv2d(num_filters, num_filters // 2, kernel_size=3, padding=1),
            norm_layer(num_filters // 2),
            nn.ReLU(),
        )
        self.final = nn.Conv2d(num_filters // 2, output_ch, kernel_size=3, padding=1)

    def forward(self, x):
        map0, map1, map2, map3, map4 = self.fpn(x)
        map4 = nn.functional.upsample(self.head4(map4), scale_factor=8, mode="nearest")
        map3 = nn.functional.upsample(self.head3(map3), scale_factor=4, mode="nearest")
        map2 = nn.functional.upsample(self.head2(map2), scale_factor=2, mode="nearest")
        map1 = nn.functional.upsample(self.head1(map1), scale_factor=1, mode="nearest")
        smoothed = self.smooth(torch.cat([map4, map3, map2, map1], dim=1))
        smoothed = nn.functional.upsample(smoothed, scale_factor=2, mode="nearest")
        smoothed = self.smooth2(smoothed + map0)
        smoothed = nn.functional.upsample(smoothed, scale_factor=2, mode="nearest")
        final = self.final(smoothed)
        res = torch.tanh(final) + x
        return torch.clamp(res, min=-1, max=1)


def make_model():
    model = FPNInception(norm_layer=get_norm_layer(norm_type='instance'))
    # Predictor: "GAN inference should be in train mode to use actual stats in norm layers, it's not a bug"
    model.train(True)
    return model


def example_inputs():
    return (torch.rand(1, 3, 128, 128) * 2 - 1,)


def other_inputs():
    return [(torch.rand(1, 3, 160, 128) * 2 - 1,), (torch.rand(1, 3, 128, 192) * 2 - 1,)]


def probe_inputs():
    return other_inputs()
