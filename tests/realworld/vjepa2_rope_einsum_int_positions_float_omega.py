"""V-JEPA 2 video classifier (transformers): the 3D RoPE attention builds integer frame/height/width
position ids from `torch.arange(token_size)` and rotates q/k with
`torch.einsum("..., f -> ... f", pos, omega)` (int64 positions, float32 frequencies); exporting
`AutoModelForVideoClassification` to ONNX gives a model onnxruntime refuses to load:
"[ShapeInferenceError] (op_type:Einsum ...): Inputs has inconsistent type tensor(float)".

Source: https://github.com/huggingface/transformers/pull/39234
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"pixel_values_videos": {0: "batch", 1: "frames"}}
BLIND = "domains-50"


def rotate_queries_or_keys(x, pos):
    B, num_heads, N, D = x.size()

    # -- compute angle for each position
    omega = torch.arange(D // 2, dtype=x.dtype, device=x.device)
    omega /= D / 2.0
    omega = 1.0 / 10000**omega  # (D/2,)
    freq = torch.einsum("..., f -> ... f", pos, omega)  # (..., N, D/2), outer product

    # -- build rotation matrix and apply
    emb_sin = freq.sin()  # (..., N, D/2)
    emb_cos = freq.cos()  # (..., N, D/2)

    emb_sin = emb_sin.squeeze(-1).repeat(1, 1, 1, 2)
    emb_cos = emb_cos.squeeze(-1).repeat(1, 1, 1, 2)

    # --
    y = x.unflatten(-1, (-1, 2))
    y1, y2 = y.unbind(dim=-1)

    y = torch.stack((-y2, y1), dim=-1)
    y = y.flatten(-2)
    return (x * emb_cos) + (y * emb_sin)


class VJEPA2RopeAttention(nn.Module):
    def __init__(self, hidden_size=96, num_attention_heads=4, crop_size=32, patch_size=16):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = int(hidden_size / num_attention_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(hidden_size, self.all_head_size)
        self.key = nn.Linear(hidden_size, self.all_head_size)
        self.value = nn.Linear(hidden_size, self.all_head_size)
        self.proj = nn.Linear(hidden_size, hidden_size)
        self.grid_size = crop_size // patch_size
        self.d_dim = int(2 * ((self.attention_head_size // 3) // 2))
        self.h_dim = int(2 * ((self.attention_head_size // 3) // 2))
        self.w_dim = int(2 * ((self.attention_head_size // 3) // 2))
        self.scaling = self.attention_head_size**-0.5

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def _get_frame_pos(self, ids):
        tokens_per_frame = int(self.grid_size * self.grid_size)
        return ids // tokens_per_frame

    def _get_height_pos(self, ids):
        tokens_per_frame = int(self.grid_size * self.grid_size)
        frame_ids = self._get_frame_pos(ids)
        ids = ids - tokens_per_frame * frame_ids
        tokens_per_row = self.grid_size
        return ids // tokens_per_row

    def get_position_ids(self, x, masks=None):
        device = x.device
        token_size = x.size(1)
        if masks is not None:
            ids = masks.unsqueeze(1).repeat(1, self.num_attention_heads, 1)
        else:
            ids = torch.arange(token_size, device=device)
        tokens_per_frame = int(self.grid_size * self.grid_size)
        frame_ids = self._get_frame_pos(ids)
        tokens_per_row = self.grid_size
        height_ids = self._get_height_pos(ids)
        width_ids = (ids - tokens_per_frame * frame_ids) - tokens_per_row * height_ids
        return frame_ids, height_ids, width_ids

    def apply_rotary_embeddings(self, qk, pos_ids):
        d_mask, h_mask, w_mask = pos_ids
        s = 0
        qkd = rotate_queries_or_keys(qk[..., s : s + self.d_dim], pos=d_mask)
        s += self.d_dim
        qkh = rotate_queries_or_keys(qk[..., s : s + self.h_dim], pos=h_mask)
        s += self.h_dim
        qkw = rotate_queries_or_keys(qk[..., s : s + self.w_dim], pos=w_mask)
        s += self.w_dim
        if s < self.attention_head_size:
            qkr = qk[..., s:]
            qk = torch.cat([qkd, qkh, qkw, qkr], dim=-1)
        else:
            qk = torch.cat([qkd, qkh, qkw], dim=-1)
        return qk

    def forward(self, hidden_states, position_mask=None):
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        query_layer = self.transpose_for_scores(self.query(hidden_states))

        pos_ids = self.get_position_ids(hidden_states, masks=position_mask)
        key_layer = self.apply_rotary_embeddings(key_layer, pos_ids)
        query_layer = self.apply_rotary_embeddings(query_layer, pos_ids)

        attn_weights = torch.matmul(query_layer, key_layer.transpose(-1, -2)) * self.scaling
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_layer.dtype)
        context_layer = torch.matmul(attn_weights, value_layer).transpose(1, 2).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        return self.proj(context_layer.reshape(new_context_layer_shape))


class VJEPA2ForVideoClassification(nn.Module):
    def __init__(self, hidden_size=96, num_labels=5, tubelet_size=2, patch_size=16):
        super().__init__()
        self.proj = nn.Conv3d(3, hidden_size, kernel_size=(tubelet_size, patch_size, patch_size),
                              stride=(tubelet_size, patch_size, patch_size))
        self.norm1 = nn.LayerNorm(hidden_size)
        self.attention = VJEPA2RopeAttention(hidden_size)
        self.layernorm = nn.LayerNorm(hidden_size)
        self.classifier = nn.Linear(hidden_size, num_labels)

    def forward(self, pixel_values_videos):
        # (B, T, C, H, W) -> (B, C, T, H, W)
        x = self.proj(pixel_values_videos.permute(0, 2, 1, 3, 4)).flatten(2).transpose(1, 2)
        x = x + self.attention(self.norm1(x))
        x = self.layernorm(x)
        return self.classifier(x.mean(dim=1))


def make_model():
    return VJEPA2ForVideoClassification().eval()


def example_inputs():
    return (torch.randn(2, 8, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 4, 3, 32, 32),), (torch.randn(1, 12, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
