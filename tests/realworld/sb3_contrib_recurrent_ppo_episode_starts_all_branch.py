"""SB3-contrib RecurrentPPO (PPO-LSTM) actor wrapped for ONNX export the way SB3's export guide does it
(observation + LSTM states + episode_starts in, deterministic action + new states out). The policy's
`_process_sequence` takes a fast path `if th.all(episode_starts == 0.0): ...` and otherwise loops over the
sequence resetting the states of new episodes; Godot RL Agents' PPO-LSTM example ships with "the ONNX export
currently not supported" for this policy.

Source: https://github.com/edbeeching/godot_rl_agents/pull/257
"""
import torch as th
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {
    "observation": {0: "n_envs"},
    "hidden_state": {1: "n_envs"},
    "cell_state": {1: "n_envs"},
    "episode_starts": {0: "n_envs"},
}
BLIND = "domains-31"


class MlpExtractor(nn.Module):
    def __init__(self, feature_dim, net_arch=(64, 64)):
        super().__init__()
        layers = []
        last = feature_dim
        for size in net_arch:
            layers += [nn.Linear(last, size), nn.Tanh()]
            last = size
        self.policy_net = nn.Sequential(*layers)
        self.latent_dim_pi = last

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features)


class RecurrentActorCriticPolicy(nn.Module):
    def __init__(self, obs_dim=8, action_dim=2, lstm_hidden_size=32, n_lstm_layers=1):
        super().__init__()
        self.lstm_actor = nn.LSTM(obs_dim, lstm_hidden_size, num_layers=n_lstm_layers)
        self.mlp_extractor = MlpExtractor(lstm_hidden_size)
        self.action_net = nn.Linear(self.mlp_extractor.latent_dim_pi, action_dim)

    @staticmethod
    def _process_sequence(
        features: th.Tensor,
        lstm_states: tuple[th.Tensor, th.Tensor],
        episode_starts: th.Tensor,
        lstm: nn.LSTM,
    ) -> tuple[th.Tensor, th.Tensor]:
        n_seq = lstm_states[0].shape[1]
        features_sequence = features.reshape((n_seq, -1, lstm.input_size)).swapaxes(0, 1)
        episode_starts = episode_starts.reshape((n_seq, -1)).swapaxes(0, 1)

        # If we don't have to reset the state in the middle of a sequence
        # we can avoid the for loop, which speeds up things
        if th.all(episode_starts == 0.0):
            lstm_output, lstm_states = lstm(features_sequence, lstm_states)
            lstm_output = th.flatten(lstm_output.transpose(0, 1), start_dim=0, end_dim=1)
            return lstm_output, lstm_states

        lstm_output = []
        # Iterate over the sequence
        for features, episode_start in zip(features_sequence, episode_starts, strict=True):
            hidden, lstm_states = lstm(
                features.unsqueeze(dim=0),
                (
                    # Reset the states at the beginning of a new episode
                    (1.0 - episode_start).view(1, n_seq, 1) * lstm_states[0],
                    (1.0 - episode_start).view(1, n_seq, 1) * lstm_states[1],
                ),
            )
            lstm_output += [hidden]
        lstm_output = th.flatten(th.cat(lstm_output).transpose(0, 1), start_dim=0, end_dim=1)
        return lstm_output, lstm_states


class OnnxableRecurrentPolicy(nn.Module):
    def __init__(self, policy: RecurrentActorCriticPolicy):
        super().__init__()
        self.policy = policy

    def forward(self, observation, hidden_state, cell_state, episode_starts):
        features = th.flatten(observation, start_dim=1)
        latent_pi, lstm_states = self.policy._process_sequence(
            features, (hidden_state, cell_state), episode_starts, self.policy.lstm_actor
        )
        latent_pi = self.policy.mlp_extractor.forward_actor(latent_pi)
        actions = self.policy.action_net(latent_pi)  # deterministic: mean of the Gaussian
        return actions, lstm_states[0], lstm_states[1]


def make_model():
    return OnnxableRecurrentPolicy(RecurrentActorCriticPolicy()).eval()


def _inputs(n_envs, starts):
    return (
        th.randn(n_envs, 8),
        th.randn(1, n_envs, 32),
        th.randn(1, n_envs, 32),
        th.tensor(starts, dtype=th.float32),
    )


def example_inputs():
    return _inputs(4, [0.0, 0.0, 0.0, 0.0])


def other_inputs():
    return [_inputs(3, [1.0, 0.0, 1.0]), _inputs(6, [0.0, 0.0, 1.0, 0.0, 0.0, 1.0])]


def probe_inputs():
    return other_inputs()
