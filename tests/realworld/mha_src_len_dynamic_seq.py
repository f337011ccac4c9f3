"""Speech-enhancement style block applying `nn.MultiheadAttention` (seq-first) to a (time, batch, 1000) feature
sequence; the report says the exported ONNX keeps the example source length as a constant inside
multi_head_attention_forward, so inference with another number of frames fails.

Source: https://github.com/pytorch/pytorch/pull/135691
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_x": {0: "time"}}
BLIND = "domains-9"

export_shape = (249, 1, 1000)
test_shape = (150, 1, 1000)


class MyModule(nn.Module):
    def __init__(self):
        super(MyModule, self).__init__()
        self.hidden_size = 500
        self.num_heads = 4
        self.attention = nn.MultiheadAttention(
            embed_dim=2 * self.hidden_size, num_heads=self.num_heads
        )

    def forward(self, input_x):
        return self.attention(input_x, input_x, input_x)[0]


def make_model():
    return MyModule().eval()


def example_inputs():
    return (torch.randn(*export_shape),)


def other_inputs():
    return [(torch.randn(*test_shape),), (torch.randn(37, 1, 1000),)]


def probe_inputs():
    return other_inputs()
