"""CRNN text recognizer that also returns the CTC sequence length as
`preds_size = torch.IntTensor([preds.size(0)])`; the exported ONNX output is a constant (TensorRT
then fails on it: "Assertion failed: _importer_ctx.tensors().at(output.name()).is_tensor()").

Source: https://github.com/NVIDIA/TensorRT/issues/474
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"input": {0: "batch", 3: "width"}}
BLIND = "domains-16"


class BidirectionalLSTM(nn.Module):
    def __init__(self, nIn, nHidden, nOut):
        super(BidirectionalLSTM, self).__init__()
        self.rnn = nn.LSTM(nIn, nHidden, bidirectional=True)
        self.embedding = nn.Linear(nHidden * 2, nOut)

    def forward(self, input):
        recurrent, _ = self.rnn(input)
        T, b, h = recurrent.size()
        t_rec = recurrent.view(T * b, h)
        output = self.embedding(t_rec)
        output = output.view(T, b, -1)
        return output


class CRNN(nn.Module):
    def __init__(self, nc=1, nclass=11, nh=16):
        super(CRNN, self).__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(nc, 8, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 16, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(16, 16, (8, 1), 1, 0), nn.ReLU(True),
        )
        self.rnn = BidirectionalLSTM(16, nh, nclass)

    def forward(self, input):
        conv = self.cnn(input)
        b, c, h, w = conv.size()
        conv = conv.squeeze(2)
        conv = conv.permute(2, 0, 1)  # [w, b, c]
        preds = self.rnn(conv)
        preds = preds.log_softmax(2)
        #preds.size(0) is constant
        preds_size = torch.IntTensor([preds.size(0)])
        return preds, preds_size


def make_model():
    return CRNN()


def example_inputs():
    return (torch.randn(2, 1, 32, 64),)


def other_inputs():
    return [(torch.randn(3, 1, 32, 100),), (torch.randn(1, 1, 32, 40),)]


def probe_inputs():
    return other_inputs()
