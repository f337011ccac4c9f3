"""Longformer token classifier (transformers modeling_longformer.py) exported to ONNX through optimum: the merged
mask `attention_mask * (global_attention_mask + 1)` becomes an additive mask, the encoder records
`is_global_attn = is_index_global_attn.flatten().any().item()` ("Record `is_global_attn == True` to enable ONNX
export") and the self-attention only builds the global-attention part `if is_global_attn:`; the input is padded to
the attention window `if padding_len > 0`. The ONNX model's predictions do not match the PyTorch model once the
global attention mask (or the length) differs from the export dummy. Trimmed: one layer, the sliding-chunk band
written as a dense band mask, the global keys/rows added through the mask instead of the index gathers.

Source: https://github.com/huggingface/optimum/issues/505
"""
import math

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"inputs_embeds": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
           "global_attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-7"


class LongformerSelfAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4, attention_window=8):
        super().__init__()
        self.num_heads, self.head_dim, self.embed_dim = num_heads, hidden_size // num_heads, hidden_size
        self.query, self.key, self.value = (nn.Linear(hidden_size, hidden_size) for _ in range(3))
        self.query_global, self.key_global, self.value_global = (nn.Linear(hidden_size, hidden_size) for _ in range(3))
        self.one_sided_attn_window_size = attention_window // 2

    def forward(self, hidden_states, attention_mask, is_index_masked, is_index_global_attn, is_global_attn):
        hidden_states = hidden_states.transpose(0, 1)
        seq_len, batch_size, embed_dim = hidden_states.size()
        query_vectors = self.query(hidden_states) / math.sqrt(self.head_dim)
        key_vectors, value_vectors = self.key(hidden_states), self.value(hidden_states)

        def heads(x):
            return x.view(seq_len, batch_size, self.num_heads, self.head_dim).permute(1, 2, 0, 3)

        pos = torch.arange(seq_len, device=hidden_states.device)
        band = (pos[None, :] - pos[:, None]).abs() <= self.one_sided_attn_window_size
        allowed = band[None, None] & ~is_index_masked[:, None, None, :]
        if is_global_attn:
            # local tokens also attend to the global tokens; global tokens attend to every token,
            # with their own query/key/value projections
            allowed = allowed | (is_index_global_attn[:, None, None, :] & ~is_index_masked[:, None, None, :])
            global_rows = is_index_global_attn[:, None, :, None]
            allowed = allowed | (global_rows & ~is_index_masked[:, None, None, :])
            query_vectors = torch.where(is_index_global_attn.transpose(0, 1)[..., None],
                                        self.query_global(hidden_states) / math.sqrt(self.head_dim), query_vectors)
        scores = heads(query_vectors) @ heads(key_vectors).transpose(-1, -2)
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        attn_probs = nn.functional.softmax(scores, dim=-1, dtype=torch.float32)
        attn_probs = torch.masked_fill(attn_probs, is_index_masked[:, None, :, None], 0.0)
        attn_output = (attn_probs @ heads(value_vectors)).permute(0, 2, 1, 3)
        return attn_output.reshape(batch_size, seq_len, embed_dim)


class LongformerForTokenClassification(nn.Module):
    def __init__(self, hidden_size=32, attention_window=8, num_labels=4):
        super().__init__()
        self.attention_window = attention_window
        self.layer = LongformerSelfAttention(hidden_size, 4, attention_window)
        self.classifier = nn.Linear(hidden_size, num_labels)

    def _pad_to_window_size(self, attention_mask, inputs_embeds):
        attention_window = self.attention_window
        seq_len = inputs_embeds.shape[1]
        padding_len = (attention_window - seq_len % attention_window) % attention_window
        if padding_len > 0:
            attention_mask = nn.functional.pad(attention_mask, (0, padding_len), value=0)
            inputs_embeds = nn.functional.pad(inputs_embeds, (0, 0, 0, padding_len))
        return padding_len, attention_mask, inputs_embeds

    def forward(self, inputs_embeds, attention_mask, global_attention_mask):
        # merge `global_attention_mask` and `attention_mask`
        attention_mask = attention_mask * (global_attention_mask + 1)
        padding_len, attention_mask, inputs_embeds = self._pad_to_window_size(attention_mask, inputs_embeds)
        extended_attention_mask = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        attention_mask = extended_attention_mask[:, 0, 0, :]

        is_index_masked = attention_mask < 0
        is_index_global_attn = attention_mask > 0
        # Record `is_global_attn == True` to enable ONNX export
        is_global_attn = is_index_global_attn.flatten().any().item()

        sequence_output = inputs_embeds + self.layer(inputs_embeds, attention_mask, is_index_masked,
                                                     is_index_global_attn, is_global_attn)
        # undo padding
        if padding_len > 0:
            sequence_output = sequence_output[:, :-padding_len]
        return self.classifier(sequence_output)


def make_model():
    return LongformerForTokenClassification().eval()


def _inputs(b, s, n_global):
    global_attention_mask = torch.zeros(b, s, dtype=torch.long)
    global_attention_mask[:, :n_global] = 1
    return (torch.randn(b, s, 32), torch.ones(b, s, dtype=torch.long), global_attention_mask)


def example_inputs():
    return _inputs(2, 16, 0)


def other_inputs():
    return [_inputs(3, 21, 1), _inputs(1, 16, 2)]


def probe_inputs():
    return other_inputs()
