"""A model whose `/Pad` node receives an int16 tensor: the export and onnx.checker succeed, but
onnxruntime refuses to load it with "NOT_IMPLEMENTED : Could not find an implementation for Pad(13)
node with name '/Pad'" (Netron shows the Pad input is int16; the write-up's fix is to cast to float32
before the Pad). The write-up shows no model code; the int16-sample front end padded with F.pad before
a float conversion and a small conv is my reconstruction of such a model.

Source: https://blog.gitcode.com/7de5b34df8bb88358754918d96716137.html
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"pcm": {0: "batch", 1: "samples"}}
BLIND = "operators-38"


class PaddedPcmFrontEnd(nn.Module):
    def __init__(self, kernel_size=9, channels=8):
        super().__init__()
        self.pad = kernel_size // 2
        self.conv = nn.Conv1d(1, channels, kernel_size)

    def forward(self, pcm):
        # pcm: (batch, samples), int16 audio samples
        x = F.pad(pcm, (self.pad, self.pad))          # Pad on tensor(int16)
        x = x.to(torch.float32) / 32768.0
        return self.conv(x.unsqueeze(1))


def make_model():
    return PaddedPcmFrontEnd().eval()


def _pcm(b, n):
    return torch.randint(-32768, 32767, (b, n), dtype=torch.int16)


def example_inputs():
    return (_pcm(2, 400),)


def other_inputs():
    return [(_pcm(3, 523),), (_pcm(1, 160),)]


def probe_inputs():
    return other_inputs()
