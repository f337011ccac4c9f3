"""DeblurGAN-v2 (FPN-MobileNet motion-deblurring GAN) is run for inference in train mode on purpose
(`self.impl.train(True)`: "GAN inference should be in train mode to use actual stats in norm layers"), so its
BatchNorm2d / InstanceNorm2d(track_running_stats=True) layers normalise with the statistics of the current image.
Open Model Zoo's conversion asked how to export Batch Norm "in train mode" to ONNX and ended up replacing every
BatchNorm2d with a hand-written batch-statistics module before torch.onnx.export, since the exported model
otherwise normalises with the running statistics and gives different images.
(MobileNetV2 backbone cut to five conv-BN-ReLU6 stages and the filter counts shrunk.)

Source: https://github.com/openvinotoolkit/open_model_zoo/pull/1911
"""
import functools

import torch
import torch.nn as nn

CLASS = "exporter-defaults"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-46"


def get_norm_layer(norm_type='instance'):
    if norm_type == 'batch':
        norm_layer = functools.partial(nn.BatchNorm2d, affine=True)
    elif norm_type == 'instance':
        norm_layer = functools.partial(nn.InstanceNorm2d, affine=False, track_running_stats=True)
    else:
        raise NotImplementedError('normalization layer [%s] is not found' % norm_type)
    return norm_layer


def conv_bn(inp, oup, stride):
    return nn.Sequential(
        nn.Conv2d(inp, oup, 3, stride, 1, bias=False),
        nn.BatchNorm2d(oup),
        nn.ReLU6(inplace=True)
    )


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
    def __init__(self, norm_layer, num_filters=32):
        super().__init__()
        self.enc0 = conv_bn(3, 8, 2)
        self.enc1 = conv_bn(8, 12, 2)
        self.enc2 = conv_bn(12, 16, 2)
        self.enc3 = conv_bn(16, 24, 2)
        self.enc4 = conv_bn(24, 40, 2)
        self.td1 = nn.Sequential(nn.Conv2d(num_filters, num_filters, kernel_size=3, padding=1),
                                 norm_layer(num_filters), nn.ReLU(inplace=True))
        self.td2 = nn.Sequential(nn.Conv2d(num_filters, num_filters, kernel_size=3, padding=1),
                                 norm_layer(num_filters), nn.ReLU(inplace=True))
        self.td3 = nn.Sequential(nn.Conv2d(num_filters, num_filters, kernel_size=3, padding=1),
                                 norm_layer(num_filters), nn.ReLU(inplace=True))
        self.lateral4 = nn.Conv2d(40, num_filters, kernel_size=1, bias=False)
        self.lateral3 = nn.Conv2d(24, num_filters, kernel_size=1, bias=False)
        self.lateral2 = nn.Conv2d(16, num_filters, kernel_size=1, bias=False)
        self.lateral1 = nn.Conv2d(12, num_filters, kernel_size=1, bias=False)
        self.lateral0 = nn.Conv2d(8, num_filters // 2, kernel_size=1, bias=False)

    def forward(self, x):
        enc0 = self.enc0(x)
        enc1 = self.enc1(enc0)
        enc2 = self.enc2(enc1)
        enc3 = self.enc3(enc2)
        enc4 = self.enc4(enc3)
        lateral4 = self.lateral4(enc4)
        lateral3 = self.lateral3(enc3)
        lateral2 = self.lateral2(enc2)
        lateral1 = self.lateral1(enc1)
        lateral0 = self.lateral0(enc0)
        map4 = lateral4
        map3 = self.td1(lateral3 + nn.functional.interpolate(map4, scale_factor=2, mode="nearest"))
        map2 = self.td2(lateral2 + nn.functional.interpolate(map3, scale_factor=2, mode="nearest"))
        map1 = self.td3(lateral1 + nn.functional.interpolate(map2, scale_factor=2, mode="nearest"))
        return lateral0, map1, map2, map3, map4


class FPNMobileNet(nn.Module):
    def __init__(self, norm_layer, output_ch=3, num_filters=16, num_filters_fpn=32):
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
        map4 = nn.functional.interpolate(self.head4(map4), scale_factor=8, mode="nearest")
        map3 = nn.functional.interpolate(self.head3(map3), scale_factor=4, mode="nearest")
        map2 = nn.functional.interpolate(self.head2(map2), scale_factor=2, mode="nearest")
        map1 = nn.functional.interpolate(self.head1(map1), scale_factor=1, mode="nearest")
        smoothed = self.smooth(torch.cat([map4, map3, map2, map1], dim=1))
        smoothed = nn.functional.interpolate(smoothed, scale_factor=2, mode="nearest")
        smoothed = self.smooth2(smoothed + map0)
        smoothed = nn.functional.interpolate(smoothed, scale_factor=2, mode="nearest")
        final = self.final(smoothed)
        res = torch.tanh(final) + x
        return torch.clamp(res, min=-1, max=1)


class DeblurV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.impl = FPNMobileNet(norm_layer=get_norm_layer('instance'))
        self.impl.train(True)

    def forward(self, image):
        out = self.impl(image)
        # convert out to [0, 1] range and change channel order RGB->BGR
        out = (out + 1) / 2
        permute = [2, 1, 0]
        return out[:, permute, :, :]


def make_model():
    return DeblurV2()


def example_inputs():
    return (torch.rand(1, 3, 64, 96) * 2 - 1,)


def other_inputs():
    return [(torch.rand(2, 3, 96, 64) * 2 - 1,), (torch.rand(1, 3, 128, 128) * 2 - 1,)]


def probe_inputs():
    return other_inputs()
