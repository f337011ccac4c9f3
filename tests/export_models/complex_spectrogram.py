"""A front end returning its complex spectrogram (`x.stft(..., return_complex=True)`). torch.onnx's
dynamo exporter gives the complex output as (real, imaginary) pairs in a trailing dim of 2, which
onnxruntime is compared with as `torch.view_as_real` of eager's; the legacy exporter fails on the
complex STFT, and with ONX526's pair helpers on the pair object as an output until flat_outputs
gives it the dynamo exporter's form."""
import torch
from torch import nn


class Spectrogram(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(32))

    def forward(self, signals):
        return signals.stft(n_fft=32, hop_length=8, window=self.window, return_complex=True)


def make_model():
    return Spectrogram()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 400),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 640),)]
