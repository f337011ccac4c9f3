"""A CTC decoder inside the model (CnOCR's post-processor): the best path looked up in a vocabulary,
so forward returns the words next to the logits."""
import torch
from torch import nn

VOCAB = ["<blank>", "a", "b", "c"]


class Recognizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, len(VOCAB))

    def forward(self, x):
        logits = self.head(x)
        best = logits.argmax(-1)
        words = ["".join(VOCAB[i] for i in row if i) for row in best.tolist()]
        return logits, words


def make_model():
    torch.manual_seed(0)
    return Recognizer().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 5, 8),)
