"""Diffusers QwenImage transformer (PR "Fix QwenImage txt_seq_lens handling", before its commit "fix torch
compile issues"): `compute_text_seq_len_from_mask` turns the text mask into a RoPE length with
`rope_text_seq_len = max(text_seq_len, int(per_sample_len.max().item()))`, and the rotary embedding slices its
text frequency table with that Python int (`pos_freqs[max_vid_index : max_vid_index + txt_seq_len]`). The
follow-up commit keeps it as a tensor (`torch.maximum`) because the `.item()` breaks graph capture. Trimmed to
the mask helper, a RoPE table (real-valued here instead of complex) and one joint attention block.

Source: https://github.com/huggingface/diffusers/pull/12702
"""
from typing import Optional, Tuple

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {
    "hidden_states": {0: "batch"},
    "encoder_hidden_states": {0: "batch", 1: "text_len"},
    "encoder_hidden_states_mask": {0: "batch", 1: "text_len"},
}
BLIND = "domains-36"


def compute_text_seq_len_from_mask(
    encoder_hidden_states: torch.Tensor, encoder_hidden_states_mask: Optional[torch.Tensor]
) -> Tuple[int, Optional[torch.Tensor], Optional[torch.Tensor]]:
    """
    Compute text sequence length without assuming contiguous masks. Returns length for RoPE and a normalized bool mask.
    """
    batch_size, text_seq_len = encoder_hidden_states.shape[:2]
    if encoder_hidden_states_mask is None:
        return text_seq_len, None

    if encoder_hidden_states_mask.shape[:2] != (batch_size, text_seq_len):
        raise ValueError(
            f"`encoder_hidden_states_mask` shape {encoder_hidden_states_mask.shape} must match "
            f"(batch_size, text_seq_len)=({batch_size}, {text_seq_len})."
        )

    if encoder_hidden_states_mask.dtype != torch.bool:
        encoder_hidden_states_mask = encoder_hidden_states_mask.to(torch.bool)

    position_ids = torch.arange(text_seq_len, device=encoder_hidden_states.device, dtype=torch.long)
    active_positions = torch.where(encoder_hidden_states_mask, position_ids, position_ids.new_zeros(()))
    has_active = encoder_hidden_states_mask.any(dim=1)
    per_sample_len = torch.where(has_active, active_positions.max(dim=1).values + 1, torch.as_tensor(text_seq_len))
    rope_text_seq_len = max(text_seq_len, int(per_sample_len.max().item()))

    return rope_text_seq_len, per_sample_len, encoder_hidden_states_mask


class QwenEmbedRope(nn.Module):
    def __init__(self, dim: int, theta: int = 10000):
        super().__init__()
        index = torch.arange(4096).float()
        freqs = torch.outer(index, 1.0 / torch.pow(theta, torch.arange(0, dim, 2).float().div(dim)))
        self.register_buffer("pos_freqs", torch.cat([freqs.cos(), freqs.sin()], dim=-1), persistent=False)

    def forward(self, video_fhw, txt_seq_len, device=None):
        frame, height, width = video_fhw
        seq_lens = frame * height * width
        vid_freqs = self.pos_freqs[:seq_lens]
        max_vid_index = max(height, width)
        txt_freqs = self.pos_freqs.to(device)[max_vid_index : max_vid_index + txt_seq_len, ...]
        return vid_freqs, txt_freqs


class QwenImageTransformerTiny(nn.Module):
    def __init__(self, in_channels=16, joint_attention_dim=24, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.img_in = nn.Linear(in_channels, dim)
        self.txt_norm = nn.LayerNorm(joint_attention_dim)
        self.txt_in = nn.Linear(joint_attention_dim, dim)
        self.pos_embed = QwenEmbedRope(dim)
        self.to_qkv = nn.Linear(dim, 3 * dim)
        self.to_out = nn.Linear(dim, dim)
        self.proj_out = nn.Linear(dim, in_channels)
        self.img_shapes = (1, 4, 4)

    def forward(self, hidden_states, encoder_hidden_states, encoder_hidden_states_mask):
        hidden_states = self.img_in(hidden_states)
        encoder_hidden_states = self.txt_norm(encoder_hidden_states)
        encoder_hidden_states = self.txt_in(encoder_hidden_states)

        # Use the encoder_hidden_states sequence length for RoPE computation and normalize mask
        text_seq_len, text_seq_lens_per_sample, encoder_hidden_states_mask = compute_text_seq_len_from_mask(
            encoder_hidden_states, encoder_hidden_states_mask
        )
        vid_freqs, txt_freqs = self.pos_embed(self.img_shapes, text_seq_len, device=hidden_states.device)

        joint = torch.cat([encoder_hidden_states * txt_freqs, hidden_states * vid_freqs], dim=1)
        b, n, d = joint.shape
        q, k, v = self.to_qkv(joint).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        joint_mask = torch.cat(
            [encoder_hidden_states_mask, encoder_hidden_states_mask.new_ones(b, hidden_states.shape[1])], dim=1
        )
        attn_mask = joint_mask[:, None, None, :]
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        out = self.to_out(out.transpose(1, 2).reshape(b, n, d))
        return self.proj_out(out[:, encoder_hidden_states.shape[1] :])


def make_model():
    return QwenImageTransformerTiny().eval()


def _inputs(batch, text_len):
    mask = torch.ones(batch, text_len, dtype=torch.long)
    mask[0, text_len // 2 :] = 0
    return (torch.randn(batch, 16, 16), torch.randn(batch, text_len, 24), mask)


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(3, 7), _inputs(1, 20)]


def probe_inputs():
    return other_inputs()
