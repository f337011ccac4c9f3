"""A count model's negative-binomial head scores observed counts with torch.lgamma
(log NB likelihood: lgamma(y + theta) - lgamma(theta) - lgamma(y + 1) + ...). Converting such a
PyTorch model to OpenVINO fails because aten::lgamma has no conversion rule; the maintainers
opened a request to support aten::lgamma for PyTorch models.

Source: https://github.com/openvinotoolkit/openvino/issues/20583
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"features": {0: "batch", 1: "time"}, "target": {0: "batch", 1: "time"}}
BLIND = "operators-21"


def log_nb_positive(x, mu, theta, eps=1e-8):
    log_theta_mu_eps = torch.log(theta + mu + eps)
    res = (
        theta * (torch.log(theta + eps) - log_theta_mu_eps)
        + x * (torch.log(mu + eps) - log_theta_mu_eps)
        + torch.lgamma(x + theta)
        - torch.lgamma(theta)
        - torch.lgamma(x + 1)
    )
    return res


class NegativeBinomialHead(nn.Module):
    def __init__(self, in_dim=12, hidden=32):
        super().__init__()
        self.rnn = nn.GRU(in_dim, hidden, batch_first=True)
        self.mu = nn.Linear(hidden, 1)
        self.alpha = nn.Linear(hidden, 1)

    def forward(self, features, target):
        h, _ = self.rnn(features)
        mu = F.softplus(self.mu(h)).squeeze(-1)
        theta = 1.0 / (F.softplus(self.alpha(h)).squeeze(-1) + 1e-4)
        return log_nb_positive(target, mu, theta)


def make_model():
    return NegativeBinomialHead().eval()


def _counts(b, t):
    return torch.randint(0, 20, (b, t)).float()


def example_inputs():
    return (torch.randn(2, 9, 12), _counts(2, 9))


def other_inputs():
    return [(torch.randn(3, 14, 12), _counts(3, 14)), (torch.randn(1, 5, 12), _counts(1, 5))]


def probe_inputs():
    return other_inputs()
