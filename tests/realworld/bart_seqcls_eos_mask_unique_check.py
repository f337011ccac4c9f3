"""BART sequence classification head (transformers' BartForSequenceClassification): it checks that every row has the
same number of <eos> tokens with `if len(torch.unique(eos_mask.sum(1))) > 1: raise ValueError(...)` and takes the
last <eos> hidden state through the 2-D boolean mask `x[eos_mask, :].view(x.size(0), -1, x.size(-1))[:, -1, :]`.
The PR reports that ONNX export chokes on the Python integer from `len(...)` and on the 2-D boolean indexing.

Source: https://github.com/huggingface/transformers/pull/8564
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-9"


class BartConfig:
    vocab_size = 100
    d_model = 32
    encoder_attention_heads = 4
    encoder_ffn_dim = 64
    max_position_embeddings = 64
    eos_token_id = 2
    num_labels = 3


class BartClassificationHead(nn.Module):
    """Head for sentence-level classification tasks."""

    def __init__(self, input_dim, inner_dim, num_classes, pooler_dropout=0.0):
        super().__init__()
        self.dense = nn.Linear(input_dim, inner_dim)
        self.dropout = nn.Dropout(p=pooler_dropout)
        self.out_proj = nn.Linear(inner_dim, num_classes)

    def forward(self, x):
        x = self.dropout(x)
        x = self.dense(x)
        x = torch.tanh(x)
        x = self.dropout(x)
        x = self.out_proj(x)
        return x


class BartModelStandIn(nn.Module):
    """Token + learned positional embeddings and one self-attention block, standing in for BartModel."""

    def __init__(self, config):
        super().__init__()
        self.num_heads = config.encoder_attention_heads
        self.head_dim = config.d_model // config.encoder_attention_heads
        self.embed_tokens = nn.Embedding(config.vocab_size, config.d_model)
        self.embed_positions = nn.Embedding(config.max_position_embeddings, config.d_model)
        self.q_proj = nn.Linear(config.d_model, config.d_model)
        self.k_proj = nn.Linear(config.d_model, config.d_model)
        self.v_proj = nn.Linear(config.d_model, config.d_model)
        self.out_proj = nn.Linear(config.d_model, config.d_model)
        self.self_attn_layer_norm = nn.LayerNorm(config.d_model)

    def _shape(self, tensor, seq_len, bsz):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, input_ids):
        bsz, tgt_len = input_ids.size()
        positions = torch.arange(tgt_len, device=input_ids.device)
        x = self.embed_tokens(input_ids) + self.embed_positions(positions)
        q = self._shape(self.q_proj(x) * self.head_dim**-0.5, tgt_len, bsz)
        k = self._shape(self.k_proj(x), tgt_len, bsz)
        v = self._shape(self.v_proj(x), tgt_len, bsz)
        attn_weights = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        attn_output = (attn_weights @ v).transpose(1, 2).reshape(bsz, tgt_len, -1)
        x = self.self_attn_layer_norm(x + self.out_proj(attn_output))
        return (x,)


class BartForSequenceClassification(nn.Module):
    def __init__(self, config=BartConfig()):
        super().__init__()
        self.config = config
        self.model = BartModelStandIn(config)
        self.classification_head = BartClassificationHead(config.d_model, config.d_model, config.num_labels)

    def forward(self, input_ids):
        outputs = self.model(input_ids)
        x = outputs[0]  # last hidden state
        eos_mask = input_ids.eq(self.config.eos_token_id)
        if len(torch.unique(eos_mask.sum(1))) > 1:
            raise ValueError("All examples must have the same number of <eos> tokens.")
        sentence_representation = x[eos_mask, :].view(x.size(0), -1, x.size(-1))[:, -1, :]
        logits = self.classification_head(sentence_representation)
        return logits


def make_model():
    return BartForSequenceClassification().eval()


def _batch(lengths, seq):
    """Right-padded rows (pad id 1), one <eos> (id 2) at the end of each row's text."""
    ids = torch.full((len(lengths), seq), 1, dtype=torch.long)
    for row, n in enumerate(lengths):
        ids[row, 0] = 0
        ids[row, 1:n - 1] = torch.randint(4, 100, (n - 2,))
        ids[row, n - 1] = 2
    return ids


def example_inputs():
    return (_batch([10, 7], 10),)


def other_inputs():
    return [(_batch([5, 16, 9], 16),), (_batch([6], 6),)]


def probe_inputs():
    return other_inputs()
