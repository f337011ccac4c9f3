"""ruDALL-E's autoregressive image-token transformer keeps its generation cache as plain module attributes
(`self.past_key`, `self.past_value`, `self.past_output` in DalleSelfAttention, `self.past_x` in DalleMLP), rebinds
them on every call and hands a Python `has_cache` flag back to the generation loop. The ONNX port ("update") replaced
them with explicit `caches: List[torch.Tensor]` inputs and outputs, since the stateful cache does not export.
(One layer, hidden size 32; the wrapper is one step of `generate_images`, which carries `has_cache` between calls.)

Source: https://github.com/HighCWu/ru-dalle/commit/24b6a7462322100e1f2b80521707260e035c3349
"""
import math

import torch
from torch.nn import LayerNorm

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {1: "seq"}}
BLIND = "domains-76"


@torch.jit.script
def gelu_impl(x):
    """OpenAI's gelu implementation."""
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * x * (1.0 + 0.044715 * x * x)))


def gelu(x):
    return gelu_impl(x)


def split_tensor_along_last_dim(tensor, num_partitions):
    last_dim = tensor.dim() - 1
    last_dim_size = tensor.size()[last_dim] // num_partitions
    return torch.split(tensor, last_dim_size, dim=last_dim)


class DalleSelfAttention(torch.nn.Module):
    def __init__(self, hidden_size, num_attention_heads):
        super(DalleSelfAttention, self).__init__()
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.hidden_size_per_attention_head = hidden_size // num_attention_heads
        self.query_key_value = torch.nn.Linear(hidden_size, 3*hidden_size)
        self.dense = torch.nn.Linear(hidden_size, hidden_size)
        # Cache
        self.past_key = None
        self.past_value = None
        self.past_output = None

    def _transpose_for_scores(self, tensor):
        """ Transpose a 3D tensor [b, s, np*hn] into a 4D tensor with size [b, np, s, hn]. """
        new_tensor_shape = tensor.size()[:-1] + (self.num_attention_heads, self.hidden_size_per_attention_head)
        tensor = tensor.view(new_tensor_shape[0], new_tensor_shape[1], new_tensor_shape[2], new_tensor_shape[3])
        return tensor.permute(0, 2, 1, 3)

    def _calculate_attention_scores(self, query_layer, key_layer, ltor_mask):
        key_t = key_layer.transpose(-1, -2)
        attention_scores = torch.matmul(query_layer, key_t) / math.sqrt(self.hidden_size_per_attention_head)
        ltor_mask = ltor_mask[:, :, -attention_scores.shape[-2]:]
        attention_scores = torch.mul(attention_scores, ltor_mask) - 10000.0 * (1.0 - ltor_mask)
        return attention_scores

    def forward(self, hidden_states, ltor_mask, has_cache=False, use_cache=False,):
        if has_cache and use_cache:
            mixed_x_layer = self.query_key_value(hidden_states[:, -1:, :])
        else:
            mixed_x_layer = self.query_key_value(hidden_states)

        (mixed_query_layer,
         mixed_key_layer,
         mixed_value_layer) = split_tensor_along_last_dim(mixed_x_layer, 3)

        query_layer = self._transpose_for_scores(mixed_query_layer)
        key_layer = self._transpose_for_scores(mixed_key_layer)
        value_layer = self._transpose_for_scores(mixed_value_layer)

        # Can be simplified, but I didn't for readability's sake
        if use_cache and has_cache:
            key_layer = torch.cat((self.past_key, key_layer), dim=-2)
            value_layer = torch.cat((self.past_value, value_layer), dim=-2)
            attention_scores = self._calculate_attention_scores(
                query_layer=query_layer, key_layer=key_layer, ltor_mask=ltor_mask
            )
        else:
            attention_scores = self._calculate_attention_scores(
                query_layer=query_layer, key_layer=key_layer, ltor_mask=ltor_mask
            )

        if use_cache:
            self.past_key = key_layer
            self.past_value = value_layer
        else:
            self.past_key = None
            self.past_value = None
            self.past_output = None
            has_cache = False

        if use_cache and has_cache:
            attention_scores = attention_scores[..., -1:, :]

        attention_probs = torch.nn.Softmax(dim=-1)(attention_scores)
        context_layer = torch.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.hidden_size,)
        context_layer = context_layer.view(*new_context_layer_shape)
        output = self.dense(context_layer)

        if use_cache:
            # Can be simplified, but I didn't for readability's sake
            if has_cache:
                output = torch.cat((self.past_output, output), dim=-2)
                self.past_output = output
            else:
                self.past_output = output
            has_cache = True

        return output, has_cache


