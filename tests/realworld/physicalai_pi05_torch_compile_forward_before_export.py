"""Physical AI Studio (Geti Action) pi0.5 VLA policy: with `compile_model=True` the model replaces its own
`self.sample_actions` and `self.forward` with `torch.compile(...)` wrappers in `__init__`; exporting the trained
policy then fails because the tracer cannot handle a dynamo-optimized forward ("Detected that you are using FX to
torch.jit.trace a dynamo-optimized function. This is not supported at the moment."), so the fix reloads the
checkpoint with `compile_model=False` before export.
(PaliGemma + Gemma action expert trimmed to a patch embedding, a token embedding and two small MLP blocks; the
flow-matching denoising loop kept.)

Source: https://github.com/open-edge-platform/physical-ai-studio/pull/588
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "exporter-defaults"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch"}, "tokens": {0: "batch", 1: "seq"}}
BLIND = "domains-21"


def _create_sinusoidal_pos_embedding(time, dimension, min_period, max_period):
    fraction = torch.linspace(0.0, 1.0, dimension // 2, dtype=torch.float32, device=time.device)
    period = min_period * (max_period / min_period) ** fraction
    scaling_factor = 1.0 / period * 2 * math.pi
    sin_input = scaling_factor[None, :] * time[:, None]
    return torch.cat([torch.sin(sin_input), torch.cos(sin_input)], dim=1)


class Pi05Model(nn.Module):
    def __init__(self, chunk_size=8, max_action_dim=8, action_dim=6, num_inference_steps=4, width=32,
                 min_period=4e-3, max_period=4.0, compile_model=False):
        super().__init__()
        self._chunk_size = chunk_size
        self._max_action_dim = max_action_dim
        self._action_dim = action_dim
        self._num_inference_steps = num_inference_steps
        self._min_period = min_period
        self._max_period = max_period
        self.patch_embed = nn.Conv2d(3, width, kernel_size=8, stride=8)
        self.embed_tokens = nn.Embedding(100, width)
        self.prefix_mlp = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.GELU())
        self.expert = nn.Sequential(nn.LayerNorm(2 * width), nn.Linear(2 * width, width), nn.GELU(), nn.Linear(width, width))

        self.action_in_proj = nn.Linear(max_action_dim, width)
        self.action_out_proj = nn.Linear(width, max_action_dim)
        self.time_mlp_in = nn.Linear(width, width)
        self.time_mlp_out = nn.Linear(width, width)

        if compile_model:
            torch.set_float32_matmul_precision("high")
            compile_mode = "default"
            self.sample_actions = torch.compile(self.sample_actions, mode=compile_mode)  # type: ignore[method-assign]
            self.forward = torch.compile(self.forward, mode=compile_mode)  # type: ignore[method-assign]

    def embed_prefix(self, images, tokens):
        img_emb = self.patch_embed(images).flatten(2).transpose(1, 2)
        lang_emb = self.embed_tokens(tokens)
        lang_emb = lang_emb * math.sqrt(lang_emb.shape[-1])
        return self.prefix_mlp(torch.cat([img_emb, lang_emb], dim=1))

    def embed_suffix(self, noisy_actions, timestep):
        time_emb = _create_sinusoidal_pos_embedding(timestep, self.action_in_proj.out_features, self._min_period, self._max_period)
        adarms_cond = F.silu(self.time_mlp_out(F.silu(self.time_mlp_in(time_emb))))
        return self.action_in_proj(noisy_actions), adarms_cond

    def denoise_step(self, prefix_embs, x_t, timestep):
        suffix_embs, adarms_cond = self.embed_suffix(x_t, timestep)
        context = prefix_embs.mean(dim=1, keepdim=True).expand(-1, suffix_embs.shape[1], -1)
        suffix_out = self.expert(torch.cat([suffix_embs + adarms_cond[:, None], context], dim=-1))
        return self.action_out_proj(suffix_out)

    def forward(self, images, tokens):
        if self.training:
            raise NotImplementedError("training loss trimmed")
        return self.predict_action_chunk(images, tokens)

    def predict_action_chunk(self, images, tokens):
        actions = self.sample_actions(images, tokens)
        # Unpad actions to actual action dimension
        return actions[:, :, : self._action_dim]

    @torch.no_grad()
    def sample_actions(self, images, tokens, noise=None, num_steps=None):
        if num_steps is None:
            num_steps = self._num_inference_steps

        bsize = tokens.shape[0]
        device = tokens.device

        if noise is None:
            actions_shape = (bsize, self._chunk_size, self._max_action_dim)
            noise = torch.zeros(actions_shape, dtype=torch.float32, device=device)

        prefix_embs = self.embed_prefix(images, tokens)

        dt = -1.0 / num_steps

        x_t = noise
        for step in range(num_steps):
            time = 1.0 + step * dt
            time_tensor = torch.tensor(time, dtype=torch.float32, device=device).expand(bsize)
            v_t = self.denoise_step(prefix_embs, x_t, time_tensor)
            x_t += dt * v_t

        return x_t


def make_model():
    # the policy as trained: `compile_model=True` in the training config
    return Pi05Model(compile_model=True).eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32), torch.randint(0, 100, (2, 5)))


def other_inputs():
    return [
        (torch.randn(3, 3, 32, 32), torch.randint(0, 100, (3, 9))),
        (torch.randn(1, 3, 32, 32), torch.randint(0, 100, (1, 3))),
    ]


def probe_inputs():
    return other_inputs()
