"""kraken VGSL text-line recognizer (`TorchVGSLModel.forward(x, seq_lens)`, a `MultiParamSequential` of
ActConv2D / MaxPool / Reshape / TransposedSummarizingRNN / LinSoftmax layers) carries the per-line widths
`seq_len` through every layer: the conv and pool layers recompute them with `torch.floor(...)`, the BiLSTM packs the
padded batch with `pack_padded_sequence(inputs, seq_len.cpu(), ...)`, unpacks it, and raises if
`seq_len.max() > o.shape[2]`. The maintainer answers the ONNX request that ONNX "doesn't play well with variable
shape tensors as are needed for our text recognition models" (batch and line width vary, lengths come as data).

Source: https://github.com/mittagessen/kraken/issues/614
"""
from typing import Optional

import torch
from torch.nn import Module, Sequential
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 3: "width"}, "seq_lens": {0: "batch"}}
BLIND = "domains-70"


class MultiParamSequential(Sequential):
    def forward(self, *inputs, output_shape: Optional[tuple[int, int]] = None):
        modules = self._modules.values()
        i = 0
        for module in modules:
            if isinstance(inputs, tuple):
                inputs = module(*inputs, output_shape=output_shape if i == len(modules) - 1 else None)
            else:
                inputs = module(inputs, output_shape=output_shape if i == len(modules) - 1 else None)
            i += 1
        return inputs


class ActConv2D(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, nl='r', dilation=(1, 1)):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.dilation = dilation
        self.padding = tuple((dilation[i] * (kernel_size[i] - 1)) // 2 for i in range(2))
        self.nl = torch.relu
        self.co = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                                  padding=self.padding, dilation=self.dilation)

    def forward(self, inputs, seq_len: Optional[torch.Tensor] = None, output_shape=None):
        o = self.nl(self.co(inputs))
        if seq_len is not None:
            seq_len = torch.clamp(torch.floor(
                (seq_len + 2 * self.padding[1] - self.dilation[1] * (self.kernel_size[1] - 1) - 1).float() / self.stride[1] + 1), min=1).int()
        return o, seq_len


class MaxPool(Module):
    def __init__(self, kernel_size, stride):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.layer = torch.nn.MaxPool2d(kernel_size, stride)

    def forward(self, inputs, seq_len: Optional[torch.Tensor] = None, output_shape=None):
        o = self.layer(inputs)
        if seq_len is not None:
            seq_len = torch.floor((seq_len - (self.kernel_size[1] - 1) - 1).float() / self.stride[1] + 1).int()
        return o, seq_len


class Reshape(Module):
    def __init__(self, src_dim, part_a, part_b, high, low):
        super().__init__()
        self.src_dim, self.part_a, self.part_b, self.high, self.low = src_dim, part_a, part_b, high, low

    def forward(self, input, seq_len: Optional[torch.Tensor] = None, output_shape=None):
        initial_len = input.shape[3]
        input = input.reshape(input.shape[:self.src_dim] + (self.part_a, self.part_b) + input.shape[self.src_dim + 1:])
        dest = self.low
        src_dim = self.src_dim
        if self.high != src_dim:
            dest = self.high
        else:
            src_dim += 1
        perm = list(range(len(input.shape)))
        step = 1 if dest > src_dim else -1
        for x in range(src_dim, dest, step):
            perm[x], perm[x + step] = perm[x + step], perm[x]
        input = input.permute(perm)
        o = input.reshape(input.shape[:dest] + (input.shape[dest] * input.shape[dest + 1],) + input.shape[dest + 2:])
        if seq_len is not None:
            seq_len = (seq_len * (float(initial_len) / o.shape[3])).int()
        return o, seq_len


class TransposedSummarizingRNN(Module):
    def __init__(self, input_size, hidden_size, direction='b', transpose=True, summarize=True):
        super().__init__()
        self.transpose = transpose
        self.summarize = summarize
        self.bidi = direction == 'b'
        self.output_size = hidden_size if not self.bidi else 2 * hidden_size
        self.layer = torch.nn.LSTM(input_size, hidden_size, bidirectional=self.bidi, batch_first=True)

    def forward(self, inputs, seq_len: Optional[torch.Tensor] = None, output_shape=None):
        # NCHW -> HNWC
        inputs = inputs.permute(2, 0, 3, 1)
        if self.transpose:
            inputs = inputs.transpose(0, 2)
        siz = inputs.size()
        inputs = inputs.contiguous().view(-1, siz[2], siz[3])
        if not self.transpose and seq_len is not None:
            if inputs.shape[0] != len(seq_len):
                raise Exception(f'Height has to be 1 (not f{inputs.shape[0]} for batching/multi-sequences.')
            seq_len = seq_len.cpu()
            inputs = pack_padded_sequence(inputs, seq_len, batch_first=True, enforce_sorted=False)
        o, _ = self.layer(inputs)
        if not self.transpose and seq_len is not None:
            o, seq_len = pad_packed_sequence(o, batch_first=True)
        o = o.view(siz[0], siz[1], siz[2], self.output_size)
        if self.summarize:
            o = o[:, :, -1, :].unsqueeze(2)
        if self.transpose:
            o = o.transpose(0, 2)
        if seq_len is not None and seq_len.max() > o.shape[2]:
            raise Exception('Do not use summarizing layer in x-axis with batching/sequences')
        return o.permute(1, 3, 0, 2), seq_len


class LinSoftmax(Module):
    def __init__(self, input_size, output_size):
        super().__init__()
        self.lin = torch.nn.Linear(input_size, output_size)

    def forward(self, inputs, seq_len: Optional[torch.Tensor] = None, output_shape=None):
        inputs = inputs.transpose(1, 3)
        o = self.lin(inputs)
        return o.transpose(1, 3), seq_len


class TorchVGSLModel(Module):
    """[1,32,0,1 Cr3,3,16 Mp2,2 Cr3,3,32 Mp2,2 S1(1x0)1,3 Lbx32 O1c20] built by hand."""

    def __init__(self):
        super().__init__()
        self.nn = MultiParamSequential(
            ActConv2D(1, 16, (3, 3), (1, 1)),
            MaxPool((2, 2), (2, 2)),
            ActConv2D(16, 32, (3, 3), (1, 1)),
            MaxPool((2, 2), (2, 2)),
            Reshape(2, 1, -1, 2, 1),
            TransposedSummarizingRNN(32 * 8, 32, 'b', transpose=False, summarize=False),
            LinSoftmax(64, 20),
        )

    def forward(self, x: torch.Tensor, seq_lens: Optional[torch.Tensor] = None):
        return self.nn(x, seq_lens)


def make_model():
    return TorchVGSLModel().eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 200), torch.tensor([200, 140]))


def other_inputs():
    return [(torch.randn(3, 1, 32, 160), torch.tensor([96, 160, 52])),
            (torch.randn(1, 1, 32, 88), torch.tensor([88]))]


def probe_inputs():
    return other_inputs()
