"""Speech front end (pre-emphasis filter in forward): the signal is `squeeze(1)`-ed although it is
already (B, T), a no-op in eager; exported with dynamic B and T the Squeeze node on the time axis makes
onnxruntime fail (the report: the exported graph errors out in ORT instead of passing the signal through).

Source: https://github.com/pytorch/pytorch/issues/36796
"""
import torch

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"signal": {0: "B", 1: "T"}}
BLIND = "domains-29"

bug = True


class Preemphasis(torch.nn.Module):
    def forward(self, signal):
        if bug:
            signal = signal.squeeze(1)
        signal = torch.cat([signal[..., :1], signal[..., 1:] - 0.97 * signal[..., :-1]], dim = -1)
        return signal


def make_model():
    return Preemphasis().eval()


def example_inputs():
    return (torch.rand(16, 8000),)


def other_inputs():
    return [(torch.rand(3, 5000),), (torch.rand(1, 12000),)]


def probe_inputs():
    return other_inputs()
