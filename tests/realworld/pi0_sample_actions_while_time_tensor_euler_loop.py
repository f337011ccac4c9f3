"""pi0 VLA policy (LeRobot `PI0FlowMatching.sample_actions`): the flow-matching Euler integration runs
`while time >= -dt / 2:` on 0-d tensors `time` / `dt` and updates `x_t += dt * v_t` / `time += dt` in place;
physical-ai-studio's first-party pi0 port rewrites it with the comment "Using for loop instead of while for
ONNX/OpenVINO export compatibility" and "Using explicit assignment (not +=) for ONNX export compatibility"
(the code before that workaround is the case: the in-place `time += dt` on the tensor that
`expanded_time = time.expand(bsize)` views is traced wrong). PaliGemma prefix / Gemma action expert trimmed to MLPs.

Source: https://github.com/open-edge-platform/physical-ai-studio/blob/ee4fdd9fae4b3d78d351c32992a12df8e0c2f65f/library/src/getiaction/policies/pi0/model.py
"""
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"lang_tokens": {0: "batch", 1: "seq"}, "state": {0: "batch"}, "noise": {0: "batch"}}
BLIND = "domains-86"


def create_sinusoidal_pos_embedding(time: Tensor, dimension: int, min_period: float, max_period: float,
                                    device="cpu") -> Tensor:
    """Computes sine-cosine positional embedding vectors for scalar positions."""
    if dimension % 2 != 0:
        raise ValueError(f"dimension ({dimension}) must be divisible by 2")
    if time.ndim != 1:
        raise ValueError("The time tensor is expected to be of shape `(batch_size, )`.")
    dtype = torch.float64 if device != "mps" else torch.float32
    fraction = torch.linspace(0.0, 1.0, dimension // 2, dtype=dtype, device=device)
    period = min_period * (max_period / min_period) ** fraction
    scaling_factor = 1.0 / period * 2 * math.pi
    sin_input = scaling_factor[None, :] * time[:, None]
    pos_emb = torch.cat([torch.sin(sin_input), torch.cos(sin_input)], dim=1)
    return pos_emb


class PI0FlowMatching(nn.Module):
    def __init__(self, vocab=64, width=32, state_dim=8, max_action_dim=8, n_action_steps=10, num_steps=10):
        super().__init__()
        self.width = width
        self.n_action_steps = n_action_steps
        self.num_steps = num_steps
        self.embed_tokens = nn.Embedding(vocab, width)
        self.state_proj = nn.Linear(state_dim, width)
        self.action_in_proj = nn.Linear(max_action_dim, width)
        self.action_time_mlp_in = nn.Linear(2 * width, width)
        self.action_time_mlp_out = nn.Linear(width, width)
        self.expert = nn.Sequential(nn.Linear(2 * width, width), nn.GELU(), nn.Linear(width, width))
        self.action_out_proj = nn.Linear(width, max_action_dim)

    def embed_prefix(self, lang_tokens):
        lang_emb = self.embed_tokens(lang_tokens)
        lang_emb = lang_emb * math.sqrt(lang_emb.shape[-1])
        return lang_emb.mean(dim=1)  # stands in for the PaliGemma KV cache

    def denoise_step(self, state, prefix_ctx, x_t, timestep):
        state_emb = self.state_proj(state)
        action_emb = self.action_in_proj(x_t)
        time_emb = create_sinusoidal_pos_embedding(timestep, self.width, min_period=4e-3, max_period=4.0,
                                                   device=x_t.device)
        time_emb = time_emb.type(dtype=action_emb.dtype)
        time_emb = time_emb[:, None, :].expand_as(action_emb)
        action_time_emb = torch.cat([action_emb, time_emb], dim=2)
        action_time_emb = self.action_time_mlp_out(F.silu(self.action_time_mlp_in(action_time_emb)))
        ctx = (prefix_ctx + state_emb)[:, None, :].expand_as(action_time_emb)
        suffix_out = self.expert(torch.cat([action_time_emb, ctx], dim=2))
        suffix_out = suffix_out[:, -self.n_action_steps:]
        v_t = self.action_out_proj(suffix_out)
        return v_t

    @torch.no_grad()
    def sample_actions(self, lang_tokens, state, noise):
        bsize = state.shape[0]
        device = state.device
        prefix_ctx = self.embed_prefix(lang_tokens)

        dt = -1.0 / self.num_steps
        dt = torch.tensor(dt, dtype=torch.float32, device=device)

        x_t = noise
        time = torch.tensor(1.0, dtype=torch.float32, device=device)
        while time >= -dt / 2:
            expanded_time = time.expand(bsize)
            v_t = self.denoise_step(state, prefix_ctx, x_t, expanded_time)

            # Euler step
            x_t += dt * v_t
            time += dt
        return x_t

    def forward(self, lang_tokens, state, noise):
        return self.sample_actions(lang_tokens, state, noise.clone())


def make_model():
    return PI0FlowMatching().eval()


def example_inputs():
    return (torch.randint(0, 64, (2, 12)), torch.randn(2, 8), torch.randn(2, 10, 8))


def other_inputs():
    return [
        (torch.randint(0, 64, (3, 7)), torch.randn(3, 8), torch.randn(3, 10, 8)),
        (torch.randint(0, 64, (1, 20)), torch.randn(1, 8), torch.randn(1, 10, 8)),
    ]


def probe_inputs():
    return other_inputs()
