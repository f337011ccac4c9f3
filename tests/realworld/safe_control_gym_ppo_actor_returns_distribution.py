"""safe-control-gym PPO actor (MLPActor) whose forward returns the action distribution object
(a torch.distributions.Normal subclass) plus an optional log-prob that is None; the user exporting the
trained PPO models to ONNX "keeps running into errors" and only got an export after modifying the code.

Source: https://github.com/learnsyslab/safe-control-gym/issues/162
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"obs": {0: "batch"}}
BLIND = "domains-79"


def get_activation(name):
    return getattr(F, name) if name else lambda x: x


class MLP(nn.Module):
    def __init__(self, input_dim, output_dim, hidden_dims=[], act="relu", output_act=None, **kwargs):
        super(MLP, self).__init__()
        dims = [input_dim] + hidden_dims + [output_dim]
        self.fcs = nn.ModuleList([nn.Linear(dims[i], dims[i + 1]) for i in range(len(dims) - 1)])
        self.act = get_activation(act)
        self.output_act = get_activation(output_act)

    def forward(self, x):
        out = x
        for fc in self.fcs[:-1]:
            out = self.act(fc(out))
        out = self.output_act(self.fcs[-1](out))
        return out


class Normal(torch.distributions.Normal):
    def log_prob(self, actions):
        return super().log_prob(actions).sum(-1, keepdim=True)

    def entropy(self):
        return super().entropy().sum(-1)

    def mode(self):
        return self.mean


class MLPActor(nn.Module):
    '''Actor MLP model.'''

    def __init__(self, obs_dim, act_dim, hidden_dims, activation, discrete=False):
        super().__init__()
        self.pi_net = MLP(obs_dim, act_dim, hidden_dims, activation)
        self.discrete = discrete
        self.logstd = nn.Parameter(-0.5 * torch.ones(act_dim))
        self.dist_fn = lambda x: Normal(x, self.logstd.exp())

    def forward(self, obs, act=None):
        dist = self.dist_fn(self.pi_net(obs))
        logp_a = None
        if act is not None:
            logp_a = dist.log_prob(act)
        return dist, logp_a


def make_model():
    return MLPActor(12, 4, [64, 64], "tanh").eval()


def example_inputs():
    return (torch.randn(2, 12),)


def other_inputs():
    return [(torch.randn(5, 12),), (torch.randn(1, 12),)]


def probe_inputs():
    return other_inputs()
