"""DPM-Solver `model_wrapper` with classifier guidance: `cond_grad_fn` takes
`torch.autograd.grad(log_prob.sum(), x_in)` inside `torch.enable_grad()`, and `model_fn` expands a single
timestep with `if t_continuous.reshape((-1,)).shape[0] == 1`; exporting the guided noise model to ONNX errors
because grad is forbidden during export.

Source: https://github.com/LuChengTHU/dpm-solver/issues/64
"""
import torch
from torch import nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}, "t_continuous": {0: "batch"}}
BLIND = "domains-1"


class GuidedNoiseModel(nn.Module):
    def __init__(self, guidance_scale=2.0, total_N=1000):
        super().__init__()
        self.net = nn.Conv2d(4, 4, 3, padding=1)
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(4 * 8 * 8, 10))
        self.guidance_scale = guidance_scale
        self.total_N = total_N
        self.condition = 3

    def noise_pred_fn(self, x, t_input):
        return self.net(x) * t_input[:, None, None, None]

    def classifier_fn(self, x, t_input, condition):
        logits = self.classifier(x)
        return torch.log_softmax(logits, dim=-1)[:, condition]

    def marginal_std(self, t):
        return torch.sqrt(1. - torch.exp(-0.5 * t * t * 10.))

    def cond_grad_fn(self, x, t_input):
        with torch.enable_grad():
            x_in = x.detach().requires_grad_(True)
            log_prob = self.classifier_fn(x_in, t_input, self.condition)
            return torch.autograd.grad(log_prob.sum(), x_in)[0]

    def forward(self, x, t_continuous):
        if t_continuous.reshape((-1,)).shape[0] == 1:
            t_continuous = t_continuous.expand((x.shape[0]))
        t_input = (t_continuous - 1. / self.total_N) * 1000.
        cond_grad = self.cond_grad_fn(x, t_input)
        sigma_t = self.marginal_std(t_continuous)
        noise = self.noise_pred_fn(x, t_input)
        return noise - self.guidance_scale * sigma_t[:, None, None, None] * cond_grad


def make_model():
    return GuidedNoiseModel()


def example_inputs():
    return (torch.randn(2, 4, 8, 8), torch.rand(2))


def other_inputs():
    return [(torch.randn(3, 4, 8, 8), torch.rand(3)), (torch.randn(1, 4, 8, 8), torch.rand(1))]


def probe_inputs():
    return other_inputs()
