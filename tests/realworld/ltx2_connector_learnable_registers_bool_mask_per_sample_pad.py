"""LTX-2 video pipeline text connector (LTX2ConnectorTransformer1d): padding tokens are replaced by learnable
registers by boolean-mask indexing each sample (`hidden_states[i, binary_attn_mask[i].bool(), :]` in a
`for i in range(batch_size)` list), padding each back with F.pad to seq_len; optimum-intel had to patch this
forward for export because the output length depends on the mask values and cannot be traced.

Source: https://github.com/huggingface/optimum-intel/pull/1733
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "batch"}, "attention_mask": {0: "batch"}}
BLIND = "domains-48"


class LTX2RotaryPosEmbed1d(nn.Module):
    def __init__(self, dim, base_seq_len=4096, theta=10000.0):
        super().__init__()
        self.dim, self.base_seq_len, self.theta = dim, base_seq_len, theta

    def forward(self, batch_size, pos, device):
        grid_1d = torch.arange(pos, dtype=torch.float32, device=device) / self.base_seq_len
        grid = grid_1d.unsqueeze(0).repeat(batch_size, 1)  # [batch_size, seq_len]
        pow_indices = torch.pow(self.theta, torch.linspace(start=0.0, end=1.0, steps=self.dim // 2, device=device))
        freqs = (pow_indices * torch.pi / 2.0).to(dtype=torch.float32)
        freqs = (grid.unsqueeze(-1) * 2 - 1) * freqs  # [B, seq_len, self.dim // 2]
        return freqs.cos().repeat_interleave(2, dim=-1), freqs.sin().repeat_interleave(2, dim=-1)


class LTX2TransformerBlock1d(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.RMSNorm(dim, eps=1e-6, elementwise_affine=False)
        self.to_qkv = nn.Linear(dim, 3 * dim)
        self.to_out = nn.Linear(dim, dim)
        self.norm2 = nn.RMSNorm(dim, eps=1e-6, elementwise_affine=False)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))

    def forward(self, hidden_states, attention_mask=None, rotary_emb=None):
        cos, sin = rotary_emb
        q, k, v = self.to_qkv(self.norm1(hidden_states)).chunk(3, dim=-1)
        rot = lambda x: torch.stack([-x[..., 1::2], x[..., 0::2]], dim=-1).flatten(-2)
        q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
        b, l, d = q.shape
        q, k, v = (t.view(b, l, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        attn = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask)
        hidden_states = hidden_states + self.to_out(attn.transpose(1, 2).reshape(b, l, d))
        return hidden_states + self.ff(self.norm2(hidden_states))


class LTX2ConnectorTransformer1d(nn.Module):
    def __init__(self, num_attention_heads=2, attention_head_dim=16, num_layers=2, num_learnable_registers=8):
        super().__init__()
        self.inner_dim = num_attention_heads * attention_head_dim
        self.num_learnable_registers = num_learnable_registers
        init_registers = torch.rand(num_learnable_registers, self.inner_dim) * 2.0 - 1.0
        self.learnable_registers = torch.nn.Parameter(init_registers)
        self.rope = LTX2RotaryPosEmbed1d(self.inner_dim)
        self.transformer_blocks = nn.ModuleList(
            [LTX2TransformerBlock1d(self.inner_dim, num_attention_heads) for _ in range(num_layers)])
        self.norm_out = nn.RMSNorm(self.inner_dim, eps=1e-6, elementwise_affine=False)

    def forward(self, hidden_states, attention_mask=None, attn_mask_binarize_threshold: float = -9000.0):
        batch_size, seq_len, _ = hidden_states.shape

        # 1. Replace padding with learned registers, if using
        if self.learnable_registers is not None:
            num_register_repeats = seq_len // self.num_learnable_registers
            registers = torch.tile(self.learnable_registers, (num_register_repeats, 1))  # [seq_len, inner_dim]

            binary_attn_mask = (attention_mask >= attn_mask_binarize_threshold).int()
            if binary_attn_mask.ndim == 4:
                binary_attn_mask = binary_attn_mask.squeeze(1).squeeze(1)  # [B, 1, 1, L] --> [B, L]

            hidden_states_non_padded = [hidden_states[i, binary_attn_mask[i].bool(), :] for i in range(batch_size)]
            valid_seq_lens = [x.shape[0] for x in hidden_states_non_padded]
            pad_lengths = [seq_len - valid_seq_len for valid_seq_len in valid_seq_lens]
            padded_hidden_states = [
                F.pad(x, pad=(0, 0, 0, p), value=0) for x, p in zip(hidden_states_non_padded, pad_lengths)
            ]
            padded_hidden_states = torch.cat([x.unsqueeze(0) for x in padded_hidden_states], dim=0)  # [B, L, D]

            flipped_mask = torch.flip(binary_attn_mask, dims=[1]).unsqueeze(-1)  # [B, L, 1]
            hidden_states = flipped_mask * padded_hidden_states + (1 - flipped_mask) * registers

            # Overwrite attention_mask with an all-zeros mask if using registers.
            attention_mask = torch.zeros_like(attention_mask)

        # 2. Calculate 1D RoPE positional embeddings
        rotary_emb = self.rope(batch_size, seq_len, device=hidden_states.device)

        # 3. Run 1D transformer blocks
        for block in self.transformer_blocks:
            hidden_states = block(hidden_states, attention_mask=attention_mask, rotary_emb=rotary_emb)

        hidden_states = self.norm_out(hidden_states)
        return hidden_states, attention_mask


def make_model():
    return LTX2ConnectorTransformer1d().eval()


def _inputs(valid_lens, seq_len=32, dim=32):
    # left-padded text (Gemma tokenizer pads on the left): additive mask, 0 = valid, -1e6 = padding
    mask = torch.full((len(valid_lens), 1, 1, seq_len), -1e6)
    for i, n in enumerate(valid_lens):
        mask[i, ..., seq_len - n:] = 0.0
    return (torch.randn(len(valid_lens), seq_len, dim), mask)


def example_inputs():
    return _inputs([20, 9])


def other_inputs():
    return [_inputs([5, 32, 17]), _inputs([26])]


def probe_inputs():
    return other_inputs()
