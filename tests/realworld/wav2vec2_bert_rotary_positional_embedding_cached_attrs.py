"""Wav2Vec2-BERT conformer encoder (transformers; the same rotary module is in SeamlessM4T and CLVP): the rotary
positional embedding keeps `self.cached_sequence_length` / `self.cached_rotary_positional_embedding` as plain
module attributes and returns the cached table whenever `sequence_length == self.cached_sequence_length`; the
transformers Dynamo exporter has to null these two attributes around `torch.export` because "tracing can leave
FakeTensors in non-Cache stateful attributes, and stale eager state can leak into the trace".

Source: https://github.com/huggingface/transformers/blob/main/src/transformers/exporters/exporter_dynamo.py
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "domains-54"


class Wav2Vec2BertConfig:
    hidden_size = 32
    num_attention_heads = 4
    rotary_embedding_base = 10000
    position_embeddings_type = "rotary"


class Wav2Vec2BertRotaryPositionalEmbedding(nn.Module):
    """Rotary positional embedding
    Reference : https://blog.eleuther.ai/rotary-embeddings/ Paper: https://huggingface.co/papers/2104.09864
    """

    def __init__(self, config):
        super().__init__()
        dim = config.hidden_size // config.num_attention_heads
        base = config.rotary_embedding_base

        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.cached_sequence_length = None
        self.cached_rotary_positional_embedding = None

    def forward(self, hidden_states):
        sequence_length = hidden_states.shape[1]

        if sequence_length == self.cached_sequence_length and self.cached_rotary_positional_embedding is not None:
            return self.cached_rotary_positional_embedding

        self.cached_sequence_length = sequence_length
        # Embeddings are computed in the dtype of the inv_freq constant
        time_stamps = torch.arange(sequence_length).type_as(self.inv_freq)
        freqs = torch.einsum("i,j->ij", time_stamps, self.inv_freq)
        embeddings = torch.cat((freqs, freqs), dim=-1)

        cos_embeddings = embeddings.cos()[:, None, None, :]
        sin_embeddings = embeddings.sin()[:, None, None, :]
        # Computed embeddings are cast to the dtype of the hidden state inputs
        self.cached_rotary_positional_embedding = torch.stack([cos_embeddings, sin_embeddings]).type_as(hidden_states)
        return self.cached_rotary_positional_embedding


class Wav2Vec2BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.head_size = config.hidden_size // config.num_attention_heads
        self.num_heads = config.num_attention_heads
        self.position_embeddings_type = config.position_embeddings_type
        self.linear_q = nn.Linear(config.hidden_size, config.hidden_size)
        self.linear_k = nn.Linear(config.hidden_size, config.hidden_size)
        self.linear_v = nn.Linear(config.hidden_size, config.hidden_size)
        self.linear_out = nn.Linear(config.hidden_size, config.hidden_size)

    def _apply_rotary_embedding(self, hidden_states, relative_position_embeddings):
        batch_size, sequence_length, hidden_size = hidden_states.size()
        hidden_states = hidden_states.view(batch_size, sequence_length, self.num_heads, self.head_size)

        cos = relative_position_embeddings[0, :sequence_length, ...]
        sin = relative_position_embeddings[1, :sequence_length, ...]

        # rotate hidden_states with rotary embeddings
        hidden_states = hidden_states.transpose(0, 1)
        rotated_states_begin = hidden_states[..., : self.head_size // 2]
        rotated_states_end = hidden_states[..., self.head_size // 2 :]
        rotated_states = torch.cat((-rotated_states_end, rotated_states_begin), dim=rotated_states_begin.ndim - 1)
        hidden_states = (hidden_states * cos) + (rotated_states * sin)
        hidden_states = hidden_states.transpose(0, 1)

        hidden_states = hidden_states.view(batch_size, sequence_length, self.num_heads * self.head_size)
        return hidden_states

    def forward(self, hidden_states, relative_position_embeddings=None):
        batch_size, sequence_length, hidden_size = hidden_states.size()
        query_key_states = hidden_states
        value_states = hidden_states

        if self.position_embeddings_type == "rotary":
            if relative_position_embeddings is None:
                raise ValueError(
                    "`relative_position_embeddings` has to be defined when `self.position_embeddings_type == 'rotary'"
                )
            query_key_states = self._apply_rotary_embedding(query_key_states, relative_position_embeddings)

        query = self.linear_q(query_key_states).view(batch_size, -1, self.num_heads, self.head_size).transpose(1, 2)
        key = self.linear_k(query_key_states).view(batch_size, -1, self.num_heads, self.head_size).transpose(1, 2)
        value = self.linear_v(value_states).view(batch_size, -1, self.num_heads, self.head_size).transpose(1, 2)

        scores = torch.matmul(query, key.transpose(-2, -1)) / self.head_size**0.5
        probs = torch.softmax(scores, dim=-1)
        hidden_states = torch.matmul(probs, value)
        hidden_states = hidden_states.transpose(1, 2).reshape(batch_size, -1, self.num_heads * self.head_size)
        return self.linear_out(hidden_states)


class Wav2Vec2BertEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_positions = Wav2Vec2BertRotaryPositionalEmbedding(config)
        self.layer_norm = nn.LayerNorm(config.hidden_size)
        self.self_attn = Wav2Vec2BertSelfAttention(config)

    def forward(self, hidden_states):
        relative_position_embeddings = None
        if self.embed_positions is not None:
            relative_position_embeddings = self.embed_positions(hidden_states)
        residual = hidden_states
        hidden_states = self.layer_norm(hidden_states)
        hidden_states = self.self_attn(hidden_states, relative_position_embeddings=relative_position_embeddings)
        return hidden_states + residual


def make_model():
    return Wav2Vec2BertEncoder(Wav2Vec2BertConfig()).eval()


def example_inputs():
    return (torch.randn(2, 50, 32),)


def other_inputs():
    return [(torch.randn(3, 77, 32),), (torch.randn(1, 23, 32),)]


def probe_inputs():
    return other_inputs()
