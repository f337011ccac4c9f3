"""Qwen-Image 2.1 transformer (diffusers): `QwenImage21Rope.forward` walks the joint text/image sequence on
the host - `is_image_token = image_pad_mask.tolist()`, `is_image_token.index(True, cursor)`, Python lists of
frame/height/width positions turned back into tensors with `torch.tensor(...)` - so `torch.compile` of the
transformer fails ("Tensor.tolist() with non-integer tensor") and the positions depend on the mask's values.

Source: https://github.com/huggingface/diffusers/issues/14821
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "hidden_states": {0: "batch"},
    "encoder_hidden_states": {0: "batch", 1: "text_len"},
    "img_mask": {0: "batch", 1: "vlm_len"},
}
BLIND = "domains-53"

_IMG_TOKENS_PER_SLOT = 4


def apply_rotary_emb_qwen(x, freqs_cis, use_real=True, use_real_unbind_dim=-1):
    x_rotated = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.unsqueeze(1)
    x_out = torch.view_as_real(x_rotated * freqs_cis).flatten(3)
    return x_out.type_as(x)


class QwenImage21Rope(nn.Module):
    def __init__(self, theta, axes_dim):
        super().__init__()
        self.theta = theta
        self.axes_dim = axes_dim

        pos_index = torch.arange(8192)
        neg_index = torch.arange(1024).flip(0) * -1 - 1
        self.freqs = [
            torch.cat([self.rope_params(pos_index, dim, theta), self.rope_params(neg_index, dim, theta)], dim=0)
            for dim in axes_dim
        ]

    def rope_params(self, index, dim, theta=10000):
        freqs = torch.outer(index, 1.0 / torch.pow(theta, torch.arange(0, dim, 2).to(torch.float32).div(dim)))
        return torch.polar(torch.ones_like(freqs), freqs)

    def forward(self, img_shapes, image_pad_mask, device):
        self.freqs = [freq.to(device) for freq in self.freqs]

        frame_index, height_index, width_index = [], [], []
        image_height_index, image_width_index = [], []
        cursor, position = 0, 0
        total_len = image_pad_mask.shape[-1]
        is_image_token = image_pad_mask.tolist()

        for _, height, width in img_shapes:
            block_start = is_image_token.index(True, cursor)
            text_len = block_start - cursor
            frame_index.extend(range(position, position + text_len))
            position += text_len

            cursor = block_start + height * width
            frame_index.extend([position] * (height * width))
            position += max(height, width)

            image_height_index.extend([h for h in range(-(height - height // 2), height // 2) for _ in range(width)])
            image_width_index.extend([w for _ in range(height) for w in range(-(width - width // 2), width // 2)])

        if cursor < total_len:
            frame_index.extend(range(position, position + total_len - cursor))

        frame_index = torch.tensor(frame_index, dtype=torch.long, device=device)
        height_index = frame_index.clone()
        width_index = frame_index.clone()
        height_index[image_pad_mask] = torch.tensor(image_height_index, dtype=torch.long, device=device)
        width_index[image_pad_mask] = torch.tensor(image_width_index, dtype=torch.long, device=device)

        return torch.cat([self.freqs[0][frame_index], self.freqs[1][height_index], self.freqs[2][width_index]], dim=-1)


class QwenImage21JointRope(nn.Module):
    """Input assembly + RoPE of QwenImage21Transformer2DModel.forward, then one rotated query projection."""

    def __init__(self, in_channels=8, context_in_dim=12, heads=2, axes_dims_rope=(4, 6, 6), img_shapes=((1, 4, 4),)):
        super().__init__()
        self.heads = heads
        self.inner_dim = heads * sum(axes_dims_rope)
        self.img_shapes = [list(img_shapes)]
        self.pos_embed = QwenImage21Rope(theta=10000, axes_dim=list(axes_dims_rope))
        self.txt_in = nn.Linear(context_in_dim, self.inner_dim, bias=False)
        self.img_in = nn.Linear(in_channels, self.inner_dim, bias=False)
        self.to_q = nn.Linear(self.inner_dim, self.inner_dim, bias=False)
        self.to_out = nn.Linear(self.inner_dim, self.inner_dim, bias=False)

    def forward(self, hidden_states, encoder_hidden_states, img_mask):
        img_shapes = self.img_shapes
        batch_size = hidden_states.shape[0]
        hidden_states = self.img_in(hidden_states)
        encoder_hidden_states = self.txt_in(encoder_hidden_states)

        repeats = torch.where(img_mask, _IMG_TOKENS_PER_SLOT, 1)[0]
        image_pad_mask = torch.repeat_interleave(img_mask[0], repeats)

        target_tokens = math.prod(img_shapes[0][-1])
        joint_hidden_states = torch.cat(
            [
                encoder_hidden_states,
                encoder_hidden_states.new_zeros(batch_size, target_tokens // 4, encoder_hidden_states.shape[2]),
            ],
            dim=1,
        )
        joint_hidden_states = joint_hidden_states.repeat_interleave(repeats, dim=1)
        joint_hidden_states[:, image_pad_mask] = hidden_states

        rotary_emb = self.pos_embed(img_shapes[0], image_pad_mask, device=hidden_states.device)

        query = self.to_q(joint_hidden_states).unflatten(-1, (self.heads, -1))
        query = apply_rotary_emb_qwen(query, rotary_emb, use_real=False)
        return self.to_out(query.flatten(2, 3))


def make_model():
    return QwenImage21JointRope().eval()


def _inputs(batch, text_len):
    img_mask = torch.zeros(batch, text_len + 4, dtype=torch.bool)
    img_mask[:, text_len:] = True
    return (torch.randn(batch, 16, 8), torch.randn(batch, text_len, 12), img_mask)


def example_inputs():
    return _inputs(2, 6)


def other_inputs():
    return [_inputs(3, 9), _inputs(1, 3)]


def probe_inputs():
    return other_inputs()
