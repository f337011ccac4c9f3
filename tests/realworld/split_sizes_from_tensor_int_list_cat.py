"""A model that takes a tensor of split sizes next to the data, turns it into a Python list with
`[int(s) for s in splits]`, splits `x` with `torch.split(x, splits)` and concatenates the pieces back;
the report's ONNX model (exported with `splits` as a dynamic input) cannot be used by onnxruntime, and the
traced variant only "works" because the split sizes are frozen to the export-time values.

Source: https://github.com/pytorch/pytorch/issues/72498
"""
import torch

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "x_len"}, "splits": {0: "num_splits"}}
BLIND = "domains-32"


class Model(torch.nn.Module):

    def forward(self, x, splits):

        splits = [int(s) for s in splits]
        outputs = []
        for xi in torch.split(x, splits):
            outputs += [xi]

        outputs = torch.cat(outputs)
        return outputs


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(7), torch.tensor([3, 4]))


def other_inputs():
    return [(torch.randn(9), torch.tensor([2, 3, 4])),
            (torch.randn(5), torch.tensor([5]))]


def probe_inputs():
    return other_inputs()
