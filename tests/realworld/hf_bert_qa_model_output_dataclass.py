"""transformers 3.0 BERT question answering: `BertForQuestionAnswering.forward` returns a
`QuestionAnsweringModelOutput` dataclass (a plain `ModelOutput` class with `to_tuple`/`__getitem__`)
instead of a tuple; `torch.onnx.export` fails with "Only tuples, lists and Variables supported as JIT
inputs/outputs ... But got unsupported type QuestionAnsweringModelOutput".

Source: https://github.com/huggingface/transformers/issues/5713
"""
from dataclasses import dataclass
from typing import Optional

import torch
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-12"


class ModelOutput:
    def to_tuple(self):
        return tuple(getattr(self, f) for f in self.__dataclass_fields__.keys() if getattr(self, f, None) is not None)

    def to_dict(self):
        return {f: getattr(self, f) for f in self.__dataclass_fields__.keys() if getattr(self, f, None) is not None}

    def __getitem__(self, i):
        return self.to_dict()[i] if isinstance(i, str) else self.to_tuple()[i]

    def __len__(self):
        return len(self.to_tuple())


@dataclass
class QuestionAnsweringModelOutput(ModelOutput):
    loss: Optional[torch.FloatTensor] = None
    start_logits: torch.FloatTensor = None
    end_logits: torch.FloatTensor = None


class BertForQuestionAnswering(nn.Module):
    def __init__(self, vocab_size=100, hidden_size=32, num_labels=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(64, hidden_size)
        self.encoder = nn.TransformerEncoderLayer(hidden_size, 4, 64, dropout=0.0, batch_first=True)
        self.qa_outputs = nn.Linear(hidden_size, num_labels)

    def forward(self, input_ids):
        position_ids = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        sequence_output = self.encoder(self.word_embeddings(input_ids) + self.position_embeddings(position_ids))
        logits = self.qa_outputs(sequence_output)
        start_logits, end_logits = logits.split(1, dim=-1)
        start_logits = start_logits.squeeze(-1)
        end_logits = end_logits.squeeze(-1)
        return QuestionAnsweringModelOutput(
            loss=None,
            start_logits=start_logits,
            end_logits=end_logits,
        )


def make_model():
    return BertForQuestionAnswering().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 16)),)


def other_inputs():
    return [(torch.randint(0, 100, (3, 24)),), (torch.randint(0, 100, (1, 9)),)]


def probe_inputs():
    return other_inputs()
