"""HoloMotion humanoid motion-tracking transformer policy: `single_step_mu` runs one control step against a
per-environment ring-buffer KV cache kept in plain module attributes (`self._k_cache`, `self._kv_cache_len`,
`self._kv_cache_write_idx`, `self._kv_cache_abs_pos`), scattering the new K/V into the cache and rebinding
the counters on every call. The repository ships a separate `_forward_inference_onnx` ("Single-step
inference compatible with ONNX export") that takes `past_key_values`/`current_pos` as inputs and returns
the updated cache, because the stateful step cannot be exported as written.

Source: https://github.com/HorizonRobotics/HoloMotion/blob/71ab7e976de23aa9bb351030dd61b05426d3443c/holomotion/src/modules/network_modules.py
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {}
BLIND = "domains-42"


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    """Applies Rotary Position Embedding to the query and key tensors."""
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class GQAttention(nn.Module):
    def __init__(self, d_model=64, n_heads=4, n_kv_heads=2):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = d_model // n_heads
        self.n_rep = n_heads // n_kv_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.head_dim)
        self.kv_proj = nn.Linear(d_model, 2 * n_kv_heads * self.head_dim)
        self.o_proj = nn.Linear(n_heads * self.head_dim, d_model)

    def forward_single_token(self, x, cos, sin, k_cache, v_cache, new_len, insert_pos):
        B = x.shape[0]
        q = self.q_proj(x).view(B, 1, self.n_heads, self.head_dim)
        kv = self.kv_proj(x).view(B, 1, 2, self.n_kv_heads, self.head_dim)
        k_new, v_new = kv[:, :, 0], kv[:, :, 1]  # [B, 1, n_kv_heads, head_dim]

        q = q.transpose(1, 2)
        k_new = k_new.transpose(1, 2)
        q, k_new = apply_rotary_pos_emb(q, k_new, cos, sin)
        q = q.transpose(1, 2)
        k_new = k_new.transpose(1, 2)

        # Scatter K, V into cache at per-env insert positions
        idx = insert_pos.view(B, 1, 1, 1).expand(B, 1, self.n_kv_heads, self.head_dim).to(torch.int64)
        if torch.onnx.is_in_onnx_export():
            k_cache = k_cache.scatter(1, idx, k_new.to(k_cache.dtype))
            v_cache = v_cache.scatter(1, idx, v_new.to(v_cache.dtype))
        else:
            k_cache.scatter_(1, idx, k_new.to(k_cache.dtype))
            v_cache.scatter_(1, idx, v_new.to(v_cache.dtype))

        max_len = k_cache.shape[1]
        new_len = new_len.clamp(max=max_len)  # [B]
        pos_idx = torch.arange(max_len, device=x.device, dtype=torch.int64)
        valid_mask = pos_idx[None, :] < new_len[:, None]  # [B, max_len]
        attn_mask = valid_mask[:, None, None, :]  # [B, 1, 1, max_len]

        q_t = q.transpose(1, 2)
        k_t = repeat_kv(k_cache.transpose(1, 2), self.n_rep)
        v_t = repeat_kv(v_cache.transpose(1, 2), self.n_rep)
        attn_out = F.scaled_dot_product_attention(q_t, k_t, v_t, attn_mask=attn_mask)
        attn_out = attn_out.transpose(1, 2).contiguous().view(B, 1, -1)
        return self.o_proj(attn_out), k_cache, v_cache


class Block(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = GQAttention(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.SiLU(), nn.Linear(2 * d_model, d_model))


class TransformerPolicy(nn.Module):
    def __init__(self, obs_dim=32, action_dim=12, d_model=64, n_layers=2, max_ctx_len=8, rope_len=256):
        super().__init__()
        self.obs_embed = nn.Linear(obs_dim, d_model)
        self.layers = nn.ModuleList([Block(d_model) for _ in range(n_layers)])
        self.norm_f = nn.LayerNorm(d_model)
        self.action_mu_head = nn.Linear(d_model, action_dim)
        self.n_layers, self.max_ctx_len = n_layers, max_ctx_len
        self.n_kv_heads, self.head_dim = self.layers[0].attn.n_kv_heads, self.layers[0].attn.head_dim
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        freqs = torch.outer(torch.arange(rope_len).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)
        self._k_cache = None

    def get_cos_sin(self, x, position_ids):
        cos = F.embedding(position_ids, self.cos_cached)
        sin = F.embedding(position_ids, self.sin_cached)
        return cos.to(x.dtype), sin.to(x.dtype)

    def reset_kv_cache(self, num_envs: int, device):
        """Initialize per-environment KV cache for single-step inference."""
        self._k_cache = torch.zeros(
            num_envs, self.n_layers, self.max_ctx_len, self.n_kv_heads, self.head_dim, device=device
        )
        self._v_cache = torch.zeros_like(self._k_cache)
        self._kv_cache_len = torch.zeros(num_envs, dtype=torch.long, device=device)
        self._kv_cache_write_idx = torch.zeros(num_envs, dtype=torch.long, device=device)
        self._kv_cache_abs_pos = torch.zeros(num_envs, dtype=torch.long, device=device)

    def single_step_mu(self, x: torch.Tensor) -> torch.Tensor:
        """Compute action mean for a single step using per-layer KV cache."""
        if x.ndim != 2:
            raise ValueError(f"Expected [B, D], got {x.shape}")

        h = self.obs_embed(x)[:, None, :]  # [B, 1, d_model]

        cache_len = self._kv_cache_len  # [B]
        insert_pos = self._kv_cache_write_idx  # [B]
        max_len = int(self.max_ctx_len)
        new_len = torch.clamp(cache_len + 1, max=max_len)  # [B]

        self._kv_cache_len = new_len
        self._kv_cache_write_idx = (insert_pos + 1) % max_len

        # RoPE frequencies for current absolute position
        pos = self._kv_cache_abs_pos  # [B]
        self._kv_cache_abs_pos = pos + 1
        pos_ids = pos.unsqueeze(1)  # [B, 1]
        cos, sin = self.get_cos_sin(h, pos_ids)

        for layer_idx, layer in enumerate(self.layers):
            x_norm = layer.norm1(h)
            k_cache_l = self._k_cache[:, layer_idx]  # [B, L, n_kv_heads, head_dim]
            v_cache_l = self._v_cache[:, layer_idx]
            attn_out, _, _ = layer.attn.forward_single_token(
                x_norm, cos, sin, k_cache_l, v_cache_l, new_len, insert_pos
            )
            h = h + attn_out
            h = h + layer.mlp(layer.norm2(h))

        h = self.norm_f(h)
        return self.action_mu_head(h[:, 0, :])

    def forward(self, x):
        return self.single_step_mu(x)


def make_model():
    policy = TransformerPolicy().eval()
    policy.reset_kv_cache(num_envs=1, device="cpu")
    return policy


def example_inputs():
    return (torch.randn(1, 32),)


def other_inputs():
    return [(torch.randn(1, 32),), (torch.randn(1, 32),)]


def probe_inputs():
    return other_inputs()
