"""OpenTau pi0.5 VLA policy: `PI05FlowMatching.sample_actions` freezes the first `delay` actions of the chunk
to `action_prefix` with `prefix_mask = arange(chunk_size) < delay` and `if delay > 0:` around the
`torch.where` in the flow-matching denoising loop; the ONNX export PR makes `delay` a runtime tensor input and
has to drop both `if delay > 0:` branches (a Python branch on a tensor value) to export.
(PaliGemma prefix and Gemma action expert trimmed to a token embedding and a small MLP.)

Source: https://github.com/TensorAuto/OpenTau/pull/103
"""
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"lang_tokens": {0: "batch", 1: "seq"}, "noise": {0: "batch"}, "action_prefix": {0: "batch"}}
BLIND = "domains-37"


def rearrange(t, pattern):
    # the two einops patterns the model uses
    if pattern in ("c -> 1 c", "d -> 1 1 d"):
        return t.reshape((1,) * (pattern.count("1")) + tuple(t.shape))
    if pattern == "b c -> b c 1":
        return t.unsqueeze(-1)
    raise NotImplementedError(pattern)


def create_sinusoidal_pos_embedding(time: Tensor, dimension: int, min_period: float, max_period: float,
                                    device="cpu") -> Tensor:
    if dimension % 2 != 0:
        raise ValueError(f"dimension ({dimension}) must be divisible by 2")
    if time.ndim != 2:
        raise ValueError("The time tensor is expected to be of shape `(batch_size, action_chunk_length)`.")
    fraction = torch.linspace(0.0, 1.0, dimension // 2, dtype=torch.float32, device=device)
    period = min_period * (max_period / min_period) ** fraction
    scaling_factor = 1.0 / period * 2 * math.pi
    sin_input = rearrange(scaling_factor, "d -> 1 1 d") * rearrange(time, "b c -> b c 1")
    pos_emb = torch.cat([torch.sin(sin_input), torch.cos(sin_input)], dim=2)
    return pos_emb


class PI05FlowMatching(nn.Module):
    def __init__(self, chunk_size=8, max_action_dim=6, proj_width=32, num_steps=4, vocab=100):
        super().__init__()
        self.chunk_size, self.max_action_dim, self.proj_width, self.num_steps = chunk_size, max_action_dim, proj_width, num_steps
        self.embed_tokens = nn.Embedding(vocab, proj_width)
        self.action_in_proj = nn.Linear(max_action_dim, proj_width)
        self.time_mlp_in = nn.Linear(proj_width, proj_width)
        self.time_mlp_out = nn.Linear(proj_width, proj_width)
        self.expert = nn.Sequential(nn.Linear(2 * proj_width, proj_width), nn.GELU(), nn.Linear(proj_width, proj_width))
        self.action_out_proj = nn.Linear(proj_width, max_action_dim)

    def denoise_step(self, prefix_embs, x_t, time):
        time_emb = create_sinusoidal_pos_embedding(time, self.proj_width, min_period=4e-3, max_period=4.0,
                                                   device=x_t.device)
        action_emb = self.action_in_proj(x_t)
        adarms_cond = F.silu(self.time_mlp_out(F.silu(self.time_mlp_in(time_emb))))
        context = prefix_embs.mean(dim=1, keepdim=True).expand(-1, action_emb.shape[1], -1)
        suffix_out = self.expert(torch.cat([action_emb + adarms_cond, context], dim=-1))
        v_t = self.action_out_proj(suffix_out)
        return v_t.to(dtype=torch.float32)

    def sample_actions(self, lang_tokens, action_prefix=None, delay=0, noise=None):
        device = lang_tokens.device
        prefix_embs = self.embed_tokens(lang_tokens)

        # perform denoising steps to get the action
        dt = -1.0 / self.num_steps
        dt = torch.tensor(dt, dtype=torch.float32, device=device)

        x_t = noise
        time = torch.tensor(1.0, dtype=torch.float32, device=device)
        prefix_mask = rearrange(torch.arange(self.chunk_size, device=device), "c -> 1 c") < delay
        while time >= -dt / 2:
            # if delay is greater than 0, then freeze the action prefix at the beginning of action chunk
            if delay > 0:
                x_t = torch.where(rearrange(prefix_mask, "b c -> b c 1"), action_prefix, x_t)
            masked_time = torch.where(prefix_mask, 0, time)
            v_t = self.denoise_step(prefix_embs, x_t, masked_time.expand(x_t.shape[0], -1))

            # Euler step
            x_t += dt * v_t
            time += dt

        # we need to ensure the frozen actions are not modified before returning the denoised actions
        if delay > 0:
            x_t = torch.where(rearrange(prefix_mask, "b c -> b c 1"), action_prefix, x_t)
        return x_t


class PI05OnnxWrapper(nn.Module):
    """Export wrapper: every input an argument, `delay` a runtime input of shape (1,)."""

    def __init__(self):
        super().__init__()
        self.model = PI05FlowMatching()

    def forward(self, lang_tokens, noise, action_prefix, delay):
        actions = self.model.sample_actions(lang_tokens, action_prefix, delay, noise=noise)
        return actions[:, :, :4]


def make_model():
    return PI05OnnxWrapper().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 10)), torch.randn(2, 8, 6), torch.randn(2, 8, 6),
            torch.ones(1, dtype=torch.long))


def other_inputs():
    return [
        (torch.randint(0, 100, (3, 7)), torch.randn(3, 8, 6), torch.randn(3, 8, 6), torch.tensor([3])),
        (torch.randint(0, 100, (1, 12)), torch.randn(1, 8, 6), torch.randn(1, 8, 6), torch.tensor([0])),
    ]


def probe_inputs():
    return other_inputs()
