"""A token-classification (NER) head that keeps only the logits of real tokens with
`logits.masked_select(mask)` before reshaping them to (num_active, num_labels). The report is
torchlib's tracking issue for the missing ONNX function of `aten.masked_select.default`; under
`torch.onnx.export(..., dynamo=True)` the conversion still stops with "No ONNX function found for
<OpOverload(op='aten.masked_select', overload='default')>".

Source: https://github.com/microsoft/onnxscript/issues/1675
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "operators-35"


class TokenClassifierHead(nn.Module):
    def __init__(self, hidden=32, num_labels=5):
        super().__init__()
        self.num_labels = num_labels
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, hidden_states, attention_mask):
        logits = self.classifier(self.dropout(hidden_states))
        active = attention_mask.unsqueeze(-1).expand_as(logits).bool()
        active_logits = logits.masked_select(active).view(-1, self.num_labels)
        return active_logits.argmax(-1), active_logits


def make_model():
    return TokenClassifierHead().eval()


def _mask(batch, seq):
    lengths = torch.randint(1, seq + 1, (batch,))
    return (torch.arange(seq)[None, :] < lengths[:, None]).long()


def example_inputs():
    return (torch.randn(3, 12, 32), _mask(3, 12))


def other_inputs():
    return [(torch.randn(2, 20, 32), _mask(2, 20)), (torch.randn(5, 7, 32), _mask(5, 7))]


def probe_inputs():
    return other_inputs()
