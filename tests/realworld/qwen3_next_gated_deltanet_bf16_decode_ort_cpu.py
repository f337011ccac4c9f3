"""Qwen3-Next / Qwen3.5-style linear-attention (GatedDeltaNet) layer kept in bfloat16 for a decode
step: the q/k l2norm (`torch.rsqrt`, exported as Sqrt + Reciprocal) and `b.sigmoid()` for beta run
on bf16 tensors, next to bf16 projections and the bf16 side of the gated RMSNorm. The report: onnxruntime has no
bfloat16 kernel for Reciprocal / Sqrt / Sigmoid / Exp, so creating the session for the exported
bf16 model fails with "NOT_IMPLEMENTED : Could not find an implementation for Reciprocal(13)".

Source: https://github.com/microsoft/onnxruntime/issues/27873
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch"}, "recurrent_state": {0: "batch"}}
BLIND = "operators-10"


def l2norm(x, dim=-1, eps=1e-6):
    inv_norm = torch.rsqrt((x * x).sum(dim=dim, keepdim=True) + eps)
    return x * inv_norm


def torch_recurrent_gated_delta_rule(query, key, value, g, beta, initial_state, use_qk_l2norm_in_kernel=False):
    initial_dtype = query.dtype
    if use_qk_l2norm_in_kernel:
        query = l2norm(query, dim=-1, eps=1e-6)
        key = l2norm(key, dim=-1, eps=1e-6)
    query, key, value, beta, g = [x.transpose(1, 2).contiguous().to(torch.float32) for x in (query, key, value, beta, g)]
    batch_size, num_heads, sequence_length, k_head_dim = key.shape
    v_head_dim = value.shape[-1]
    scale = 1 / (query.shape[-1] ** 0.5)
    query = query * scale
    core_attn_out = torch.zeros(batch_size, num_heads, sequence_length, v_head_dim).to(value)
    last_recurrent_state = initial_state.to(value)
    for i in range(sequence_length):
        q_t = query[:, :, i]
        k_t = key[:, :, i]
        v_t = value[:, :, i]
        g_t = g[:, :, i].exp().unsqueeze(-1).unsqueeze(-1)
        beta_t = beta[:, :, i].unsqueeze(-1)
        last_recurrent_state = last_recurrent_state * g_t
        kv_mem = (last_recurrent_state * k_t.unsqueeze(-1)).sum(dim=-2)
        delta = (v_t - kv_mem) * beta_t
        last_recurrent_state = last_recurrent_state + k_t.unsqueeze(-1) * delta.unsqueeze(-2)
        core_attn_out[:, :, i] = (last_recurrent_state * q_t.unsqueeze(-1)).sum(dim=-2)
    core_attn_out = core_attn_out.transpose(1, 2).contiguous().to(initial_dtype)
    return core_attn_out, last_recurrent_state


class Qwen3NextRMSNormGated(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        hidden_states = self.weight * hidden_states.to(input_dtype)
        hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        return hidden_states.to(input_dtype)


class Qwen3NextGatedDeltaNet(nn.Module):
    def __init__(self, hidden_size=64, num_v_heads=4, num_k_heads=4, head_k_dim=16, head_v_dim=16):
        super().__init__()
        self.num_v_heads, self.num_k_heads = num_v_heads, num_k_heads
        self.head_k_dim, self.head_v_dim = head_k_dim, head_v_dim
        self.key_dim, self.value_dim = head_k_dim * num_k_heads, head_v_dim * num_v_heads
        self.in_proj_qkvz = nn.Linear(hidden_size, self.key_dim * 2 + self.value_dim * 2, bias=False)
        self.in_proj_ba = nn.Linear(hidden_size, num_v_heads * 2, bias=False)
        self.dt_bias = nn.Parameter(torch.ones(num_v_heads))
        self.A_log = nn.Parameter(torch.log(torch.empty(num_v_heads).uniform_(1, 16)))
        self.norm = Qwen3NextRMSNormGated(head_v_dim)
        self.out_proj = nn.Linear(self.value_dim, hidden_size, bias=False)

    def forward(self, hidden_states, recurrent_state):
        batch_size, seq_len, _ = hidden_states.shape
        q, k, v, z = self.in_proj_qkvz(hidden_states).split([self.key_dim, self.key_dim, self.value_dim, self.value_dim], dim=-1)
        b, a = self.in_proj_ba(hidden_states).split([self.num_v_heads, self.num_v_heads], dim=-1)
        query = q.reshape(batch_size, seq_len, -1, self.head_k_dim)
        key = k.reshape(batch_size, seq_len, -1, self.head_k_dim)
        value = v.reshape(batch_size, seq_len, -1, self.head_v_dim)
        z = z.reshape(batch_size, seq_len, -1, self.head_v_dim)

        beta = b.sigmoid()
        # If the model is loaded in fp16, without the .float() here, A might be -inf
        g = -self.A_log.float().exp() * F.softplus(a.float() + self.dt_bias)

        core_attn_out, last_recurrent_state = torch_recurrent_gated_delta_rule(
            query, key, value, g=g, beta=beta, initial_state=recurrent_state, use_qk_l2norm_in_kernel=True
        )
        core_attn_out = self.norm(core_attn_out.reshape(-1, self.head_v_dim), z.reshape(-1, self.head_v_dim))
        core_attn_out = core_attn_out.reshape(batch_size, seq_len, -1)
        return self.out_proj(core_attn_out), last_recurrent_state


def make_model():
    return Qwen3NextGatedDeltaNet().to(torch.bfloat16).eval()


def example_inputs():
    # one decode step: (batch, 1, hidden) bf16 activations and the fp32 recurrent state
    return (torch.randn(2, 1, 64, dtype=torch.bfloat16), torch.randn(2, 4, 16, 16) * 0.1)


def other_inputs():
    return [
        (torch.randn(3, 1, 64, dtype=torch.bfloat16), torch.randn(3, 4, 16, 16) * 0.1),
        (torch.randn(1, 1, 64, dtype=torch.bfloat16), torch.randn(1, 4, 16, 16) * 0.1),
    ]


def probe_inputs():
    return other_inputs()
