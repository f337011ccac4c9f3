"""CANINE's initial character encoder uses local attention: `CanineAttention.forward` builds its
windows with Python `for chunk_start in range(from_start, from_seq_length, stride)` loops over the
sequence length and `torch.cat`s the per-window outputs; a "dynamic" ONNX export fixes the sequence
length to the example input's (shape mismatch at any other length).

Source: https://github.com/huggingface/transformers/issues/47491
"""
import math

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-6"


class CanineSelfAttention(nn.Module):
    def __init__(self, hidden_size=32, num_attention_heads=4):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(hidden_size, self.all_head_size)
        self.key = nn.Linear(hidden_size, self.all_head_size)
        self.value = nn.Linear(hidden_size, self.all_head_size)

    def forward(self, from_tensor, to_tensor, attention_mask=None, output_attentions=False):
        batch_size, seq_length, _ = from_tensor.shape
        query_layer = self.query(from_tensor).view(batch_size, -1, self.num_attention_heads, self.attention_head_size).transpose(1, 2)
        key_layer = self.key(to_tensor).view(batch_size, -1, self.num_attention_heads, self.attention_head_size).transpose(1, 2)
        value_layer = self.value(to_tensor).view(batch_size, -1, self.num_attention_heads, self.attention_head_size).transpose(1, 2)
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            if attention_mask.ndim == 3:
                attention_mask = torch.unsqueeze(attention_mask, dim=1)
                attention_mask = (1.0 - attention_mask.float()) * torch.finfo(attention_scores.dtype).min
            attention_scores = attention_scores + attention_mask
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        context_layer = torch.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        context_layer = context_layer.view(*new_context_layer_shape)
        return (context_layer, attention_probs) if output_attentions else (context_layer,)


class CanineSelfOutput(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dense(hidden_states) + input_tensor)


class CanineAttention(nn.Module):
    def __init__(self, local=True, always_attend_to_first_position=False, first_position_attends_to_all=False,
                 attend_from_chunk_width=4, attend_from_chunk_stride=4, attend_to_chunk_width=4, attend_to_chunk_stride=4):
        super().__init__()
        self.self = CanineSelfAttention()
        self.output = CanineSelfOutput()
        self.local = local
        self.always_attend_to_first_position = always_attend_to_first_position
        self.first_position_attends_to_all = first_position_attends_to_all
        self.attend_from_chunk_width = attend_from_chunk_width
        self.attend_from_chunk_stride = attend_from_chunk_stride
        self.attend_to_chunk_width = attend_to_chunk_width
        self.attend_to_chunk_stride = attend_to_chunk_stride

    def forward(self, hidden_states, attention_mask=None, output_attentions=False):
        if not self.local:
            self_outputs = self.self(hidden_states, hidden_states, attention_mask, output_attentions)
            attention_output = self_outputs[0]
        else:
            from_seq_length = to_seq_length = hidden_states.shape[1]
            from_tensor = to_tensor = hidden_states

            # Create chunks (windows) that we will attend *from* and then concatenate them.
            from_chunks = []
            if self.first_position_attends_to_all:
                from_chunks.append((0, 1))
                from_start = 1
            else:
                from_start = 0
            for chunk_start in range(from_start, from_seq_length, self.attend_from_chunk_stride):
                chunk_end = min(from_seq_length, chunk_start + self.attend_from_chunk_width)
                from_chunks.append((chunk_start, chunk_end))

            # Determine the chunks (windows) that will attend *to*.
            to_chunks = []
            if self.first_position_attends_to_all:
                to_chunks.append((0, to_seq_length))
            for chunk_start in range(0, to_seq_length, self.attend_to_chunk_stride):
                chunk_end = min(to_seq_length, chunk_start + self.attend_to_chunk_width)
                to_chunks.append((chunk_start, chunk_end))

            if len(from_chunks) != len(to_chunks):
                raise ValueError(
                    f"Expected to have same number of `from_chunks` ({from_chunks}) and "
                    f"`to_chunks` ({from_chunks}). Check strides."
                )

            attention_output_chunks = []
            attention_probs_chunks = []
            for (from_start, from_end), (to_start, to_end) in zip(from_chunks, to_chunks):
                from_tensor_chunk = from_tensor[:, from_start:from_end, :]
                to_tensor_chunk = to_tensor[:, to_start:to_end, :]
                attention_mask_chunk = attention_mask[:, from_start:from_end, to_start:to_end]
                if self.always_attend_to_first_position:
                    cls_attention_mask = attention_mask[:, from_start:from_end, 0:1]
                    attention_mask_chunk = torch.cat([cls_attention_mask, attention_mask_chunk], dim=2)
                    cls_position = to_tensor[:, 0:1, :]
                    to_tensor_chunk = torch.cat([cls_position, to_tensor_chunk], dim=1)
                attention_outputs_chunk = self.self(
                    from_tensor_chunk, to_tensor_chunk, attention_mask_chunk, output_attentions
                )
                attention_output_chunks.append(attention_outputs_chunk[0])
                if output_attentions:
                    attention_probs_chunks.append(attention_outputs_chunk[1])

            attention_output = torch.cat(attention_output_chunks, dim=1)

        attention_output = self.output(attention_output, hidden_states)
        return (attention_output,)


class CanineInitialCharEncoder(nn.Module):
    """Char embedding + the local-attention initial character encoder of CanineModel (stride 4)."""

    def __init__(self, vocab=256, hidden_size=32, local_transformer_stride=4):
        super().__init__()
        self.char_embeddings = nn.Embedding(vocab, hidden_size)
        self.attention = CanineAttention(
            local=True,
            always_attend_to_first_position=False,
            first_position_attends_to_all=False,
            attend_from_chunk_width=local_transformer_stride,
            attend_from_chunk_stride=local_transformer_stride,
            attend_to_chunk_width=local_transformer_stride,
            attend_to_chunk_stride=local_transformer_stride,
        )

    def _create_3d_attention_mask_from_input_mask(self, from_tensor, to_mask):
        batch_size, from_seq_length = from_tensor.shape[0], from_tensor.shape[1]
        to_seq_length = to_mask.shape[1]
        to_mask = torch.reshape(to_mask, (batch_size, 1, to_seq_length)).float()
        broadcast_ones = torch.ones(size=(batch_size, from_seq_length, 1), dtype=torch.float32, device=to_mask.device)
        return broadcast_ones * to_mask

    def forward(self, input_ids, attention_mask):
        input_char_embeddings = self.char_embeddings(input_ids)
        extended_attention_mask = self._create_3d_attention_mask_from_input_mask(input_ids, attention_mask)
        return self.attention(input_char_embeddings, extended_attention_mask)[0]


def make_model():
    return CanineInitialCharEncoder().eval()


def _inputs(batch, length):
    ids = torch.randint(0, 256, (batch, length))
    mask = torch.ones(batch, length, dtype=torch.long)
    mask[0, length - 2:] = 0
    return ids, mask


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(3, 20), _inputs(1, 7)]


def probe_inputs():
    return other_inputs()