class DalleMLP(torch.nn.Module):
    def __init__(self, hidden_size):
        super(DalleMLP, self).__init__()
        self.dense_h_to_4h = torch.nn.Linear(hidden_size, 4*hidden_size)
        self.dense_4h_to_h = torch.nn.Linear(4*hidden_size, hidden_size)
        # MLP cache
        self.past_x = None

    def forward(self, hidden_states, has_cache=False, use_cache=False):
        if has_cache and use_cache:
            hidden_states = hidden_states[:, -1:]
        x = self.dense_h_to_4h(hidden_states)
        x = gelu(x)
        x = self.dense_4h_to_h(x)
        if use_cache:
            # Can be simplified, but I didn't for readability's sake
            if has_cache:
                x = torch.cat((self.past_x, x), dim=-2)
                self.past_x = x
            else:
                self.past_x = x
            has_cache = True
        else:
            self.past_x = None
            has_cache = False
        return x, has_cache


class DalleTransformerLayer(torch.nn.Module):
    def __init__(self, hidden_size, num_attention_heads, layernorm_epsilon=1.0e-5):
        super(DalleTransformerLayer, self).__init__()
        self.input_layernorm = LayerNorm(hidden_size, eps=layernorm_epsilon)
        self.attention = DalleSelfAttention(hidden_size, num_attention_heads)
        self.post_attention_layernorm = LayerNorm(hidden_size, eps=layernorm_epsilon)
        self.mlp = DalleMLP(hidden_size)

    def forward(self, hidden_states, ltor_mask, has_cache, use_cache):
        layernorm_output = self.input_layernorm(hidden_states)
        attention_output, att_has_cache = self.attention(
            layernorm_output, ltor_mask, has_cache=has_cache, use_cache=use_cache)
        layernorm_input = hidden_states + attention_output
        layernorm_output = self.post_attention_layernorm(layernorm_input)
        mlp_output, mlp_has_cache = self.mlp(
            layernorm_output, has_cache=has_cache, use_cache=use_cache)
        output = layernorm_input + mlp_output
        return output, att_has_cache and mlp_has_cache


class DalleGenerateStep(torch.nn.Module):
    """One iteration of generate_images: `logits, has_cache = dalle(out, attention_mask, has_cache=has_cache, ...)`."""

    def __init__(self, hidden_size=32, num_attention_heads=4, vocab=48, total_seq_length=16):
        super().__init__()
        self.layer = DalleTransformerLayer(hidden_size, num_attention_heads)
        self.to_logits = torch.nn.Sequential(torch.nn.LayerNorm(hidden_size), torch.nn.Linear(hidden_size, vocab))
        self.register_buffer("attention_mask", torch.tril(torch.ones((1, 1, total_seq_length, total_seq_length))))
        self.has_cache = False
        self.use_cache = True

    def forward(self, hidden_states):
        attention_mask = self.attention_mask[:, :, :hidden_states.shape[1], :hidden_states.shape[1]]
        transformer_output, self.has_cache = self.layer(
            hidden_states, attention_mask, has_cache=self.has_cache, use_cache=self.use_cache)
        logits = self.to_logits(transformer_output)
        return logits[:, -1, :]


def make_model():
    return DalleGenerateStep().eval()


def _token_embeddings():
    # the growing sequence `out` of generate_images: each step appends one token to the same prefix
    return torch.randn(2, 8, 32, generator=torch.Generator().manual_seed(0))


def example_inputs():
    return (_token_embeddings()[:, :6],)             # prompt: fills the cache


def other_inputs():
    # the next generation steps: one more token each, same batch
    return [(_token_embeddings()[:, :7],), (_token_embeddings()[:, :8],)]


def probe_inputs():
    return other_inputs()
