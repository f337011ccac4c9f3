"""ONX604: a Gaussian policy head in the style of Stable-Baselines3's DiagGaussianDistribution,
built in forward with argument validation on. Dynamo fails on the validation's data-dependent
check; legacy traces it as a constant. Fixed (unsafely: invalid parameters no longer raise) by
passing validate_args=False."""
import torch
from torch import nn
from torch.distributions import Normal


class GaussianPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)
        self.log_std = nn.Parameter(torch.tensor([-0.5, 0.25]))

    def forward(self, obs: torch.Tensor):
        mean = self.net(obs)
        distribution = Normal(mean, torch.ones_like(mean) * self.log_std.exp())
        return distribution.mean, distribution.log_prob(mean).sum(dim=1), distribution.entropy().sum(dim=1)


def make_model():
    torch.manual_seed(0)
    return GaussianPolicy()


def example_inputs():
    return (torch.tensor([[0.5, -1.0, 2.0, 0.0], [1.5, 0.25, -0.75, 1.0]]),)


def probe_inputs():
    return [(torch.tensor([[2.0, 1.0, -1.0, 0.5], [0.0, 0.0, 3.0, -2.0]]),), (torch.full((5, 4), 0.75),)]


DYNAMIC = {0: {0: "rows"}}
