"""rl_games continuous actor-critic (`ModelA2CContinuousLogStd.Network`): forward takes the player's input_dict
({'is_train': False, 'prev_actions': None, 'obs': ..., 'rnn_states': None}), samples an action from
`torch.distributions.Normal(mu, sigma)` and returns a dict with 'rnn_states': None next to the tensors. The
author's ONNX demo says "just model export doesn't work. Looks like onnx issue with torch distributions", so the
demo wraps the model and exports only `a2c_network`. (`Normal(mu, sigma)` validates its arguments by default,
a check on tensor values that raises.)

Source: https://github.com/Denys88/rl_games/pull/201
"""
import numpy as np
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-40"


class RunningMeanStd(nn.Module):
    def __init__(self, insize, epsilon=1e-05):
        super(RunningMeanStd, self).__init__()
        self.epsilon = epsilon
        self.register_buffer("running_mean", torch.zeros(insize, dtype=torch.float64))
        self.register_buffer("running_var", torch.ones(insize, dtype=torch.float64))
        self.register_buffer("count", torch.ones((), dtype=torch.float64))

    def forward(self, input, unnorm=False):
        current_mean = self.running_mean
        current_var = self.running_var
        if unnorm:
            y = torch.clamp(input, min=-5.0, max=5.0)
            y = torch.sqrt(current_var.float() + self.epsilon) * y + current_mean.float()
        else:
            y = (input - current_mean.float()) / torch.sqrt(current_var.float() + self.epsilon)
            y = torch.clamp(y, min=-5.0, max=5.0)
        return y


class A2CNetwork(nn.Module):
    def __init__(self, obs_dim, actions_num, units=(32, 32)):
        super().__init__()
        layers, in_size = [], obs_dim
        for u in units:
            layers += [nn.Linear(in_size, u), nn.ELU()]
            in_size = u
        self.actor_mlp = nn.Sequential(*layers)
        self.value = nn.Linear(in_size, 1)
        self.mu = nn.Linear(in_size, actions_num)
        self.sigma = nn.Parameter(torch.zeros(actions_num, requires_grad=True, dtype=torch.float32))

    def forward(self, obs_dict):
        obs = obs_dict['obs']
        states = obs_dict.get('rnn_states', None)
        out = self.actor_mlp(obs)
        value = self.value(out)
        mu = self.mu(out)
        sigma = mu * 0.0 + self.sigma
        return mu, sigma, value, states


class Network(nn.Module):
    def __init__(self, a2c_network, obs_shape, normalize_value=True, normalize_input=True, value_size=1):
        nn.Module.__init__(self)
        self.a2c_network = a2c_network
        self.normalize_value = normalize_value
        self.normalize_input = normalize_input
        self.value_mean_std = RunningMeanStd((value_size,))
        self.running_mean_std = RunningMeanStd(obs_shape)

    def norm_obs(self, observation):
        with torch.no_grad():
            return self.running_mean_std(observation) if self.normalize_input else observation

    def unnorm_value(self, value):
        with torch.no_grad():
            return self.value_mean_std(value, unnorm=True) if self.normalize_value else value

    def forward(self, input_dict):
        is_train = input_dict.get('is_train', True)
        prev_actions = input_dict.get('prev_actions', None)
        input_dict['obs'] = self.norm_obs(input_dict['obs'])
        mu, logstd, value, states = self.a2c_network(input_dict)
        sigma = torch.exp(logstd)
        distr = torch.distributions.Normal(mu, sigma)
        if is_train:
            entropy = distr.entropy().sum(dim=-1)
            prev_neglogp = self.neglogp(prev_actions, mu, sigma, logstd)
            result = {
                'prev_neglogp': torch.squeeze(prev_neglogp),
                'values': value,
                'entropy': entropy,
                'rnn_states': states,
                'mus': mu,
                'sigmas': sigma
            }
            return result
        else:
            selected_action = distr.sample()
            neglogp = self.neglogp(selected_action, mu, sigma, logstd)
            result = {
                'neglogpacs': torch.squeeze(neglogp),
                'values': self.unnorm_value(value),
                'actions': selected_action,
                'rnn_states': states,
                'mus': mu,
                'sigmas': sigma
            }
            return result

    def neglogp(self, x, mean, std, logstd):
        return 0.5 * (((x - mean) / std)**2).sum(dim=-1) \
            + 0.5 * np.log(2.0 * np.pi) * x.size()[-1] \
            + logstd.sum(dim=-1)


def make_model():
    return Network(A2CNetwork(3, 1), (3,)).eval()


def _inputs(n):
    return ({'is_train': False, 'prev_actions': None, 'obs': torch.randn(n, 3), 'rnn_states': None},)


def example_inputs():
    return _inputs(1)


def other_inputs():
    return [_inputs(1), _inputs(1)]


def probe_inputs():
    return other_inputs()
