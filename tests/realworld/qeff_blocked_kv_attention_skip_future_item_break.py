"""QEfficient's KV-blocked attention (`blocked_kv_attention_forward` with `skip_kv=True`) walks the KV cache in
`num_kv_blocks` blocks with an online softmax and stops early once a block starts past the current position:
`skip_future = (torch.tensor(start_index) > current_position).all()` / `if skip_future.item(): break`; the file marks
this "Eager mode Only" and, under `torch.onnx.is_in_onnx_export() or torch.jit.is_tracing()`, replaces the break
with `torch.where(skip_future, ...)` inside `update_running_softmax` so the exported graph keeps every block.

Source: https://github.com/quic/efficient-transformers/blob/c966cc9ebdae11fb5942862afc162eac7d4c5314/QEfficient/blocking/blocked_attention_forwards.py
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {1: "seq_len"}, "position_ids": {1: "seq_len"}, "attention_mask": {2: "seq_len"}}
BLIND = "domains-44"

MIN_MASKED_ATTENTION_VALUE = -1e4
CTX_LEN = 32


def update_running_softmax(current_max, attn_weights_block, current_denominator, output, v_block):
    # Update Running row maximum
    prev_max = current_max
    current_max_updated = torch.max(prev_max, attn_weights_block.max(dim=3).values)
    delta_max = prev_max - current_max_updated

    current_exp = torch.exp(attn_weights_block - current_max_updated.unsqueeze(-1))

    # update running denominator
    prev_denominator = current_denominator
    curr_exp_sum = torch.einsum("bhqk->bhq", current_exp)
    current_denominator_updated = prev_denominator * torch.exp(delta_max) + curr_exp_sum

    prob = current_exp / current_denominator_updated.unsqueeze(-1)

    prev_output = output
    output_updated = ((prev_denominator / current_denominator_updated).unsqueeze(-1)) * prev_output * torch.exp(
        delta_max.unsqueeze(-1)
    ) + torch.matmul(prob, v_block)
    return current_max_updated, current_denominator_updated, output_updated


def blocked_kv_attention_forward(query, attention_mask, scaling, num_kv_blocks, position_ids, past_seen_tokens,
                                 key_cache, value_cache, skip_kv=True):
    # Initialize result tensor
    output = torch.zeros_like(query)

    # Initialize Running Maximum and Denominator
    batch_size, num_heads, seq_len, _ = query.shape
    current_max = torch.full(
        (batch_size, num_heads, seq_len),
        float(MIN_MASKED_ATTENTION_VALUE),
        device=query.device,
    )
    current_denominator = torch.zeros(batch_size, num_heads, seq_len, device=query.device)

    num_kv_blocks = max(1, num_kv_blocks)
    kv_block_size = -(-past_seen_tokens // num_kv_blocks)
    masked_tensor = torch.tensor(MIN_MASKED_ATTENTION_VALUE, dtype=value_cache.dtype, device=query.device)
    current_position = position_ids.max(dim=-1).values

    for j in range(num_kv_blocks):
        start_index = j * kv_block_size
        if j == num_kv_blocks - 1:
            kv_len_block = past_seen_tokens - start_index
        else:
            kv_len_block = kv_block_size
        end_index = start_index + kv_len_block

        if skip_kv:
            skip_future = (torch.tensor(start_index, device=query.device) > current_position).all()
            if skip_future.item():
                break

        # past_key_value.read_only_blockedKV(start_index, end_index, ...)
        k_block = key_cache[:, :, start_index:end_index]
        v_block = value_cache[:, :, start_index:end_index]

        attn_weights_block = torch.matmul(query, k_block.transpose(2, 3)) * scaling

        mask_block = attention_mask[..., start_index:end_index]
        attn_weights_block = torch.where(mask_block, masked_tensor, attn_weights_block)

        current_max, current_denominator, output = update_running_softmax(
            current_max, attn_weights_block, current_denominator, output, v_block
        )

    attn_output = output.transpose(1, 2).contiguous()
    return attn_output


class BlockedDecoderAttention(nn.Module):
    def __init__(self, hidden=32, num_heads=4, num_kv_blocks=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden // num_heads
        self.num_kv_blocks = num_kv_blocks
        self.scaling = self.head_dim ** -0.5
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def forward(self, hidden_states, position_ids, attention_mask, key_cache, value_cache):
        bsz, q_len, _ = hidden_states.shape
        shape = (bsz, q_len, self.num_heads, self.head_dim)
        query = self.q_proj(hidden_states).view(shape).transpose(1, 2)
        key = self.k_proj(hidden_states).view(shape).transpose(1, 2)
        value = self.v_proj(hidden_states).view(shape).transpose(1, 2)
        # QEffDynamicCache.write_only: scatter the new rows at position_ids
        idx = position_ids[:, None, :, None].expand(-1, self.num_heads, -1, self.head_dim)
        key_cache = key_cache.scatter(2, idx, key)
        value_cache = value_cache.scatter(2, idx, value)
        attn_output = blocked_kv_attention_forward(
            query, attention_mask, self.scaling, self.num_kv_blocks, position_ids, CTX_LEN, key_cache, value_cache
        )
        return self.o_proj(attn_output.reshape(bsz, q_len, -1))


def make_model():
    return BlockedDecoderAttention().eval()


def _inputs(start, seq_len, batch=1):
    position_ids = torch.arange(start, start + seq_len).unsqueeze(0).expand(batch, -1).contiguous()
    ctx = torch.arange(CTX_LEN)
    attention_mask = ctx[None, None, None, :] > position_ids[:, None, :, None]  # True = masked
    return (torch.randn(batch, seq_len, 32), position_ids, attention_mask,
            torch.randn(batch, 4, CTX_LEN, 8), torch.randn(batch, 4, CTX_LEN, 8))


def example_inputs():
    return _inputs(3, 4)


def other_inputs():
    return [_inputs(20, 5), _inputs(10, 3)]


def probe_inputs():
    return other_inputs()
