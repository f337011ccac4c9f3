"""MNN `llmexport` LlmExporter: the exported LLM step takes `logits_index` as an int32 tensor input
(`torch.tensor([-1], dtype=torch.int32)`) and keeps only the last positions before the LM head with
`hidden_states[:, logits_index:, :]`; the commit "bugfix of onnx slice index" casts it to int64 first
(`logits_index.to(torch.int64)`), since the ONNX Slice got an int32 start next to int64 ends. One decoder layer with
the stacked `past_key_values` [layers, 2, 1, history, kv_heads, head_dim] and the report's rotary.

Source: https://github.com/wangzhaode/llm-export/commit/c742d29c172258ac4745013dcf2aefaec3feeebf
"""
import math

import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {
    "input_ids": {0: "seq_len"},
    "attention_mask": {2: "seq_len", 3: "kv_len"},
    "position_ids": {1: "seq_len"},
    "past_key_values": {3: "history_len"},
}
BLIND = "domains-33"


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


class Rotary(nn.Module):
    def __init__(self, rotary_dim, rope_theta=10000.0):
        super().__init__()
        self.theta = 1.0 / (rope_theta ** (torch.arange(0, rotary_dim, 2, dtype=torch.float32) / rotary_dim))

    def forward(self, position_ids):
        position_ids = position_ids.float().reshape(-1, 1)
        idx_theta = position_ids * self.theta
        rotary_pos_emb = torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)])
        rotary_pos_emb = torch.cat((rotary_pos_emb, rotary_pos_emb), dim=-1)
        rotary_pos_emb = rotary_pos_emb.unsqueeze(2).unsqueeze(1)
        return rotary_pos_emb

    def apply_rotary_pos(self, x, cos, sin):
        return (x * cos) + (rotate_half(x) * sin)


class Attention(nn.Module):
    def __init__(self, hidden_size, num_heads, rotary):
        super().__init__()
        self.num_heads = self.num_key_value_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.k_proj = nn.Linear(hidden_size, hidden_size)
        self.v_proj = nn.Linear(hidden_size, hidden_size)
        self.o_proj = nn.Linear(hidden_size, hidden_size)
        self.rotary = rotary

    def forward(self, hidden_states, attention_mask=None, past_key_value=None, rotary_pos_emb=None):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim)
        cos, sin = rotary_pos_emb[0], rotary_pos_emb[1]
        query_states = self.rotary.apply_rotary_pos(query_states, cos, sin)
        key_states = self.rotary.apply_rotary_pos(key_states, cos, sin)
        if past_key_value is not None:
            past_key, past_value = past_key_value[0], past_key_value[1]
            key_states = torch.cat((past_key, key_states), dim=1)
            value_states = torch.cat((past_value, value_states), dim=1)
        past_key_value = torch.stack((key_states, value_states))
        query_states = query_states.transpose(1, 2)
        key_states = key_states.permute([0, 2, 3, 1])
        value_states = value_states.transpose(1, 2)
        attn_weights = torch.matmul(query_states, key_states) / math.sqrt(self.head_dim)
        attn_weights = attn_weights + attention_mask
        attn_weights = torch.nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous().reshape(bsz, q_len, -1)
        return self.o_proj(attn_output), past_key_value


class Decoder(nn.Module):
    def __init__(self, hidden_size, num_heads, rotary):
        super().__init__()
        self.hidden_size = hidden_size
        self.input_layernorm = nn.LayerNorm(hidden_size)
        self.self_attn = Attention(hidden_size, num_heads, rotary)
        self.post_attention_layernorm = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 2 * hidden_size), nn.SiLU(), nn.Linear(2 * hidden_size, hidden_size))

    def forward(self, hidden_states, rotary_pos_emb=None, attention_mask=None, past_key_value=None):
        hidden_states = hidden_states.view(1, -1, self.hidden_size)
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states, present_key_value = self.self_attn(
            hidden_states=hidden_states, rotary_pos_emb=rotary_pos_emb,
            attention_mask=attention_mask, past_key_value=past_key_value,
        )
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        hidden_states = residual + hidden_states
        return hidden_states, present_key_value


class LlmExporter(nn.Module):
    def __init__(self, hidden_size=32, num_heads=2, num_layers=2, vocab_size=50):
        super().__init__()
        self.rotary = Rotary(hidden_size // num_heads)
        self.blocks = nn.ModuleList([Decoder(hidden_size, num_heads, self.rotary) for _ in range(num_layers)])
        self.final_layernorm_ = nn.LayerNorm(hidden_size)
        self.lm = nn.Linear(hidden_size, vocab_size, bias=False)

    def forward(self, input_ids, attention_mask, position_ids, past_key_values=None, logits_index: int = -1):
        hidden_states = input_ids  # llm forward without embedding
        presents = [None for i in range(len(self.blocks))]
        rotary_pos_emb = self.rotary(position_ids)
        for i in range(len(self.blocks)):
            if past_key_values is not None and past_key_values[i] is not None:
                past_kv = past_key_values[i]
            else:
                past_kv = None
            hidden_states, kv = self.blocks[i](hidden_states, rotary_pos_emb, attention_mask, past_kv)
            presents[i] = kv
        hidden_states = hidden_states[:, logits_index:, :]
        hidden_states = self.final_layernorm_(hidden_states)
        logits = self.lm(hidden_states)
        if presents[0].shape == presents[-1].shape and None not in presents:
            presents = torch.stack(presents)
        return logits, presents


def make_model():
    return LlmExporter().eval()


def _inputs(seq_len, history, logits_index):
    input_ids = torch.randn(seq_len, 1, 32)  # the exporter feeds the embeddings: [seq_len, 1, hidden]
    kv_len = history + seq_len
    mask = (1 - torch.tril(torch.ones([1, 1, seq_len, kv_len]), diagonal=history)) * torch.finfo(torch.float32).min
    position_ids = torch.arange(history, kv_len, dtype=torch.int).unsqueeze(0)
    past_key_values = torch.randn(2, 2, 1, history, 2, 16)
    return (input_ids, mask, position_ids, past_key_values, torch.tensor([logits_index], dtype=torch.int32))


def example_inputs():
    return _inputs(5, 3, -1)


def other_inputs():
    return [_inputs(7, 6, -2), _inputs(2, 9, -1)]


def probe_inputs():
    return other_inputs()
