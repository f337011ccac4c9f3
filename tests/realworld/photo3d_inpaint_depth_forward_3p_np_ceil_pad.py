"""3D Photo Inpainting depth-inpainting net (partial convolutions, 7 stride-2 levels): `forward_3P` pads the
input up to a multiple of `unit_length` with `residual_h = int(np.ceil(h / float(unit_length)) * unit_length - h)`
from `n, c, h, w = input.shape`, writes it into a `torch.zeros` canvas and crops the output back; ailia's export with
dynamic h/w gave a model tied to the export size. Channel widths shrunk, the unused `.numpy()` debug copies in
`forward` dropped; the export wrapper calls `forward_3P` like ailia's `functools.partial(..., unit_length=128)`.

Source: https://github.com/ailia-ai/ailia-models/issues/142
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"mask": {2: "h", 3: "w"}, "context": {2: "h", 3: "w"},
           "depth": {2: "h", 3: "w"}, "edge": {2: "h", 3: "w"}}
BLIND = "domains-15"


class PartialConv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, dilation=1, groups=1, bias=True):
        super().__init__()
        self.input_conv = nn.Conv2d(in_channels, out_channels, kernel_size,
                                    stride, padding, dilation, groups, bias)
        self.mask_conv = nn.Conv2d(in_channels, out_channels, kernel_size,
                                   stride, padding, dilation, groups, False)
        self.slide_winsize = in_channels * kernel_size * kernel_size

        torch.nn.init.constant_(self.mask_conv.weight, 1.0)

        # mask is not updated
        for param in self.mask_conv.parameters():
            param.requires_grad = False

    def forward(self, input, mask):
        output = self.input_conv(input * mask)
        if self.input_conv.bias is not None:
            output_bias = self.input_conv.bias.view(1, -1, 1, 1).expand_as(
                output)
        else:
            output_bias = torch.zeros_like(output)

        with torch.no_grad():
            output_mask = self.mask_conv(mask)

        no_update_holes = output_mask == 0

        mask_sum = output_mask.masked_fill_(no_update_holes, 1.0)

        output_pre = ((output - output_bias) * self.slide_winsize) / mask_sum + output_bias
        output = output_pre.masked_fill_(no_update_holes, 0.0)

        new_mask = torch.ones_like(output)
        new_mask = new_mask.masked_fill_(no_update_holes, 0.0)

        return output, new_mask


class PCBActiv(nn.Module):
    def __init__(self, in_ch, out_ch, bn=True, sample='none-3', activ='relu',
                 conv_bias=False):
        super().__init__()
        if sample == 'down-5':
            self.conv = PartialConv(in_ch, out_ch, 5, 2, 2, bias=conv_bias)
        elif sample == 'down-7':
            self.conv = PartialConv(in_ch, out_ch, 7, 2, 3, bias=conv_bias)
        elif sample == 'down-3':
            self.conv = PartialConv(in_ch, out_ch, 3, 2, 1, bias=conv_bias)
        else:
            self.conv = PartialConv(in_ch, out_ch, 3, 1, 1, bias=conv_bias)

        if bn:
            self.bn = nn.BatchNorm2d(out_ch)
        if activ == 'relu':
            self.activation = nn.ReLU()
        elif activ == 'leaky':
            self.activation = nn.LeakyReLU(negative_slope=0.2)

    def forward(self, input, input_mask):
        h, h_mask = self.conv(input, input_mask)
        if hasattr(self, 'bn'):
            h = self.bn(h)
        if hasattr(self, 'activation'):
            h = self.activation(h)
        return h, h_mask


class Inpaint_Depth_Net(nn.Module):
    def __init__(self, layer_size=7, upsampling_mode='nearest'):
        super().__init__()
        in_channels = 4
        out_channels = 1
        self.freeze_enc_bn = False
        self.upsampling_mode = upsampling_mode
        self.layer_size = layer_size
        self.enc_1 = PCBActiv(in_channels, 16, bn=False, sample='down-7', conv_bias=True)
        self.enc_2 = PCBActiv(16, 32, sample='down-5', conv_bias=True)
        self.enc_3 = PCBActiv(32, 64, sample='down-5')
        self.enc_4 = PCBActiv(64, 128, sample='down-3')
        for i in range(4, self.layer_size):
            name = 'enc_{:d}'.format(i + 1)
            setattr(self, name, PCBActiv(128, 128, sample='down-3'))

        for i in range(4, self.layer_size):
            name = 'dec_{:d}'.format(i + 1)
            setattr(self, name, PCBActiv(128 + 128, 128, activ='leaky'))
        self.dec_4 = PCBActiv(128 + 64, 64, activ='leaky')
        self.dec_3 = PCBActiv(64 + 32, 32, activ='leaky')
        self.dec_2 = PCBActiv(32 + 16, 16, activ='leaky')
        self.dec_1 = PCBActiv(16 + in_channels, out_channels,
                              bn=False, activ=None, conv_bias=True)

    def forward_3P(self, mask, context, depth, edge, unit_length=128, cuda=None):
        with torch.no_grad():
            input = torch.cat((depth, edge, context, mask), dim=1)
            n, c, h, w = input.shape
            residual_h = int(np.ceil(h / float(unit_length)) * unit_length - h)
            residual_w = int(np.ceil(w / float(unit_length)) * unit_length - w)
            anchor_h = residual_h//2
            anchor_w = residual_w//2
            enlarge_input = torch.zeros((n, c, h + residual_h, w + residual_w)).to(cuda)
            enlarge_input[..., anchor_h:anchor_h+h, anchor_w:anchor_w+w] = input
            depth_output = self.forward(enlarge_input)
            depth_output = depth_output[..., anchor_h:anchor_h+h, anchor_w:anchor_w+w]

        return depth_output

    def forward(self, input_feat, refine_border=False, sample=False, PCONV=True):
        input = input_feat
        input_mask = (input_feat[:, -2:-1] + input_feat[:, -1:]).clamp(0, 1).repeat(1, input.shape[1], 1, 1)

        h_dict = {}  # for the output of enc_N
        h_mask_dict = {}  # for the output of enc_N
        h_dict['h_0'], h_mask_dict['h_0'] = input, input_mask

        h_key_prev = 'h_0'
        for i in range(1, self.layer_size + 1):
            l_key = 'enc_{:d}'.format(i)
            h_key = 'h_{:d}'.format(i)
            h_dict[h_key], h_mask_dict[h_key] = getattr(self, l_key)(
                h_dict[h_key_prev], h_mask_dict[h_key_prev])
            h_key_prev = h_key

        h_key = 'h_{:d}'.format(self.layer_size)
        h, h_mask = h_dict[h_key], h_mask_dict[h_key]

        for i in range(self.layer_size, 0, -1):
            enc_h_key = 'h_{:d}'.format(i - 1)
            dec_l_key = 'dec_{:d}'.format(i)

            h = F.interpolate(h, scale_factor=2, mode=self.upsampling_mode)
            h_mask = F.interpolate(h_mask, scale_factor=2, mode='nearest')

            h = torch.cat([h, h_dict[enc_h_key]], dim=1)
            h_mask = torch.cat([h_mask, h_mask_dict[enc_h_key]], dim=1)
            h, h_mask = getattr(self, dec_l_key)(h, h_mask)
        output = h
        return output


class DepthInpaintExport(nn.Module):
    # what ailia exported: forward_3P with unit_length=128 on the CPU
    def __init__(self):
        super().__init__()
        self.depth_feat_model = Inpaint_Depth_Net()

    def forward(self, mask, context, depth, edge):
        return self.depth_feat_model.forward_3P(mask, context, depth, edge, unit_length=128,
                                                cuda=torch.device('cpu'))


def make_model():
    return DepthInpaintExport().eval()


def _inputs(h, w):
    mask = (torch.rand(1, 1, h, w) > 0.7).float()
    context = 1.0 - mask
    depth = torch.rand(1, 1, h, w) * context
    edge = (torch.rand(1, 1, h, w) > 0.9).float() * context
    return (mask, context, depth, edge)


def example_inputs():
    return _inputs(100, 90)


def other_inputs():
    return [_inputs(130, 200), _inputs(60, 70)]


def probe_inputs():
    return other_inputs()
