"""Speech front end that builds its STFT analysis window inline in forward (`torch.hamming_window(320)`)
before `signals.stft(...)` and a log power spectrum. The linked PR made the dynamo exporter translate
`aten::hamming_window` (together with hann/blackman) to the ONNX `HammingWindow` op, noting in the code that
ONNX's alpha/beta (0.543478/0.456522) differ from torch's 0.54/0.46, so the exported window, and every
spectrum computed with it, no longer matches eager.

Source: https://github.com/microsoft/onnxscript/pull/1995
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"signals": {0: "batch", 1: "samples"}}
BLIND = "operators-52"


class STFTModel(torch.nn.Module):
    def __init__(self, n_fft=512, hop_length=160, win_length=320):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length

    def forward(self, signals):
        # window made inline: its length may follow the config, so it is not kept as a buffer
        window = torch.hamming_window(self.win_length)
        x = signals.stft(
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            window=window,
            center=False,
            return_complex=False,
        )
        power = x.pow(2).sum(-1)          # (batch, freq, frames)
        return torch.log(power + 1e-6)


def make_model():
    return STFTModel().eval()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 24000),), (torch.randn(1, 9600),)]


def probe_inputs():
    return other_inputs()
