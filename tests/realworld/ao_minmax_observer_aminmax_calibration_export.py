"""A model prepared for post-training quantization (observers inserted after its Linear layers) is
exported as is: the MinMaxObserver's forward calls torch.aminmax(x) (torch/ao/quantization/observer.py),
which the ONNX exporter could not convert ("Support exporting torch.aminmax. One of the use case is
exporting fake quantized models. The observer calls ...aminmax").

Source: https://github.com/pytorch/pytorch/pull/75714
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "sequence"}}
BLIND = "operators-15"


class MinMaxObserver(nn.Module):
    # forward copied from torch.ao.quantization.observer.MinMaxObserver
    def __init__(self, dtype=torch.quint8):
        super().__init__()
        self.dtype = dtype
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))

    def forward(self, x_orig):
        r"""Records the running minimum and maximum of ``x``."""
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()  # avoid keeping autograd tape
        x = x.to(self.min_val.dtype)
        min_val_cur, max_val_cur = torch.aminmax(x)
        min_val = torch.min(min_val_cur, self.min_val)
        max_val = torch.max(max_val_cur, self.max_val)
        self.min_val.copy_(min_val)
        self.max_val.copy_(max_val)
        return x_orig


class ObservedFFN(nn.Module):
    def __init__(self, d_model=32, d_ff=64):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc1_activation_post_process = MinMaxObserver()
        self.act = nn.GELU()
        self.fc2 = nn.Linear(d_ff, d_model)
        self.fc2_activation_post_process = MinMaxObserver()

    def forward(self, x):
        x = self.fc1_activation_post_process(self.fc1(x))
        x = self.act(x)
        return self.fc2_activation_post_process(self.fc2(x))


def make_model():
    return ObservedFFN().eval()


def example_inputs():
    return (torch.randn(2, 10, 32),)


def other_inputs():
    return [(torch.randn(3, 16, 32),), (torch.randn(1, 5, 32),)]


def probe_inputs():
    return other_inputs()
