"""SegNet_Small, a low-complexity SegNet for eye-feature segmentation (1-channel 184x184 input, 4 classes,
skip_type="mul"): encoder `F.max_pool2d(..., return_indices=True)`, decoder
`F.max_unpool2d(x, indices, kernel_size=2, stride=2, output_size=dim)`; torch.onnx.export fails because
max_unpool2d is not supported by the exporter.

Source: https://github.com/pytorch/pytorch/issues/43367
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-12"


class _EncoderBlock(nn.Module):
    '''
    Encoder block structured aroung vgg_model blocks
    '''
    def __init__(self, in_channels, out_channels, kernel_size, separable_conv=False, name='default', BN=True):
        super(_EncoderBlock, self).__init__()
        self.name = name
        layers = [
            nn.Conv2d(
                in_channels, out_channels, kernel_size=kernel_size, stride=1, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        ]
        self.encode = nn.Sequential(*layers)

    def forward(self, x):
        return self.encode(x)


class _DecoderBlock(nn.Module):
    '''
    Decoder blocks using Transpose Convolution blocks
    '''
    def __init__(self, in_channels, out_channels, kernel_size, is_nonlinear=True, separable_conv=False, name='default', BN=True):
        super(_DecoderBlock, self).__init__()
        self.name = name
        layers = [
            nn.ConvTranspose2d(
                in_channels, out_channels, kernel_size=kernel_size, stride=1, padding=1),
            nn.BatchNorm2d(out_channels),
        ]
        if is_nonlinear:
            layers.append(nn.ReLU(inplace=True))
        self.decode = nn.Sequential(*layers)

    def forward(self, x):
        return self.decode(x)


class SegNet_Small(nn.Module):
    '''
    Low complexity version of SegNet Semantic Segmentation model
    Designed for eye feature segmentation task
    '''
    def __init__(self, input_channels, num_classes, skip_type=None, BR_bool=False, separable_conv=False, caffe=False, mode='nearest', BN=True):
        super(SegNet_Small, self).__init__()
        self.BR_bool = BR_bool
        self.skip_type = skip_type
        self.caffe = caffe
        self.mode = mode
        self.BN = BN
        self.enc10 = _EncoderBlock(input_channels, 64, 3, separable_conv=separable_conv, name='enc10', BN=self.BN)
        self.enc11 = _EncoderBlock(64, 64, 3, separable_conv=separable_conv, name='enc11', BN=self.BN)
        self.enc20 = _EncoderBlock(64, 128, 3, separable_conv=separable_conv, name='enc20', BN=self.BN)
        self.enc21 = _EncoderBlock(128, 128, 3, separable_conv=separable_conv, name='enc21', BN=self.BN)
        self.enc30 = _EncoderBlock(128, 256, 3, separable_conv=separable_conv, name='enc30', BN=self.BN)
        self.enc31 = _EncoderBlock(256, 256, 3, separable_conv=separable_conv, name='enc31', BN=self.BN)
        self.enc32 = _EncoderBlock(256, 256, 3, separable_conv=separable_conv, name='enc32', BN=self.BN)

        self.dec32 = _DecoderBlock(256, 256, 3, separable_conv=separable_conv, name='dec32', BN=self.BN)
        self.dec31 = _DecoderBlock(256, 256, 3, separable_conv=separable_conv, name='dec31', BN=self.BN)
        self.dec30 = _DecoderBlock(256, 128, 3, separable_conv=separable_conv, name='dec30', BN=self.BN)
        self.dec21 = _DecoderBlock(128, 128, 3, separable_conv=separable_conv, name='dec21', BN=self.BN)
        self.dec20 = _DecoderBlock(128, 64, 3, separable_conv=separable_conv, name='dec20', BN=self.BN)
        self.dec11 = _DecoderBlock(64, 64, 3, separable_conv=separable_conv, name='dec11', BN=self.BN)
        self.dec10 = _DecoderBlock(64, num_classes, 3, is_nonlinear=False, separable_conv=separable_conv, name='dec10', BN=self.BN)

    def forward(self, x):
        dim_0 = x.size()

        enc1 = self.enc10(x)
        enc1 = self.enc11(enc1)
        x_1, indices_1 = F.max_pool2d(
            enc1, kernel_size=2, stride=2, return_indices=True
        )

        dim_1 = x_1.size()
        enc2 = self.enc20(x_1)
        enc2 = self.enc21(enc2)
        x_2, indices_2 = F.max_pool2d(
            enc2, kernel_size=2, stride=2, return_indices=True
        )

        dim_2 = x_2.size()
        enc3 = self.enc30(x_2)
        enc3 = self.enc31(enc3)
        enc3 = self.enc32(enc3)
        x_3, indices_3 = F.max_pool2d(
            enc3, kernel_size=2, stride=2, return_indices=True
        )

        if self.caffe:
            dec3 = nn.functional.interpolate(x_3, scale_factor=2, mode=self.mode)
        else:
            dec3 = F.max_unpool2d(
                x_3, indices_3, kernel_size=2, stride=2, output_size=dim_2
            )
        dec3 = self.dec32(dec3)
        dec3 = self.dec31(dec3)
        dec3 = self.dec30(dec3)

        if self.caffe:
            dec2 = nn.functional.interpolate(dec3, scale_factor=2, mode=self.mode)
        else:
            dec2 = F.max_unpool2d(
                dec3, indices_2, kernel_size=2, stride=2, output_size=dim_1
            )
        if self.skip_type is not None:
            dec2 += enc2
        dec2 = self.dec21(dec2)
        dec2 = self.dec20(dec2)
        if self.caffe:
            dec1 = nn.functional.interpolate(dec2, scale_factor=2, mode=self.mode)
        else:
            dec1 = F.max_unpool2d(
                dec2, indices_1, kernel_size=2, stride=2, output_size=dim_0
            )
        if self.skip_type is not None:
            if 'mul' in self.skip_type.lower():
                dec1 *= enc1
            if 'add' in self.skip_type.lower():
                dec1 += enc1
        dec1 = self.dec11(dec1)
        dec1 = self.dec10(dec1)
        if self.caffe:
            return dec1
        else:
            dec_softmax = F.softmax(dec1, dim=1)
            return dec1, dec_softmax


def make_model():
    return SegNet_Small(input_channels=1, num_classes=4, skip_type="mul", BR_bool=False, separable_conv=False).eval()


def example_inputs():
    return (torch.randn(1, 1, 184, 184),)


def other_inputs():
    return [(torch.randn(2, 1, 96, 128),), (torch.randn(1, 1, 160, 120),)]


def probe_inputs():
    return other_inputs()
