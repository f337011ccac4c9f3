"""Qwen-Image transformer (diffusers v0.35): the rotary embedding is built from the Python list `img_shapes`
(frame, height // 2, width // 2) and memoised in `self.rope_cache[f"{idx}_{height}_{width}"]` /
`functools.lru_cache` on `_compute_video_freqs`; optimum-intel's export patch says this bakes a fixed
resolution into the trace and replaces it with height/width tensor inputs. Here the export wrapper packs the
latents like the pipeline and derives `img_shapes` / `txt_seq_lens` from the input sizes.

Source: https://github.com/huggingface/optimum-intel/pull/1790
"""
import functools
from typing import List

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "state"
FAMILY = "shape_math"
DYNAMIC = {"latents": {0: "batch", 2: "height", 3: "width"}, "encoder_hidden_states": {0: "batch", 1: "txt_len"}}
BLIND = "domains-48"


def apply_rotary_emb_qwen(x, freqs_cis, use_real=False):
    x_rotated = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.unsqueeze(1)
    x_out = torch.view_as_real(x_rotated * freqs_cis).flatten(3)
    return x_out.type_as(x)


class QwenEmbedRope(nn.Module):
    def __init__(self, theta: int, axes_dim: List[int], scale_rope=False):
        super().__init__()
        self.theta = theta
        self.axes_dim = axes_dim
        pos_index = torch.arange(4096)
        neg_index = torch.arange(4096).flip(0) * -1 - 1
        self.pos_freqs = torch.cat([self.rope_params(pos_index, d, self.theta) for d in self.axes_dim], dim=1)
        self.neg_freqs = torch.cat([self.rope_params(neg_index, d, self.theta) for d in self.axes_dim], dim=1)
        self.rope_cache = {}
        # DO NOT USING REGISTER BUFFER HERE, IT WILL CAUSE COMPLEX NUMBERS LOSE ITS IMAGINARY PART
        self.scale_rope = scale_rope

    def rope_params(self, index, dim, theta=10000):
        freqs = torch.outer(index, 1.0 / torch.pow(theta, torch.arange(0, dim, 2).to(torch.float32).div(dim)))
        return torch.polar(torch.ones_like(freqs), freqs)

    def forward(self, video_fhw, txt_seq_lens, device):
        if isinstance(video_fhw, list):
            video_fhw = video_fhw[0]
        if not isinstance(video_fhw, list):
            video_fhw = [video_fhw]

        vid_freqs = []
        max_vid_index = 0
        for idx, fhw in enumerate(video_fhw):
            frame, height, width = fhw
            rope_key = f"{idx}_{height}_{width}"

            if not torch.compiler.is_compiling():
                if rope_key not in self.rope_cache:
                    self.rope_cache[rope_key] = self._compute_video_freqs(frame, height, width, idx)
                video_freq = self.rope_cache[rope_key]
            else:
                video_freq = self._compute_video_freqs(frame, height, width, idx)
            video_freq = video_freq.to(device)
            vid_freqs.append(video_freq)

            if self.scale_rope:
                max_vid_index = max(height // 2, width // 2, max_vid_index)
            else:
                max_vid_index = max(height, width, max_vid_index)

        max_len = max(txt_seq_lens)
        txt_freqs = self.pos_freqs[max_vid_index : max_vid_index + max_len, ...]
        vid_freqs = torch.cat(vid_freqs, dim=0)
        return vid_freqs, txt_freqs

    @functools.lru_cache(maxsize=None)
    def _compute_video_freqs(self, frame, height, width, idx=0):
        seq_lens = frame * height * width
        freqs_pos = self.pos_freqs.split([x // 2 for x in self.axes_dim], dim=1)
        freqs_neg = self.neg_freqs.split([x // 2 for x in self.axes_dim], dim=1)

        freqs_frame = freqs_pos[0][idx : idx + frame].view(frame, 1, 1, -1).expand(frame, height, width, -1)
        freqs_height = torch.cat([freqs_neg[1][-(height - height // 2) :], freqs_pos[1][: height // 2]], dim=0)
        freqs_height = freqs_height.view(1, height, 1, -1).expand(frame, height, width, -1)
        freqs_width = torch.cat([freqs_neg[2][-(width - width // 2) :], freqs_pos[2][: width // 2]], dim=0)
        freqs_width = freqs_width.view(1, 1, width, -1).expand(frame, height, width, -1)

        freqs = torch.cat([freqs_frame, freqs_height, freqs_width], dim=-1).reshape(seq_lens, -1)
        return freqs.clone().contiguous()


class QwenImageTransformerLite(nn.Module):
    def __init__(self, in_channels=64, txt_dim=32, heads=2, head_dim=16):
        super().__init__()
        dim = heads * head_dim
        self.heads = heads
        self.img_in, self.txt_in = nn.Linear(in_channels, dim), nn.Linear(txt_dim, dim)
        self.pos_embed = QwenEmbedRope(theta=10000, axes_dim=[4, 6, 6], scale_rope=True)
        self.to_qkv, self.add_qkv = nn.Linear(dim, 3 * dim), nn.Linear(dim, 3 * dim)
        self.proj_out = nn.Linear(dim, in_channels)

    def forward(self, hidden_states, encoder_hidden_states, img_shapes, txt_seq_lens):
        hidden_states = self.img_in(hidden_states)
        encoder_hidden_states = self.txt_in(encoder_hidden_states)
        img_freqs, txt_freqs = self.pos_embed(img_shapes, txt_seq_lens, device=hidden_states.device)

        img_q, img_k, img_v = self.to_qkv(hidden_states).unflatten(-1, (3, self.heads, -1)).unbind(2)
        txt_q, txt_k, txt_v = self.add_qkv(encoder_hidden_states).unflatten(-1, (3, self.heads, -1)).unbind(2)
        img_q, img_k = apply_rotary_emb_qwen(img_q, img_freqs), apply_rotary_emb_qwen(img_k, img_freqs)
        txt_q, txt_k = apply_rotary_emb_qwen(txt_q, txt_freqs), apply_rotary_emb_qwen(txt_k, txt_freqs)
        q, k, v = (torch.cat([t, i], dim=1).transpose(1, 2)
                   for t, i in ((txt_q, img_q), (txt_k, img_k), (txt_v, img_v)))
        out = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2, 3)
        return self.proj_out(out[:, encoder_hidden_states.shape[1]:])


class QwenImageExport(nn.Module):
    """Export wrapper: packs latents like QwenImagePipeline._pack_latents and builds img_shapes."""

    def __init__(self):
        super().__init__()
        self.transformer = QwenImageTransformerLite()

    def forward(self, latents, encoder_hidden_states):
        batch_size, num_channels_latents, height, width = latents.shape
        latents = latents.view(batch_size, num_channels_latents, height // 2, 2, width // 2, 2)
        latents = latents.permute(0, 2, 4, 1, 3, 5)
        latents = latents.reshape(batch_size, (height // 2) * (width // 2), num_channels_latents * 4)
        img_shapes = [(1, height // 2, width // 2)] * batch_size
        txt_seq_lens = [encoder_hidden_states.shape[1]] * batch_size
        return self.transformer(latents, encoder_hidden_states, img_shapes, txt_seq_lens)


def make_model():
    return QwenImageExport().eval()


def example_inputs():
    return (torch.randn(2, 16, 8, 12), torch.randn(2, 7, 32))


def other_inputs():
    return [(torch.randn(3, 16, 12, 8), torch.randn(3, 11, 32)),
            (torch.randn(1, 16, 6, 10), torch.randn(1, 5, 32))]


def probe_inputs():
    return other_inputs()
