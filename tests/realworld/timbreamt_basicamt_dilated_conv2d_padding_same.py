"""BasicAMT (timbre-agnostic music transcription over a CQT, BasicPitch-like) whose early conv
block is a dilated frequency conv `CBR(16, 8, kernel_size=(25, 3), dilation=(3, 1),
padding="same")`; the author's ONNX notes say the exported model then fails in onnxruntime with
"Dilation not supported for AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER" on the Conv node
of early_conv, and that padding must be given explicitly.

Source: https://github.com/madderscientist/timbreAMT/blob/main/basicamt/README.md
"""
import numpy as np
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 3: "frames"}}
BLIND = "operators-61"


class HarmonicaStacking(nn.Module):
    def __init__(self, shifts, output_bins):
        super().__init__()
        self.shifts = sorted(shifts)
        self.output_bins = output_bins

    def forward(self, x):
        batch_size, channels, n_bins, length = x.shape
        shifted = torch.zeros((batch_size, channels * len(self.shifts), self.output_bins, length), device=x.device, dtype=x.dtype)
        for i, shift in enumerate(self.shifts):
            if shift < 0:
                shifted[:, i*channels:(i+1)*channels, -shift:self.output_bins, :] = x[:, :, :self.output_bins+shift, :]
            else:
                shifted[:, i*channels:(i+1)*channels, :self.output_bins-shift, :] = x[:, :, shift:self.output_bins, :]
        return shifted

    @staticmethod
    def harmonic_shifts(up_harmonics, down_harmonics=1, bins_per_octave=12):
        downs = np.round(-bins_per_octave * np.log2(np.arange(2, down_harmonics+2))).astype(int)
        ups = np.round(bins_per_octave * np.log2(np.arange(1, up_harmonics+1))).astype(int)
        return [int(s) for s in np.concatenate([downs, ups])]


class CBR(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding="same", dilation=1):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False, dilation=dilation)
        self.bn = nn.BatchNorm2d(out_channels)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class EnergyNorm(nn.Module):
    def forward(self, x):
        eng = torch.sum(x.pow(2), dim=1, keepdim=True)
        eng_per_frame = torch.sum(eng, dim=2, keepdim=True)
        std = torch.std(eng_per_frame, dim=3, keepdim=True, unbiased=True)
        return torch.log(eng + 1.01e-8) - torch.log(std)


class BasicAMT(nn.Module):
    def __init__(self):
        super().__init__()
        harmonics = 8
        self.eng = EnergyNorm()
        self.HCQT = HarmonicaStacking(HarmonicaStacking.harmonic_shifts(harmonics-1, 1, 36), 7 * 36)
        self.early_conv = nn.Sequential(
            CBR(harmonics, 16, (5, 3), 1, "same"),
            CBR(16, 8, kernel_size=(25, 3), dilation=(3, 1), padding="same", stride=1)
        )
        self.conv_yn = nn.Sequential(
            nn.Conv2d(8 + harmonics, 1, kernel_size=(5, 5), stride=(3, 1), padding=(1, 2)),
            nn.Sigmoid()
        )

    def forward(self, x):
        # x: (batch, 2, 8*36, len) real/imag CQT
        stacked = self.HCQT(self.eng(x))
        early_conv = self.early_conv(stacked)
        yn = self.conv_yn(torch.cat((early_conv, stacked), dim=1))
        return yn.squeeze(1)


def make_model():
    return BasicAMT().eval()


def example_inputs():
    return (torch.randn(2, 2, 288, 40),)


def other_inputs():
    return [(torch.randn(3, 2, 288, 57),), (torch.randn(1, 2, 288, 23),)]


def probe_inputs():
    return other_inputs()
