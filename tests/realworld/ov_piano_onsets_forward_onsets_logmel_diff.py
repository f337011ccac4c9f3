"""Onsets-and-Velocities piano transcription: forward_onsets stacks the log-mel with its time
derivative, `xdiff = x.diff(dim=-1)`, before the CNN stem; the fork's export check notes that
torch.diff "has no ONNX lowering at opset 17" on either torch 2.2 or 2.13 with the legacy exporter
(opset 17, dynamic batch/time axes), so the fork had to replace it with a slice subtraction.

Source: https://github.com/Cosxin/iamusica_training/blob/cb3dac76e1f99c4939ee853753b88db7f1f5f591/verify_training_recipe.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "time"}}
BLIND = "operators-25"


class OnsetsStem(nn.Module):
    """Trimmed OnsetsAndVelocities (ov_piano/models/ov.py): specnorm + stem + residual onset stages."""

    def __init__(self, in_chans=2, in_height=64, out_height=22, stem_chans=8, num_stages=3):
        super().__init__()
        self.specnorm = nn.BatchNorm2d(in_chans)
        self.stem = nn.Sequential(
            nn.Conv2d(in_chans, stem_chans, (3, 3), padding=(1, 1), bias=False),
            nn.BatchNorm2d(stem_chans),
            nn.LeakyReLU(0.1),
            nn.Conv2d(stem_chans, stem_chans * out_height, (in_height, 1), groups=stem_chans, bias=False),
            nn.Unflatten(1, (stem_chans, out_height)),  # (b, stem_ch, keys, 1, t)
            nn.Flatten(3, 4),  # (b, stem_ch, keys, t)
        )
        self.onset_stages = nn.ModuleList(
            [nn.Conv2d(stem_chans, 1, (1, 3), padding=(0, 1)) for _ in range(num_stages)])

    def forward_onsets(self, x):
        xdiff = x.diff(dim=-1)  # (b, melbins, t-1)
        # x+xdiff has shape (b, 2, melbins, t-1)
        x = torch.stack([x[:, :, 1:], xdiff]).permute(1, 0, 2, 3)
        x = self.specnorm(x)
        #
        stem_out = self.stem(x)  # (b, stem_ch, keys, t-1)
        x = self.onset_stages[0](stem_out)  # (b, 1, keys, t-1)
        #
        x_stages = [x]
        for stg in self.onset_stages[1:]:
            x = stg(stem_out) + x_stages[-1]  # residual stages
            x_stages.append(x)
        for st in x_stages:
            st.squeeze_(1)
        #
        return x_stages, stem_out

    def forward(self, x):
        x_stages, stem_out = self.forward_onsets(x)
        return x_stages[-1], stem_out


def make_model():
    return OnsetsStem().eval()


def example_inputs():
    return (torch.randn(1, 64, 40),)


def other_inputs():
    return [(torch.randn(2, 64, 57),), (torch.randn(3, 64, 23),)]


def probe_inputs():
    return other_inputs()
