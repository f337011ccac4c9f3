"""Continual-inference streaming model: a `co.Conv1d` run one time step per call (`forward_step`), keeping
its running partial sums on the module between calls (`state_buffer` registered as a buffer, Python-int
`state_index` / `stride_index` attributes, `TensorPlaceholder` outputs while warming up); the ONNX-export PR had
to change the call mode and state indexes to tensors, make the conv state "tensor only" and pass the state in
and out of a purely functional `_forward_step` before such step models could be exported.

Source: https://github.com/LukasHedegaard/continual-inference/pull/52
"""
from typing import Tuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {}
BLIND = "domains-75"

State = Tuple[Tensor, int, int]


class TensorPlaceholder:
    shape: Tuple[int]

    def __init__(self, shape: Tuple[int] = tuple()):
        self.shape = shape

    def size(self):
        return self.shape

    def __len__(self):
        return 0


class Conv1d(nn.Conv1d):
    """continual/conv.py `_ConvCoNd` (zeros padding, Python forward_step) before the ONNX PR."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding)
        self._conv_func = F.conv1d
        self._input_len = 3
        self.input_shape_desciption = ("batch_size", "channel", "time")
        self.make_padding = torch.zeros_like
        self._step_padding = (self.kernel_size[0] - 1, *self.padding[1:])
        self._step_stride = (1, *self.stride[1:])

    def init_state(self, first_output: Tensor) -> State:
        padding = self.make_padding(first_output)
        state_buffer = padding.repeat(self.kernel_size[0] - 1, *[1 for _ in self.input_shape_desciption])
        state_index = 0
        stride_index = self.stride[0] - len(state_buffer) - 1 + self.padding[0]
        if not hasattr(self, "state_buffer"):
            self.register_buffer("state_buffer", state_buffer, persistent=False)
        return state_buffer, state_index, stride_index

    def get_state(self):
        if (
            hasattr(self, "state_buffer") and self.state_buffer is not None
            and hasattr(self, "state_index") and self.state_index is not None
            and hasattr(self, "stride_index") and self.stride_index is not None
        ):
            return (self.state_buffer, self.state_index, self.stride_index)

    def set_state(self, state: State):
        self.state_buffer, self.state_index, self.stride_index = state

    def forward_step(self, input: Tensor, update_state=True):
        state = self.get_state()
        output, state = self._forward_step(input, state)
        if update_state:
            self.set_state(state)
        return output

    def _forward_step(self, input: Tensor, prev_state: State) -> Tuple[Tensor, State]:
        # e.g. B, C -> B, C, 1
        x = input.unsqueeze(2).to(device=self.weight.device)
        x = self._conv_func(input=x, weight=self.weight, bias=None, stride=self._step_stride,
                            padding=self._step_padding, dilation=self.dilation, groups=self.groups)
        x_out, x_rest = x[:, :, 0], x[:, :, 1:]

        # Prepare previous state
        buffer, index, stride_index = prev_state or self.init_state(x_rest)

        tot = len(buffer)
        if stride_index == self.stride[0] - 1:
            x_out = x_out + (
                torch.sum(
                    buffer[torch.remainder(torch.arange(tot) + index, tot), :, :, torch.arange(tot - 1, -1, -1)],
                    dim=0,
                )
            )
            if self.bias is not None:
                x_out += self.bias[(None, slice(None), *(None for _ in range(self._input_len - 3)))]
        else:
            x_out = TensorPlaceholder(x_out.shape)

        # Update next state
        if self.kernel_size[0] > 1:
            next_buffer = buffer.clone() if self.training else buffer
            next_buffer[index] = x_rest
            next_index = (index + 1) % tot
        else:
            next_buffer = buffer
            next_index = index

        next_stride_index = stride_index + 1
        if next_stride_index > 0:
            next_stride_index = next_stride_index % self.stride[0]

        return x_out, (next_buffer, next_index, next_stride_index)


class StreamingKWS(nn.Module):
    """One audio-feature frame in, one class-score frame out; the conv keeps its own state between frames."""

    def __init__(self, n_feats=16, hidden=32, n_classes=4):
        super().__init__()
        self.conv = Conv1d(n_feats, hidden, kernel_size=5)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, frame):  # frame: (batch, n_feats)
        h = self.conv.forward_step(frame)
        return self.head(torch.relu(h))


def make_model():
    model = StreamingKWS().eval()
    with torch.no_grad():
        for _ in range(model.conv.kernel_size[0] - 1):  # warm up past the TensorPlaceholder steps
            model.conv.forward_step(torch.zeros(1, 16))
    return model


def example_inputs():
    return (torch.randn(1, 16),)


def other_inputs():
    return [(torch.randn(1, 16),), (torch.randn(1, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
