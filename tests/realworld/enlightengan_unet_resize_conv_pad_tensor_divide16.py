"""EnlightenGAN low-light generator (`Unet_resize_conv`, self-attention variant): `pad_tensor` reflection-pads the image
and the gray attention map to a multiple of 16 with Python `%`/`int()` branches on `input.shape`, the U-Net runs, and
`pad_tensor_back` crops back; `if input.size()[3] > 2200` halves very wide images first. The user exporting the trained
generator with dynamic batch/height/width could not get a correct ONNX model out of it.

Source: https://github.com/arsenyinfo/EnlightenGAN-inference/issues/6
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}, "gray": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-42"


def pad_tensor(input):
    height_org, width_org = input.shape[2], input.shape[3]
    divide = 16

    if width_org % divide != 0 or height_org % divide != 0:

        width_res = width_org % divide
        height_res = height_org % divide
        if width_res != 0:
            width_div = divide - width_res
            pad_left = int(width_div / 2)
            pad_right = int(width_div - pad_left)
        else:
            pad_left = 0
            pad_right = 0

        if height_res != 0:
            height_div = divide - height_res
            pad_top = int(height_div / 2)
            pad_bottom = int(height_div - pad_top)
        else:
            pad_top = 0
            pad_bottom = 0

        padding = nn.ReflectionPad2d((pad_left, pad_right, pad_top, pad_bottom))
        input = padding(input)
    else:
        pad_left = 0
        pad_right = 0
        pad_top = 0
        pad_bottom = 0

    height, width = input.data.shape[2], input.data.shape[3]
    assert width % divide == 0, 'width cant divided by stride'
    assert height % divide == 0, 'height cant divided by stride'

    return input, pad_left, pad_right, pad_top, pad_bottom


def pad_tensor_back(input, pad_left, pad_right, pad_top, pad_bottom):
    height, width = input.shape[2], input.shape[3]
    return input[:, :, pad_top: height - pad_bottom, pad_left: width - pad_right]


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.LeakyReLU(0.2, inplace=True), nn.BatchNorm2d(cout))


class Unet_resize_conv(nn.Module):
    # trimmed: 4 poolings (hence divide = 16), gray attention maps multiplied into the skips, skip output
    def __init__(self, c=8):
        super().__init__()
        self.downsample_1 = nn.MaxPool2d(2)
        self.downsample_2 = nn.MaxPool2d(2)
        self.downsample_3 = nn.MaxPool2d(2)
        self.downsample_4 = nn.MaxPool2d(2)
        self.conv1 = block(4, c)
        self.conv2 = block(c, 2 * c)
        self.conv3 = block(2 * c, 4 * c)
        self.conv4 = block(4 * c, 8 * c)
        self.conv5 = block(8 * c, 16 * c)
        self.max_pool = nn.MaxPool2d(2)
        self.deconv5 = nn.Conv2d(16 * c, 8 * c, 3, padding=1)
        self.conv6 = block(16 * c, 8 * c)
        self.deconv6 = nn.Conv2d(8 * c, 4 * c, 3, padding=1)
        self.conv7 = block(8 * c, 4 * c)
        self.deconv7 = nn.Conv2d(4 * c, 2 * c, 3, padding=1)
        self.conv8 = block(4 * c, 2 * c)
        self.deconv8 = nn.Conv2d(2 * c, c, 3, padding=1)
        self.conv9 = block(2 * c, c)
        self.conv10 = nn.Conv2d(c, 3, 1)

    def forward(self, input, gray):
        flag = 0
        if input.size()[3] > 2200:
            avg = nn.AvgPool2d(2)
            input = avg(input)
            gray = avg(gray)
            flag = 1
            # pass
        input, pad_left, pad_right, pad_top, pad_bottom = pad_tensor(input)
        gray, pad_left, pad_right, pad_top, pad_bottom = pad_tensor(gray)
        gray_2 = self.downsample_1(gray)
        gray_3 = self.downsample_2(gray_2)
        gray_4 = self.downsample_3(gray_3)
        gray_5 = self.downsample_4(gray_4)

        conv1 = self.conv1(torch.cat((input, gray), 1))
        conv2 = self.conv2(self.max_pool(conv1))
        conv3 = self.conv3(self.max_pool(conv2))
        conv4 = self.conv4(self.max_pool(conv3))
        conv5 = self.conv5(self.max_pool(conv4)) * gray_5

        conv5 = F.upsample(conv5, scale_factor=2, mode='bilinear')
        conv6 = self.conv6(torch.cat([self.deconv5(conv5), conv4 * gray_4], 1))
        conv6 = F.upsample(conv6, scale_factor=2, mode='bilinear')
        conv7 = self.conv7(torch.cat([self.deconv6(conv6), conv3 * gray_3], 1))
        conv7 = F.upsample(conv7, scale_factor=2, mode='bilinear')
        conv8 = self.conv8(torch.cat([self.deconv7(conv7), conv2 * gray_2], 1))
        conv8 = F.upsample(conv8, scale_factor=2, mode='bilinear')
        conv9 = self.conv9(torch.cat([self.deconv8(conv8), conv1 * gray], 1))

        latent = self.conv10(conv9)
        latent = latent * gray
        output = latent + input

        output = pad_tensor_back(output, pad_left, pad_right, pad_top, pad_bottom)
        latent = pad_tensor_back(latent, pad_left, pad_right, pad_top, pad_bottom)
        if flag == 1:
            output = F.upsample(output, scale_factor=2, mode='bilinear')
        return output, latent


def make_model():
    return Unet_resize_conv().eval()


def _pair(b, h, w):
    img = torch.rand(b, 3, h, w) * 2 - 1
    gray = 1.0 - (0.299 * img[:, 0:1] + 0.587 * img[:, 1:2] + 0.114 * img[:, 2:3] + 1) / 2
    return img, gray


def example_inputs():
    return _pair(1, 100, 150)


def other_inputs():
    return [_pair(2, 64, 96), _pair(1, 83, 121), _pair(3, 120, 70)]


def probe_inputs():
    return other_inputs()
