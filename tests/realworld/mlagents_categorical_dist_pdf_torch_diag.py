"""ML-Agents' torch discrete policy scores actions with CategoricalDistInstance.pdf, written as
torch.diag(self.probs.T[value.flatten().long()]); the PR reports that torch.onnx.export does not support
torch.diag (aten::diag) and replaces it with a gather over an arange.

Source: https://github.com/Unity-Technologies/ml-agents/pull/4322
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"vec_obs": {0: "batch"}, "actions": {0: "batch"}}
BLIND = "operators-30"

EPSILON = 1e-7


class CategoricalDistInstance(nn.Module):
    def __init__(self, logits):
        super().__init__()
        self.logits = logits
        self.probs = torch.softmax(self.logits, dim=-1)

    def sample(self):
        return torch.multinomial(self.probs, 1)

    def pdf(self, value):
        return torch.diag(self.probs.T[value.flatten().long()])

    def log_prob(self, value):
        return torch.log(self.pdf(value) + EPSILON)

    def entropy(self):
        return -torch.sum(self.probs * torch.log(self.probs + EPSILON), dim=-1)


class MultiCategoricalDistribution(nn.Module):
    def __init__(self, hidden_size, act_size):
        super().__init__()
        self.branch = nn.Linear(hidden_size, act_size)

    def forward(self, inputs):
        return CategoricalDistInstance(self.branch(inputs))


class DiscreteActor(nn.Module):
    def __init__(self, obs_size=8, hidden_size=32, act_size=5):
        super().__init__()
        self.network_body = nn.Sequential(nn.Linear(obs_size, hidden_size), nn.ReLU(),
                                          nn.Linear(hidden_size, hidden_size), nn.ReLU())
        self.distribution = MultiCategoricalDistribution(hidden_size, act_size)

    def forward(self, vec_obs, actions):
        encoding = self.network_body(vec_obs)
        dist = self.distribution(encoding)
        log_probs = dist.log_prob(actions)
        entropies = dist.entropy()
        return log_probs, entropies


def make_model():
    return DiscreteActor()


def example_inputs():
    return (torch.randn(6, 8), torch.randint(0, 5, (6, 1)))


def other_inputs():
    return [(torch.randn(11, 8), torch.randint(0, 5, (11, 1))),
            (torch.randn(3, 8), torch.randint(0, 5, (3, 1)))]


def probe_inputs():
    return other_inputs()
