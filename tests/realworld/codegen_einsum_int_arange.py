"""CodeGen attention rotary embedding: `torch.einsum("i , j -> i j", torch.arange(seq_len), inv_freq)`
mixes an int64 arange with a float tensor; onnxruntime rejects the exported Einsum ("Type parameter
(T) of Optype (Einsum) bound to different types (tensor(int64) and tensor(float)").

Source: https://github.com/salesforce/CodeGen/pull/19
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "operators-1"


def fixed_pos_embedding(x, seq_dim=1, seq_len=None):
    dim = x.shape[-1]
    if seq_len is None:
        seq_len = x.shape[seq_dim]
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2) / dim))
    sinusoid_inp = torch.einsum("i , j -> i j", torch.arange(seq_len), inv_freq).to(x.device).float()
    return torch.sin(sinusoid_inp), torch.cos(sinusoid_inp)


def rotate_every_two(x):
    x1 = x[:, :, :, ::2]
    x2 = x[:, :, :, 1::2]
    x = torch.stack((-x2, x1), axis=-1)
    return x.flatten(-2)  # in einsum notation: rearrange(x, '... d j -> ... (d j)')


def apply_rotary_pos_emb(x, sincos, offset=0):
    sin, cos = map(lambda t: t[None, offset : x.shape[1] + offset, None, :].repeat_interleave(2, 3), sincos)
    return (x * cos) + (rotate_every_two(x) * sin)


class CodeGenAttention(nn.Module):
    def __init__(self, embed_dim=64, num_heads=4, rotary_dim=8):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.rotary_dim = rotary_dim
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=False)

    def forward(self, hidden_states):
        b, t, _ = hidden_states.shape
        query = self.q_proj(hidden_states).view(b, t, self.num_heads, self.head_dim)
        key = self.k_proj(hidden_states).view(b, t, self.num_heads, self.head_dim)
        seq_len = key.shape[1]
        k_rot = key[:, :, :, : self.rotary_dim]
        k_pass = key[:, :, :, self.rotary_dim :]
        q_rot = query[:, :, :, : self.rotary_dim]
        q_pass = query[:, :, :, self.rotary_dim :]
        sincos = fixed_pos_embedding(k_rot, 1, seq_len=seq_len)
        k_rot = apply_rotary_pos_emb(k_rot, sincos, offset=0)
        q_rot = apply_rotary_pos_emb(q_rot, sincos, offset=0)
        key = torch.cat([k_rot, k_pass], dim=-1).permute(0, 2, 1, 3)
        query = torch.cat([q_rot, q_pass], dim=-1).permute(0, 2, 1, 3)
        return torch.matmul(query, key.transpose(-1, -2))


def make_model():
    return CodeGenAttention()


def example_inputs():
    return (torch.randn(2, 7, 64),)


def other_inputs():
    return [(torch.randn(3, 12, 64),), (torch.randn(1, 4, 64),)]


def probe_inputs():
    return other_inputs()
