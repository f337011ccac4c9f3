"""ChatGLM2/3 (THUDM remote code) `ChatGLMModel.forward` builds the padding/causal mask only
`if (attention_mask is not None and not attention_mask.all()) or (past_key_values and seq_length != 1)`,
a Python branch on tensor values; otherwise the torch-2 CoreAttention falls back to SDPA `is_causal=True`.
optimum-intel's OpenVINO ChatGLMModelPatcher replaces the whole forward (`_chatglm_transformer_forward`)
so the exported graph does not depend on that branch. Reduced to the embedding, `get_masks` and one attention layer.

Source: https://github.com/huggingface/optimum-intel/blob/e1de5beecfd0c3ae6047ea22cea4a4cad4307aff/optimum/exporters/openvino/model_patcher.py#L657
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "domains-55"


class CoreAttention(nn.Module):
    def __init__(self, hidden_size_per_partition):
        super().__init__()
        self.hidden_size_per_partition = hidden_size_per_partition

    def forward(self, query_layer, key_layer, value_layer, attention_mask):
        query_layer, key_layer, value_layer = [k.permute(1, 2, 0, 3) for k in [query_layer, key_layer, value_layer]]
        if attention_mask is None and query_layer.shape[2] == key_layer.shape[2]:
            context_layer = torch.nn.functional.scaled_dot_product_attention(query_layer, key_layer, value_layer,
                                                                             is_causal=True)
        else:
            if attention_mask is not None:
                attention_mask = ~attention_mask
            context_layer = torch.nn.functional.scaled_dot_product_attention(query_layer, key_layer, value_layer,
                                                                             attention_mask)
        context_layer = context_layer.permute(2, 0, 1, 3)
        new_context_layer_shape = context_layer.size()[:-2] + (self.hidden_size_per_partition,)
        context_layer = context_layer.reshape(*new_context_layer_shape)
        return context_layer


class ChatGLMModel(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.query_key_value = nn.Linear(hidden_size, 3 * hidden_size)
        self.core_attention = CoreAttention(hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size, bias=False)

    def get_masks(self, input_ids, past_key_values, padding_mask=None):
        batch_size, seq_length = input_ids.shape
        full_attention_mask = torch.ones(batch_size, seq_length, seq_length, device=input_ids.device)
        full_attention_mask.tril_()
        past_length = 0
        if past_key_values:
            past_length = past_key_values[0][0].shape[0]
        if past_length:
            full_attention_mask = torch.cat((torch.ones(batch_size, seq_length, past_length,
                                                        device=input_ids.device), full_attention_mask), dim=-1)
        if padding_mask is not None:
            full_attention_mask = full_attention_mask * padding_mask.unsqueeze(1)
        if not past_length and padding_mask is not None:
            full_attention_mask -= padding_mask.unsqueeze(-1) - 1
        full_attention_mask = (full_attention_mask < 0.5).bool()
        full_attention_mask.unsqueeze_(1)
        return full_attention_mask

    def forward(self, input_ids, attention_mask=None, full_attention_mask=None, past_key_values=None):
        batch_size, seq_length = input_ids.shape
        inputs_embeds = self.word_embeddings(input_ids).transpose(0, 1).contiguous()

        if full_attention_mask is None:
            if (attention_mask is not None and not attention_mask.all()) or (past_key_values and seq_length != 1):
                full_attention_mask = self.get_masks(input_ids, past_key_values, padding_mask=attention_mask)

        mixed_x_layer = self.query_key_value(inputs_embeds)
        mixed_x_layer = mixed_x_layer.view(mixed_x_layer.size()[:-1] + (self.num_heads, 3 * self.head_dim))
        query_layer, key_layer, value_layer = mixed_x_layer.split(self.head_dim, dim=-1)
        context_layer = self.core_attention(query_layer, key_layer, value_layer, full_attention_mask)
        return self.dense(context_layer)


def make_model():
    return ChatGLMModel().eval()


def _batch(bsz, seq, pads):
    input_ids = torch.randint(0, 64, (bsz, seq))
    attention_mask = torch.ones(bsz, seq, dtype=torch.long)
    for i, p in enumerate(pads):
        attention_mask[i, :p] = 0  # ChatGLM tokenizer pads on the left
    return input_ids, attention_mask


def example_inputs():
    return _batch(2, 8, [0, 0])


def other_inputs():
    return [_batch(3, 11, [0, 4, 2]), _batch(2, 5, [3, 0])]


def probe_inputs():
    return other_inputs()
