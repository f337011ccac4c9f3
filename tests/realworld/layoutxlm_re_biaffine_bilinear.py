"""LayoutXLM relation-extraction decoder (unilm layoutlmft REDecoder): head/tail entity
representations go through FFNNs and a BiaffineAttention classifier built on
`torch.nn.Bilinear(in_features, in_features, out_features, bias=False)`; exporting the RE model
to ONNX fails because torch.nn.bilinear (aten::bilinear) cannot be exported.

Source: https://github.com/microsoft/unilm/issues/774
"""
import copy

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "hidden_states": {0: "n_words"},
    "head_index": {0: "n_relations"},
    "head_label": {0: "n_relations"},
    "tail_index": {0: "n_relations"},
    "tail_label": {0: "n_relations"},
}
BLIND = "operators-7"


class BiaffineAttention(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super(BiaffineAttention, self).__init__()

        self.in_features = in_features
        self.out_features = out_features

        self.bilinear = torch.nn.Bilinear(in_features, in_features, out_features, bias=False)
        self.linear = torch.nn.Linear(2 * in_features, out_features, bias=True)

        self.reset_parameters()

    def forward(self, x_1, x_2):
        return self.bilinear(x_1, x_2) + self.linear(torch.cat((x_1, x_2), dim=-1))

    def reset_parameters(self):
        self.bilinear.reset_parameters()
        self.linear.reset_parameters()


class REDecoder(nn.Module):
    def __init__(self, hidden_size=64, hidden_dropout_prob=0.1):
        super().__init__()
        self.entity_emb = nn.Embedding(3, hidden_size, scale_grad_by_freq=True)
        projection = nn.Sequential(
            nn.Linear(hidden_size * 2, hidden_size),
            nn.ReLU(),
            nn.Dropout(hidden_dropout_prob),
            nn.Linear(hidden_size, hidden_size // 2),
            nn.ReLU(),
            nn.Dropout(hidden_dropout_prob),
        )
        self.ffnn_head = copy.deepcopy(projection)
        self.ffnn_tail = copy.deepcopy(projection)
        self.rel_classifier = BiaffineAttention(hidden_size // 2, 2)

    def forward(self, hidden_states, head_index, head_label, tail_index, tail_label):
        # one document: hidden_states (n_words, hidden), entity start indices / labels per relation
        head_label_repr = self.entity_emb(head_label)
        tail_label_repr = self.entity_emb(tail_label)
        head_repr = torch.cat(
            (hidden_states[head_index], head_label_repr),
            dim=-1,
        )
        tail_repr = torch.cat(
            (hidden_states[tail_index], tail_label_repr),
            dim=-1,
        )
        heads = self.ffnn_head(head_repr)
        tails = self.ffnn_tail(tail_repr)
        logits = self.rel_classifier(heads, tails)
        return logits


def make_model():
    return REDecoder().eval()


def _inputs(n_words, n_rel):
    return (
        torch.randn(n_words, 64),
        torch.randint(0, n_words, (n_rel,)),
        torch.ones(n_rel, dtype=torch.long),
        torch.randint(0, n_words, (n_rel,)),
        torch.full((n_rel,), 2, dtype=torch.long),
    )


def example_inputs():
    return _inputs(50, 6)


def other_inputs():
    return [_inputs(37, 9), _inputs(80, 3)]


def probe_inputs():
    return other_inputs()
