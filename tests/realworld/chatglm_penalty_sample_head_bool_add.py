"""LLM sampling head exported as its own ONNX graph (sophgo LLM-TPU ChatGLM3 export script): top-k, then
temperature and top-p, where the "keep at least min_tokens_to_keep" rule is written as
`mask = mask + self.keep_matrix` on two bool tensors. The exporter warns that the model "failed ONNX
shape inference ... (op_type:Add): A typestr: T, has unsupported type: tensor(bool)" and the exported
model gives no reply at run time. The repeat-penalty scatter that precedes it is trimmed.

Source: https://github.com/sophgo/LLM-TPU/issues/16
"""
import torch

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"m_logits": {0: "batch"}}
BLIND = "operators-5"

VOCAB = 1000


# refs:https://github.com/huggingface/transformers/blob/main/src/transformers/generation/logits_process.py
class PenaltySampleHead(torch.nn.Module):

    def __init__(self, top_k = 50, min_tokens_to_keep = 5):
        super().__init__()
        self.top_k = top_k
        self.min_tokens_to_keep = min_tokens_to_keep
        self.keep_matrix = torch.zeros((1, self.top_k), dtype=torch.bool)
        self.keep_matrix[0, :self.min_tokens_to_keep] = True

    def forward(self, m_logits, top_p, temperature):
        # top_k
        logits, token = torch.topk(m_logits.float(), self.top_k)

        # temperature
        logits = logits / temperature

        # top_p
        cumulative_probs = logits.softmax(dim=1).cumsum(dim=1)
        mask = cumulative_probs < top_p
        mask = mask + self.keep_matrix
        filtered_logits = torch.where(mask, logits, torch.FloatTensor([-1000.]))
        probs = filtered_logits.softmax(dim=1)
        return probs, token


def make_model():
    return PenaltySampleHead()


def _inputs(b):
    return (torch.randn(b, VOCAB) * 3, torch.tensor([0.8]), torch.tensor([0.7]))


def example_inputs():
    return _inputs(1)


def other_inputs():
    return [_inputs(3), _inputs(2)]


def probe_inputs():
    return other_inputs()
