"""BeyondML's pruned multitask layer `SparseMultiDense` keeps each task's weight as
`torch.Tensor(weight[i]).to_sparse()` and runs `torch.sparse.mm(self.w[i].t(), inputs[i].t()).t()`
plus a `.to_dense()` bias; the report says these sparse layers work for inference in PyTorch but
conversion to ONNX fails.

Source: https://github.com/Beyond-ML-Labs/BeyondML/issues/8
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-29"


class SparseMultiDense(torch.nn.Module):
    """
    Sparse implementation of the Multi-Fully-Connected layer
    """

    def __init__(
            self,
            weight,
            bias
    ):
        super().__init__()
        self.w = {
            i: torch.Tensor(weight[i]).to_sparse() for i in range(weight.shape[0])
        }
        self.b = {
            i: torch.Tensor(bias[i]).to_sparse() for i in range(bias.shape[0])
        }

    def forward(self, inputs):
        outputs = []
        for i in range(len(inputs)):
            out = torch.sparse.mm(self.w[i].t(), inputs[i].t()).t()
            out = torch.add(out, self.b[i].to_dense())
            outputs.append(out)
        return outputs


class PrunedMultitaskHead(torch.nn.Module):
    def __init__(self, in_features=16, out_features=8, num_tasks=2):
        super().__init__()
        self.num_tasks = num_tasks
        self.shared = torch.nn.Linear(in_features, in_features)
        # pruned weights: most entries are zero, which is why the sparse layer is used
        weight = torch.randn(num_tasks, in_features, out_features)
        weight = weight * (torch.rand_like(weight) > 0.7)
        bias = torch.randn(num_tasks, out_features) * (torch.rand(num_tasks, out_features) > 0.5)
        self.heads = SparseMultiDense(weight, bias)

    def forward(self, x):
        h = torch.relu(self.shared(x))
        outputs = self.heads([h] * self.num_tasks)
        return tuple(outputs)


def make_model():
    return PrunedMultitaskHead()


def example_inputs():
    return (torch.randn(4, 16),)


def other_inputs():
    return [(torch.randn(7, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
