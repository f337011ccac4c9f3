"""Qwen3-Next linear-attention layer (transformers v4.57 `Qwen3NextGatedDeltaNet`): for a prompt the layer runs
`torch_chunk_gated_delta_rule`, which pads the sequence to a multiple of `chunk_size` and then walks the chunks with
`for i in range(0, total_sequence_length // chunk_size)`, carrying `last_recurrent_state` from chunk to chunk.
optimum-intel's Qwen3-Next export replaces the whole GatedDeltaNet block because "there is no known vectorized
form of this loop that would allow it to be correctly traced with torch.jit.trace". (Fused qkvz/ba projections and
the causal conv are reduced to plain Linear layers; gated RMSNorm and out_proj kept.)

Source: https://github.com/huggingface/optimum-intel/pull/1523
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "domains-49"


def l2norm(x, dim=-1, eps=1e-6):
    inv_norm = torch.rsqrt((x * x).sum(dim=dim, keepdim=True) + eps)
    return x * inv_norm


def torch_chunk_gated_delta_rule(
    query, key, value, g, beta, chunk_size=64, initial_state=None, output_final_state=False,
    use_qk_l2norm_in_kernel=False,
):
    initial_dtype = query.dtype
    if use_qk_l2norm_in_kernel:
        query = l2norm(query, dim=-1, eps=1e-6)
        key = l2norm(key, dim=-1, eps=1e-6)
    query, key, value, beta, g = [
        x.transpose(1, 2).contiguous().to(torch.float32) for x in (query, key, value, beta, g)
    ]

    batch_size, num_heads, sequence_length, k_head_dim = key.shape
    v_head_dim = value.shape[-1]
    pad_size = (chunk_size - sequence_length % chunk_size) % chunk_size
    query = F.pad(query, (0, 0, 0, pad_size))
    key = F.pad(key, (0, 0, 0, pad_size))
    value = F.pad(value, (0, 0, 0, pad_size))
    beta = F.pad(beta, (0, pad_size))
    g = F.pad(g, (0, pad_size))
    total_sequence_length = sequence_length + pad_size
    scale = 1 / (query.shape[-1] ** 0.5)
    query = query * scale

    v_beta = value * beta.unsqueeze(-1)
    k_beta = key * beta.unsqueeze(-1)
    # reshape to chunks
    query, key, value, k_beta, v_beta = [
        x.reshape(x.shape[0], x.shape[1], -1, chunk_size, x.shape[-1]) for x in (query, key, value, k_beta, v_beta)
    ]
    g = g.reshape(g.shape[0], g.shape[1], -1, chunk_size)
    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=query.device), diagonal=0)

    # chunk decay
    g = g.cumsum(dim=-1)
    decay_mask = ((g.unsqueeze(-1) - g.unsqueeze(-2)).tril().exp().float()).tril()
    attn = -((k_beta @ key.transpose(-1, -2)) * decay_mask).masked_fill(mask, 0)
    for i in range(1, chunk_size):
        row = attn[..., i, :i].clone()
        sub = attn[..., :i, :i].clone()
        attn[..., i, :i] = row + (row.unsqueeze(-1) * sub).sum(-2)
    attn = attn + torch.eye(chunk_size, dtype=attn.dtype, device=attn.device)
    value = attn @ v_beta
    k_cumdecay = attn @ (k_beta * g.exp().unsqueeze(-1))
    last_recurrent_state = (
        torch.zeros(batch_size, num_heads, k_head_dim, v_head_dim).to(value)
        if initial_state is None
        else initial_state.to(value)
    )
    core_attn_out = torch.zeros_like(value)
    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=query.device), diagonal=1)

    # for each chunk
    for i in range(0, total_sequence_length // chunk_size):
        q_i, k_i, v_i = query[:, :, i], key[:, :, i], value[:, :, i]
        attn = (q_i @ k_i.transpose(-1, -2) * decay_mask[:, :, i]).masked_fill_(mask, 0)
        v_prime = (k_cumdecay[:, :, i]) @ last_recurrent_state
        v_new = v_i - v_prime
        attn_inter = (q_i * g[:, :, i, :, None].exp()) @ last_recurrent_state
        core_attn_out[:, :, i] = attn_inter + attn @ v_new
        last_recurrent_state = (
            last_recurrent_state * g[:, :, i, -1, None, None].exp()
            + (k_i * (g[:, :, i, -1, None] - g[:, :, i]).exp()[..., None]).transpose(-1, -2) @ v_new
        )

    if not output_final_state:
        last_recurrent_state = None
    core_attn_out = core_attn_out.reshape(core_attn_out.shape[0], core_attn_out.shape[1], -1, core_attn_out.shape[-1])
    core_attn_out = core_attn_out[:, :, :sequence_length]
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
    def __init__(self, hidden_size=32, num_v_heads=2, num_k_heads=2, head_k_dim=8, head_v_dim=8):
        super().__init__()
        self.num_v_heads, self.num_k_heads = num_v_heads, num_k_heads
        self.head_k_dim, self.head_v_dim = head_k_dim, head_v_dim
        self.q_proj = nn.Linear(hidden_size, num_k_heads * head_k_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_k_heads * head_k_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_v_heads * head_v_dim, bias=False)
        self.z_proj = nn.Linear(hidden_size, num_v_heads * head_v_dim, bias=False)
        self.in_proj_ba = nn.Linear(hidden_size, 2 * num_v_heads, bias=False)
        self.dt_bias = nn.Parameter(torch.ones(num_v_heads))
        self.A_log = nn.Parameter(torch.log(torch.empty(num_v_heads).uniform_(1, 16)))
        self.norm = Qwen3NextRMSNormGated(head_v_dim)
        self.out_proj = nn.Linear(num_v_heads * head_v_dim, hidden_size, bias=False)
        self.chunk_gated_delta_rule = torch_chunk_gated_delta_rule

    def forward(self, hidden_states):
        batch_size, seq_len, _ = hidden_states.shape
        query = F.silu(self.q_proj(hidden_states)).reshape(batch_size, seq_len, -1, self.head_k_dim)
        key = F.silu(self.k_proj(hidden_states)).reshape(batch_size, seq_len, -1, self.head_k_dim)
        value = F.silu(self.v_proj(hidden_states)).reshape(batch_size, seq_len, -1, self.head_v_dim)
        z = self.z_proj(hidden_states).reshape(batch_size, seq_len, -1, self.head_v_dim)
        b, a = self.in_proj_ba(hidden_states).chunk(2, dim=-1)

        beta = b.sigmoid()
        # If the model is loaded in fp16, without the .float() here, A might be -inf
        g = -self.A_log.float().exp() * F.softplus(a.float() + self.dt_bias)

        core_attn_out, last_recurrent_state = self.chunk_gated_delta_rule(
            query, key, value, g=g, beta=beta, initial_state=None, output_final_state=True,
            use_qk_l2norm_in_kernel=True,
        )

        z_shape_og = z.shape
        core_attn_out = core_attn_out.reshape(-1, core_attn_out.shape[-1])
        z = z.reshape(-1, z.shape[-1])
        core_attn_out = self.norm(core_attn_out, z)
        core_attn_out = core_attn_out.reshape(z_shape_og)
        core_attn_out = core_attn_out.reshape(core_attn_out.shape[0], core_attn_out.shape[1], -1)
        return self.out_proj(core_attn_out), last_recurrent_state


def make_model():
    return Qwen3NextGatedDeltaNet().eval()


def example_inputs():
    return (torch.randn(2, 70, 32),)


def other_inputs():
    return [(torch.randn(3, 150, 32),), (torch.randn(1, 20, 32),)]


def probe_inputs():
    return other_inputs()
