"""SpeechBrain PCEN (learnable per-channel energy normalisation of the LEAF frontend): its
ExponentialMovingAverage smoother scans the time axis in Python, `for ix in range(len(x)): acc = w * x[ix] + ...`,
one step per frame; the commit "torch.jit.trace fix for EMA layer" targets this loop (`len(x)` over the time
dimension), which a trace unrolls for the example length.

Source: https://github.com/speechbrain/speechbrain/commit/390c78cae7ef25a2adba28c8c66fddcf6de3901b
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "domains-34"


class ExponentialMovingAverage(nn.Module):
    def __init__(self, input_size: int, coeff_init: float = 0.04, per_channel: bool = False,
                 trainable: bool = True, skip_transpose: bool = False):
        super(ExponentialMovingAverage, self).__init__()
        self._coeff_init = coeff_init
        self._per_channel = per_channel
        self.skip_transpose = skip_transpose
        self.trainable = trainable
        weights = torch.ones(input_size,) if self._per_channel else torch.ones(1,)
        self._weights = nn.Parameter(weights * self._coeff_init, requires_grad=trainable)

    def forward(self, x):
        if not self.skip_transpose:
            x = x.transpose(1, -1)
        w = torch.clamp(self._weights, min=0.0, max=1.0)
        initial_state = x[:, :, 0]

        def scan(init_state, x, w):
            x = x.permute(2, 0, 1)
            acc = init_state
            results = []
            for ix in range(len(x)):
                acc = (w * x[ix]) + ((1.0 - w) * acc)
                results.append(acc.unsqueeze(0))
            results = torch.cat(results, dim=0)
            results = results.permute(1, 2, 0)
            return results

        output = scan(initial_state, x, w)
        if not self.skip_transpose:
            output = output.transpose(1, -1)
        return output


class PCEN(nn.Module):
    def __init__(self, input_size, alpha: float = 0.96, smooth_coef: float = 0.04, delta: float = 2.0,
                 root: float = 2.0, floor: float = 1e-12, trainable: bool = True,
                 per_channel_smooth_coef: bool = True, skip_transpose: bool = False):
        super(PCEN, self).__init__()
        self._smooth_coef = smooth_coef
        self._floor = floor
        self._per_channel_smooth_coef = per_channel_smooth_coef
        self.skip_transpose = skip_transpose
        self.alpha = nn.Parameter(torch.ones(input_size) * alpha, requires_grad=trainable)
        self.delta = nn.Parameter(torch.ones(input_size) * delta, requires_grad=trainable)
        self.root = nn.Parameter(torch.ones(input_size) * root, requires_grad=trainable)
        self.ema = ExponentialMovingAverage(
            input_size, coeff_init=self._smooth_coef, per_channel=self._per_channel_smooth_coef,
            skip_transpose=True, trainable=trainable,
        )

    def forward(self, x):
        if not self.skip_transpose:
            x = x.transpose(1, -1)
        alpha = torch.min(self.alpha, torch.tensor(1.0, dtype=x.dtype, device=x.device))
        root = torch.max(self.root, torch.tensor(1.0, dtype=x.dtype, device=x.device))
        ema_smoother = self.ema(x)
        one_over_root = 1.0 / root
        output = (
            x / (self._floor + ema_smoother) ** alpha.view(1, -1, 1) + self.delta.view(1, -1, 1)
        ) ** one_over_root.view(1, -1, 1) - self.delta.view(1, -1, 1) ** one_over_root.view(1, -1, 1)
        if not self.skip_transpose:
            output = output.transpose(1, -1)
        return output


def make_model():
    return PCEN(40, alpha=0.96).eval()


def example_inputs():
    return (torch.rand(2, 50, 40),)


def other_inputs():
    return [(torch.rand(3, 73, 40),), (torch.rand(1, 21, 40),)]


def probe_inputs():
    return other_inputs()
