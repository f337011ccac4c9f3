"""TorchRL PPO critic computing advantages with `vec_generalized_advantage_estimate` and a per-step discount (gamma
tensor, e.g. dm_control's `discount` field): after building the rolled `gammalmbdas` decay tensor it truncates it with
`if first_below_thr.any(): first_below_thr = torch.where(first_below_thr)[0][0].item(); gammalmbdas =
gammalmbdas[..., :first_below_thr, :]`; the PR "Fix value functions for torch.compile compatibility" skips this
"data-dependent truncation" while compiling because it causes guards. (`_make_gammas_tensor`, `roll_by_gather` and
`_custom_conv1d` copied from torchrl.objectives.value.utils; the value network is a small MLP.)

Source: https://github.com/pytorch/rl/pull/3303
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"obs": {0: "batch", 1: "time"}, "next_obs": {0: "batch", 1: "time"}, "reward": {0: "batch", 1: "time"},
           "done": {0: "batch", 1: "time"}, "discount": {0: "batch", 1: "time"}}
BLIND = "domains-35"


def roll_by_gather(mat: torch.Tensor, dim: int, shifts: torch.LongTensor):
    # assumes 2D array
    *batch, n_rows, n_cols = mat.shape
    device = mat.device

    if dim in (0, -2):
        arange1 = (
            torch.arange(n_rows, device=device).unsqueeze(-1).expand((n_rows, n_cols))
        )
        arange2 = (arange1 - shifts) % n_rows
        return torch.gather(mat, -2, arange2.expand(*batch, *arange2.shape))
    else:
        raise NotImplementedError(f"dim {dim} is not supported.")


def _make_gammas_tensor(gamma: torch.Tensor, T: int, rolling_gamma: bool):
    gamma = gamma.transpose(-2, -1).contiguous()
    gamma = gamma.view(-1, T)
    dtype = gamma.dtype
    device = gamma.device
    # vectorized version (rolling_gamma=True)
    gammas = torch.ones(gamma.shape[0], T, T + 1, 1, dtype=dtype, device=device)
    s0 = gamma.unsqueeze(-1).expand(gamma.shape[0], T, T)
    s1 = roll_by_gather(s0, 0, shifts=-torch.arange(T, device=device))
    s2 = s1.transpose(-2, -1)
    gammas[..., 1:, :] = s2.unsqueeze(-1)
    return gammas


def _custom_conv1d(tensor: torch.Tensor, filter: torch.Tensor):
    # filter will have shape batch_dims x timesteps x filter_dim x 1
    filter = filter.view(*filter.shape[:-2], 1, filter.shape[-2])
    T = tensor.shape[-1]
    device = tensor.device
    batched_val_pad = (
        roll_by_gather(
            tensor.expand(tensor.shape[0], filter.shape[-1], T).transpose(-2, -1),
            0,
            -torch.arange(filter.shape[-1], device=device),
        )
        .flip(-1)
        .triu(filter.shape[-1] - T)
        .flip(-1)
        .unsqueeze(-2)
    )
    out = torch.einsum("btsj,btsj->bst", batched_val_pad, filter)
    if out.shape != tensor.shape:
        raise RuntimeError(
            f"wrong output shape: input shape: {tensor.shape}, output shape: {out.shape}"
        )
    return out


def vec_generalized_advantage_estimate(gamma, lmbda, state_value, next_state_value, reward, done,
                                       terminated=None):
    if terminated is None:
        terminated = done.clone()
    dtype = state_value.dtype
    *batch_size, time_steps, lastdim = terminated.shape

    value = gamma * lmbda

    # create tensor while ensuring that gradients are passed
    not_done = (~done).to(dtype)
    gammalmbdas = not_done * value

    gammalmbdas = _make_gammas_tensor(gammalmbdas, time_steps, True)
    gammalmbdas = gammalmbdas.cumprod(-2)

    first_below_thr = gammalmbdas < 1e-7
    # if we have multiple gammas, we only want to truncate if _all_ of
    # the geometric sequences fall below the threshold
    first_below_thr = first_below_thr.flatten(0, 1).all(0).all(-1)
    if first_below_thr.any():
        first_below_thr = torch.where(first_below_thr)[0][0].item()
        gammalmbdas = gammalmbdas[..., :first_below_thr, :]

    not_terminated = (~terminated).to(dtype)
    td0 = reward + not_terminated * gamma * next_state_value - state_value

    td0_r = td0.transpose(-2, -1)
    advantage = _custom_conv1d(td0_r, gammalmbdas)
    advantage = advantage.transpose(-2, -1)
    value_target = advantage + state_value
    return advantage, value_target


class GAECritic(nn.Module):
    def __init__(self, obs_dim=8, gamma=0.99, lmbda=0.95):
        super().__init__()
        self.value_network = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.register_buffer("gamma", torch.tensor(gamma))
        self.register_buffer("lmbda", torch.tensor(lmbda))

    def forward(self, obs, next_obs, reward, done, discount):
        state_value = self.value_network(obs)
        next_state_value = self.value_network(next_obs)
        gamma = self.gamma * discount  # per-step discount from the environment
        return vec_generalized_advantage_estimate(gamma, self.lmbda, state_value, next_state_value, reward, done)


def make_model():
    return GAECritic().eval()


def _batch(b, t):
    done = torch.rand(b, t, 1) < 0.1
    discount = (torch.rand(b, t, 1) > 0.05).float()
    return (torch.randn(b, t, 8), torch.randn(b, t, 8), torch.randn(b, t, 1), done, discount)


def example_inputs():
    return _batch(4, 12)


def other_inputs():
    return [_batch(6, 20), _batch(2, 7)]


def probe_inputs():
    return other_inputs()
