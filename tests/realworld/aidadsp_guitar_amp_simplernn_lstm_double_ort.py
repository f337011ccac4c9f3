"""Aida DSP's Automated-GuitarAmpModelling exports its CoreAudioML `SimpleRNN` guitar-amp model (one nn.LSTM over
(samples, 1, 1) audio, then a Linear) to ONNX and checks it in onnxruntime; the export script keeps the model and
input in float32 because running it in double fails ("Onnx: LSTM operator does not support double yet" next to the
commented-out `torch_model.double()` / `np.float64(x)`): onnxruntime's LSTM kernel has no float64 implementation.

Source: https://github.com/MaxPayne86/Automated-GuitarAmpModelling/blob/6065a0118071852ae5ab94964cc89cdc13491cb5/modelToOnnx.py
"""
import torch
import torch.nn as nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch_size"}}   # the script's dynamic_axes: {'input': {0: 'batch_size'}} (audio samples)
BLIND = "operators-59"


def wrapperargs(func, args):
    return func(*args)


class SimpleRNN(nn.Module):
    """
    A simple RNN class that consists of a single recurrent unit of type LSTM, GRU or Elman, followed by a fully connected
    layer
    """
    def __init__(self, input_size=1, output_size=1, unit_type="LSTM", hidden_size=32, skip=1, bias_fl=True,
                 num_layers=1):
        super(SimpleRNN, self).__init__()
        self.input_size = input_size
        self.output_size = output_size
        self.rec = wrapperargs(getattr(nn, unit_type), [input_size, hidden_size, num_layers])
        self.lin = nn.Linear(hidden_size, output_size, bias=bias_fl)
        self.bias_fl = bias_fl
        self.skip = skip
        self.save_state = True
        self.hidden = None

    def forward(self, x, hidden=None):
        if self.skip > 0:
            # save the residual for the skip connection
            res = x[:, :, 0:self.skip]
            if(hidden):
                x, self.hidden = self.rec(x, hidden)
                return ((self.lin(x) + res), self.hidden)
            else:
                x, self.hidden = self.rec(x, self.hidden)
                return self.lin(x) + res
        else:
            if(hidden):
                x, self.hidden = self.rec(x, hidden)
                return (self.lin(x), self.hidden)
            else:
                x, self.hidden = self.rec(x, self.hidden)
                return self.lin(x)

    # changes the hidden state to None, causing pytorch to create an all-zero hidden state when the rec unit is called
    def reset_hidden(self):
        self.hidden = None


def make_model():
    torch_model = SimpleRNN(input_size=1, output_size=1, unit_type="LSTM", hidden_size=16, skip=1)
    torch_model.skip = 0  # We need to assure there is no skip param involved for this test
    torch_model.reset_hidden()
    torch_model.eval()  # Set the model to inference mode
    torch_model.double()  # the line the script had to comment out
    return torch_model


def example_inputs():
    return (torch.rand(2048, 1, 1, dtype=torch.float64) * 2 - 1,)


def other_inputs():
    return [(torch.rand(1000, 1, 1, dtype=torch.float64) * 2 - 1,),
            (torch.rand(333, 1, 1, dtype=torch.float64) * 2 - 1,)]


def probe_inputs():
    return other_inputs()
