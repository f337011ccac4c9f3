"""Pi-0 (lerobot PI0Policy) inference forward as tt-forge-models wrote it: the forward keeps
`self._action_queue = deque()` on the policy, runs `sample_actions` only when the queue is empty, extends it
with the action chunk and returns `self._action_queue.popleft()`. The report: the queue is a plain Python object
shared by every call, so the second run (on the device) found the leftover actions of the first (CPU) run, skipped
`sample_actions` and returned a stale action (pcc=0.79).

Source: https://github.com/tenstorrent/tt-forge-models/pull/528
"""
import math
from collections import deque
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {
    "images": {0: "batch"},
    "img_masks": {0: "batch"},
    "lang_tokens": {0: "batch", 1: "lang_len"},
    "lang_masks": {0: "batch", 1: "lang_len"},
    "state": {0: "batch"},
}
BLIND = "domains-54"


@dataclass
class PolicyFeature:
    shape: tuple


@dataclass
class PI0Config:
    chunk_size: int = 6
    n_action_steps: int = 4
    max_action_dim: int = 8
    max_state_dim: int = 8
    num_steps: int = 4
    width: int = 32
    vocab_size: int = 50
    output_features: dict = field(default_factory=lambda: {"action": PolicyFeature((7,))})


def create_sinusoidal_pos_embedding(time, dimension, min_period=4e-3, max_period=4.0):
    fraction = torch.linspace(0.0, 1.0, dimension // 2, dtype=torch.float32, device=time.device)
    period = min_period * (max_period / min_period) ** fraction
    scaling_factor = 1.0 / period * 2 * math.pi
    sin_input = scaling_factor[None, :] * time[:, None]
    return torch.cat([torch.sin(sin_input), torch.cos(sin_input)], dim=1)


class PI0FlowMatching(nn.Module):
    """Small stand-in for the PaliGemma prefix + action expert; keeps the Euler flow-matching loop."""

    def __init__(self, config: PI0Config):
        super().__init__()
        self.config = config
        w = config.width
        self.img_proj = nn.Conv2d(3, w, kernel_size=8, stride=8)
        self.lang_embed = nn.Embedding(config.vocab_size, w)
        self.state_proj = nn.Linear(config.max_state_dim, w)
        self.action_in_proj = nn.Linear(config.max_action_dim, w)
        self.action_time_mlp = nn.Linear(2 * w, w)
        self.action_out_proj = nn.Linear(w, config.max_action_dim)

    def embed_prefix(self, images, img_masks, lang_tokens, lang_masks):
        img = self.img_proj(images).flatten(2).mean(-1) * img_masks[:, None].to(images.dtype)
        m = lang_masks.to(images.dtype)[..., None]
        lang = (self.lang_embed(lang_tokens) * m).sum(1) / m.sum(1).clamp(min=1.0)
        return img + lang

    def denoise_step(self, prefix, state, x_t, timestep):
        time_emb = create_sinusoidal_pos_embedding(timestep, self.config.width)
        h = self.action_in_proj(x_t)
        h = torch.cat([h, time_emb[:, None, :].expand_as(h)], dim=-1)
        h = torch.tanh(self.action_time_mlp(h) + (prefix + self.state_proj(state))[:, None, :])
        return self.action_out_proj(h)

    def sample_actions(self, images, img_masks, lang_tokens, lang_masks, state, noise=None):
        bsize = state.shape[0]
        if noise is None:
            # deterministic start here (lerobot draws torch.normal noise)
            noise = torch.zeros(bsize, self.config.chunk_size, self.config.max_action_dim, device=state.device)
        prefix = self.embed_prefix(images, img_masks, lang_tokens, lang_masks)
        dt = -1.0 / self.config.num_steps
        dt = torch.tensor(dt, dtype=torch.float32, device=state.device)
        x_t = noise
        time = torch.tensor(1.0, dtype=torch.float32, device=state.device)
        while time >= -dt / 2:
            expanded_time = time.expand(bsize)
            v_t = self.denoise_step(prefix, state, x_t, expanded_time)
            x_t += dt * v_t
            time += dt
        return x_t


class PI0Policy(nn.Module):
    def __init__(self, config: PI0Config):
        super().__init__()
        self.config = config
        self.model = PI0FlowMatching(config)

    @torch.no_grad()
    def forward(
        self,
        images: Tensor,
        img_masks: Tensor,
        lang_tokens: Tensor,
        lang_masks: Tensor,
        state: Tensor,
        **kwargs
    ) -> Tensor:
        if not hasattr(self, "_action_queue"):
            self._action_queue = deque()

        if len(self._action_queue) == 0:
            actions = self.model.sample_actions(
                images, img_masks, lang_tokens, lang_masks, state, **kwargs
            )

            original_action_dim = self.config.output_features["action"].shape[0]
            actions = actions[:, :, :original_action_dim]

            actions = actions[:, : self.config.n_action_steps]

            self._action_queue.extend(actions.transpose(0, 1))

        return self._action_queue.popleft()


def _inputs(b, lang_len):
    lang_masks = torch.ones(b, lang_len, dtype=torch.bool)
    lang_masks[:, lang_len - 2 :] = False
    return (
        torch.randn(b, 3, 32, 32),
        torch.ones(b, dtype=torch.bool),
        torch.randint(0, 50, (b, lang_len)),
        lang_masks,
        torch.randn(b, 8),
    )


def make_model():
    return PI0Policy(PI0Config()).eval()


def example_inputs():
    return _inputs(2, 10)


def other_inputs():
    return [_inputs(3, 14), _inputs(1, 7)]


def probe_inputs():
    return other_inputs()
