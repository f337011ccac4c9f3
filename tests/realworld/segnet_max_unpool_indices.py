"""SegNet (vinceecws/SegNet_PyTorch) decoder upsamples with one shared `nn.MaxUnpool2d(2, stride=2)` fed the encoder's
pooling indices (`output_size=size1` from `x.size()` for the inner stage, none for the last); "Exporting the
operator ::max_unpool2d to ONNX opset version 13 is not supported".

Source: https://github.com/pytorch/pytorch/issues/85388
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-2"


class SegNet(nn.Module):

    def __init__(self, BN_momentum=0.5, in_chn=3, out_chn=32):
        super(SegNet, self).__init__()

        #ENCODING: stages of Convolution + Batch Normalization + Max Pool
        #Pooling indices are stored for Upsampling in DECODING layers

        self.in_chn = in_chn
        self.out_chn = out_chn

        self.MaxEn = nn.MaxPool2d(2, stride=2, return_indices=True)

        self.ConvEn11 = nn.Conv2d(self.in_chn, 16, kernel_size=3, padding=1)
        self.BNEn11 = nn.BatchNorm2d(16, momentum=BN_momentum)
        self.ConvEn12 = nn.Conv2d(16, 16, kernel_size=3, padding=1)
        self.BNEn12 = nn.BatchNorm2d(16, momentum=BN_momentum)

        self.ConvEn21 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.BNEn21 = nn.BatchNorm2d(32, momentum=BN_momentum)
        self.ConvEn22 = nn.Conv2d(32, 32, kernel_size=3, padding=1)
        self.BNEn22 = nn.BatchNorm2d(32, momentum=BN_momentum)

        #General Max Pool 2D/Upsampling for DECODING layers
        self.MaxDe = nn.MaxUnpool2d(2, stride=2)

        self.ConvDe22 = nn.Conv2d(32, 32, kernel_size=3, padding=1)
        self.BNDe22 = nn.BatchNorm2d(32, momentum=BN_momentum)
        self.ConvDe21 = nn.Conv2d(32, 16, kernel_size=3, padding=1)
        self.BNDe21 = nn.BatchNorm2d(16, momentum=BN_momentum)

        self.ConvDe12 = nn.Conv2d(16, 16, kernel_size=3, padding=1)
        self.BNDe12 = nn.BatchNorm2d(16, momentum=BN_momentum)
        self.ConvDe11 = nn.Conv2d(16, self.out_chn, kernel_size=3, padding=1)

    def forward(self, x):

        #ENCODE LAYERS
        #Stage 1
        x = F.relu(self.BNEn11(self.ConvEn11(x)))
        x = F.relu(self.BNEn12(self.ConvEn12(x)))
        x, ind1 = self.MaxEn(x)
        size1 = x.size()

        #Stage 2
        x = F.relu(self.BNEn21(self.ConvEn21(x)))
        x = F.relu(self.BNEn22(self.ConvEn22(x)))
        x, ind2 = self.MaxEn(x)

        #DECODE LAYERS
        #Stage 2
        x = self.MaxDe(x, ind2, output_size=size1)
        x = F.relu(self.BNDe22(self.ConvDe22(x)))
        x = F.relu(self.BNDe21(self.ConvDe21(x)))

        #Stage 1
        x = self.MaxDe(x, ind1)
        x = F.relu(self.BNDe12(self.ConvDe12(x)))
        x = self.ConvDe11(x)

        return x


def make_model():
    return SegNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(2, 3, 64, 40),), (torch.randn(3, 3, 24, 56),)]


def probe_inputs():
    return other_inputs()
