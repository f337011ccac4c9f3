"""nanoVLM language model (SmolLM2-style decoder) exported for ONNX/ExecuTorch: `RotaryEmbedding.forward`
does dynamic RoPE scaling with `max_seq = position_ids.max() + 1; if max_seq > self.original_max_seq_len:`,
a branch on a tensor value; the export PR lists it as data-dependent control flow that blocks export and
removes the dynamic scaling.

Source: https://github.com/huggingface/nanoVLM/pull/185
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "sequence"}}
BLIND = "domains-28"


class Cfg:
    lm_hidden_dim = 32
    lm_inter_dim = 64
    lm_rms_eps = 1e-5
    lm_re_base = 100000
    lm_max_position_embeddings = 16
    lm_n_heads = 4
    lm_n_kv_heads = 2
    lm_dropout = 0.0
    lm_n_blocks = 1
    lm_attn_scaling = 1.0


class RMSNorm(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(cfg.lm_hidden_dim))
        self.eps = cfg.lm_rms_eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        irms = torch.rsqrt(torch.mean(x ** 2, dim=-1, keepdim=True) + self.eps) # inverse of RMS
        x = x * irms * self.weight
        return x


class RotaryEmbedding(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg.lm_hidden_dim % cfg.lm_n_heads == 0, "Hidden dimension must be divisible by number of heads"
        self.dim = cfg.lm_hidden_dim // cfg.lm_n_heads # dim of each head
        self.base = cfg.lm_re_base
        self.max_seq_len = cfg.lm_max_position_embeddings
        inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dim, 2).float() / self.dim))
        self.register_buffer("inv_freq", inv_freq)
        self.original_max_seq_len = cfg.lm_max_position_embeddings
        self.attention_scaling = cfg.lm_attn_scaling

    @torch.no_grad()
    def forward(self, position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch_size, seq_len = position_ids.shape
        # Dynamic scaling for longer sequences
        # Divide the angle frequency to fit more rotation into the embedding space.
        max_seq = position_ids.max() + 1
        if max_seq > self.original_max_seq_len:
            scale = max_seq / self.original_max_seq_len
            inv_freq = self.inv_freq / scale
        else:
            inv_freq = self.inv_freq
        flat_position_ids = position_ids.reshape(-1).float()
        freqs = flat_position_ids.unsqueeze(-1) * inv_freq.unsqueeze(0)
        freqs = freqs.reshape(batch_size, seq_len, -1)
        emb = torch.cat([freqs, freqs], dim=-1)
        cos = torch.cos(emb) * self.attention_scaling
        sin = torch.sin(emb) * self.attention_scaling
        return cos, sin


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_embd(q, k, cos, sin, unsqueeze_dim: int = 1):
    cos = cos.unsqueeze(unsqueeze_dim)  # [batch_size, 1, seq_len, head_dim]
    sin = sin.unsqueeze(unsqueeze_dim)  # [batch_size, 1, seq_len, head_dim]
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


class LanguageModelGroupedQueryAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_heads = cfg.lm_n_heads
        self.n_kv_heads = cfg.lm_n_kv_heads
        self.embd_dim = cfg.lm_hidden_dim
        self.dropout = cfg.lm_dropout
        self.n_kv_groups = self.n_heads // self.n_kv_heads
        self.head_dim = self.embd_dim // self.n_heads
        self.q_proj = nn.Linear(self.embd_dim, self.embd_dim, bias=False)
        self.k_proj = nn.Linear(self.embd_dim, self.head_dim * self.n_kv_heads, bias=False)
        self.v_proj = nn.Linear(self.embd_dim, self.head_dim * self.n_kv_heads, bias=False)
        self.out_proj = nn.Linear(self.embd_dim, self.embd_dim, bias=False)

    def forward(self, x, cos, sin, attention_mask=None, block_kv_cache=None):
        B, T_curr, C = x.size()
        q_curr = self.q_proj(x).view(B, T_curr, self.n_heads, self.head_dim).transpose(1, 2)
        k_curr = self.k_proj(x).view(B, T_curr, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v_curr = self.v_proj(x).view(B, T_curr, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k_rotated = apply_rotary_pos_embd(q_curr, k_curr, cos, sin)
        k = k_rotated
        v = v_curr
        block_kv_cache = {'key': k, 'value': v}
        k_exp = k.repeat_interleave(self.n_kv_groups, dim=1)
        v_exp = v.repeat_interleave(self.n_kv_groups, dim=1)
        # Manual attention implementation
        attn = torch.matmul(q, k_exp.transpose(2, 3)) / math.sqrt(self.head_dim)
        causal_mask_val = torch.tril(torch.ones(T_curr, T_curr, device=x.device, dtype=torch.bool)).view(1, 1, T_curr, T_curr)
        attn = attn.masked_fill(~causal_mask_val, float('-inf'))
        attn = F.softmax(attn, dim=-1)
        y = attn @ v_exp
        y = y.transpose(1, 2).contiguous().view(B, T_curr, C)
        return self.out_proj(y), block_kv_cache


class LanguageModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.rotary_embd = RotaryEmbedding(cfg)
        self.attn = LanguageModelGroupedQueryAttention(cfg)
        self.norm1 = RMSNorm(cfg)
        self.norm = RMSNorm(cfg)

    def forward(self, x: torch.Tensor, start_pos: int = 0):
        B, T_curr, _ = x.size()
        # Create position_ids for the current sequence based on start_pos
        current_position_ids = torch.arange(start_pos, start_pos + T_curr, device=x.device).unsqueeze(0).expand(B, -1)
        cos, sin = self.rotary_embd(current_position_ids) # Get rotary position embeddings for current tokens
        h, _ = self.attn(self.norm1(x), cos, sin)
        x = x + h
        return self.norm(x)


def make_model():
    return LanguageModel(Cfg()).eval()


def example_inputs():
    return (torch.randn(2, 12, 32),)


def other_inputs():
    return [(torch.randn(3, 20, 32),), (torch.randn(1, 7, 32),)]


def probe_inputs():
    return other_inputs()
