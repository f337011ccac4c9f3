"""NeMo UnivNet vocoder (PR "[TTS] Update UnivNet, HiFi-GAN and WaveGlow ...": "add exportability (it works
correctly only for TorchScript)"): the LVCBlock's location-variable convolution slices the upsampled waveform
into per-frame windows with three `Tensor.unfold` calls whose sizes come from `x.shape`, so ONNX export of the
vocoder with a dynamic mel length does not work (legacy exporter: "ONNX export of operator Unfold, input size not
accessible").

Source: https://github.com/NVIDIA-NeMo/Speech/pull/3585
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch", 2: "frames"}, "c": {0: "batch", 2: "frames"}}
BLIND = "domains-51"


class KernelPredictor(torch.nn.Module):
    ''' Kernel predictor for the location-variable convolutions'''

    def __init__(self, cond_channels, conv_in_channels, conv_out_channels, conv_layers, conv_kernel_size=3,
                 kpnet_hidden_channels=16, kpnet_conv_size=3):
        super().__init__()
        self.conv_in_channels = conv_in_channels
        self.conv_out_channels = conv_out_channels
        self.conv_kernel_size = conv_kernel_size
        self.conv_layers = conv_layers
        kpnet_kernel_channels = conv_in_channels * conv_out_channels * conv_kernel_size * conv_layers  # l_w
        kpnet_bias_channels = conv_out_channels * conv_layers  # l_b
        padding = (kpnet_conv_size - 1) // 2
        self.input_conv = nn.Sequential(
            nn.Conv1d(cond_channels, kpnet_hidden_channels, 5, padding=2, bias=True),
            nn.LeakyReLU(0.1),
        )
        self.kernel_conv = nn.Conv1d(kpnet_hidden_channels, kpnet_kernel_channels, kpnet_conv_size, padding=padding)
        self.bias_conv = nn.Conv1d(kpnet_hidden_channels, kpnet_bias_channels, kpnet_conv_size, padding=padding)

    def forward(self, c):
        batch, _, cond_length = c.shape
        c = self.input_conv(c)
        k = self.kernel_conv(c)
        b = self.bias_conv(c)
        kernels = k.contiguous().view(
            batch, self.conv_layers, self.conv_in_channels, self.conv_out_channels, self.conv_kernel_size, cond_length,
        )
        bias = b.contiguous().view(batch, self.conv_layers, self.conv_out_channels, cond_length)
        return kernels, bias


class LVCBlock(torch.nn.Module):
    '''the location-variable convolutions'''

    def __init__(self, in_channels=4, cond_channels=8, stride=2, dilations=[1, 3], lReLU_slope=0.2,
                 conv_kernel_size=3, cond_hop_length=2):
        super().__init__()
        self.cond_hop_length = cond_hop_length
        self.conv_layers = len(dilations)
        self.conv_kernel_size = conv_kernel_size
        self.kernel_predictor = KernelPredictor(
            cond_channels=cond_channels, conv_in_channels=in_channels, conv_out_channels=2 * in_channels,
            conv_layers=len(dilations), conv_kernel_size=conv_kernel_size,
        )
        self.convt_pre = nn.Sequential(
            nn.LeakyReLU(lReLU_slope),
            nn.ConvTranspose1d(in_channels, in_channels, 2 * stride, stride=stride,
                               padding=stride // 2 + stride % 2, output_padding=stride % 2),
        )
        self.conv_blocks = nn.ModuleList()
        for dilation in dilations:
            self.conv_blocks.append(
                nn.Sequential(
                    nn.LeakyReLU(lReLU_slope),
                    nn.Conv1d(in_channels, in_channels, conv_kernel_size,
                              padding=dilation * (conv_kernel_size - 1) // 2, dilation=dilation),
                    nn.LeakyReLU(lReLU_slope),
                )
            )

    def forward(self, x, c):
        _, in_channels, _ = x.shape  # (B, c_g, L')

        x = self.convt_pre(x)  # (B, c_g, stride * L')
        kernels, bias = self.kernel_predictor(c)

        for i, conv in enumerate(self.conv_blocks):
            output = conv(x)  # (B, c_g, stride * L')

            k = kernels[:, i, :, :, :, :]  # (B, 2 * c_g, c_g, kernel_size, cond_length)
            b = bias[:, i, :, :]  # (B, 2 * c_g, cond_length)

            output = self.location_variable_convolution(output, k, b, hop_size=self.cond_hop_length)
            x = x + torch.sigmoid(output[:, :in_channels, :]) * torch.tanh(output[:, in_channels:, :])

        return x

    def location_variable_convolution(self, x, kernel, bias, dilation=1, hop_size=256):
        batch, _, in_length = x.shape
        batch, _, out_channels, kernel_size, kernel_length = kernel.shape
        assert in_length == (kernel_length * hop_size), "length of (x, kernel) is not matched"

        padding = dilation * int((kernel_size - 1) / 2)
        x = F.pad(x, (padding, padding), 'constant', 0)  # (batch, in_channels, in_length + 2*padding)
        x = x.unfold(2, hop_size + 2 * padding, hop_size)  # (batch, in_channels, kernel_length, hop_size + 2*padding)

        if hop_size < dilation:
            x = F.pad(x, (0, dilation), 'constant', 0)
        x = x.unfold(3, dilation, dilation)
        x = x[:, :, :, :, :hop_size]
        x = x.transpose(3, 4)
        x = x.unfold(4, kernel_size, 1)  # (batch, in_channels, kernel_length, dilation, _, kernel_size)

        o = torch.einsum('bildsk,biokl->bolsd', x, kernel)
        o = o.to(memory_format=torch.channels_last_3d)
        bias = bias.unsqueeze(-1).unsqueeze(-1).to(memory_format=torch.channels_last_3d)
        o = o + bias
        o = o.contiguous().view(batch, out_channels, -1)

        return o


def make_model():
    return LVCBlock().eval()


def example_inputs():
    # x: noise/excitation at the previous resolution (L'), c: mel frames (L' * stride / hop = L')
    return (torch.randn(1, 4, 20), torch.randn(1, 8, 20))


def other_inputs():
    return [(torch.randn(2, 4, 33), torch.randn(2, 8, 33)), (torch.randn(1, 4, 9), torch.randn(1, 8, 9))]


def probe_inputs():
    return other_inputs()
