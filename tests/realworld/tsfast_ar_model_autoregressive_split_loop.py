"""tsfast (fastai-style system identification / time series) `AR_Model` wrapping a `SimpleRNN`: in autoregressive
mode it walks the input one time step at a time (`for u_in in inp.split(1, dim=1)`), feeding the previous
prediction and the GRU state back in. tsfast's ONNX export module refuses such models outright
("AR_Model (autoregressive) cannot be exported to ONNX", "autoregressive loops can't be exported to ONNX"),
since the loop over the sequence length does not survive export with a dynamic `seq_len` axis.

Source: https://github.com/daniel-om-weber/tsfast/commit/a02e3d20a6b2e965c6bb2fe3dbadbde83e45a3ab
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"inp": {0: "batch", 1: "seq_len"}}
BLIND = "domains-45"


def to_detach(b, cpu=True, gather=True):
    return b.detach()


class SeqLinear(nn.Module):
    def __init__(self, input_size, output_size, hidden_size=100, hidden_layer=1, act=nn.LeakyReLU, batch_first=True):
        super().__init__()
        self.batch_first = batch_first

        def conv_act(inp, out):
            return nn.Sequential(nn.Conv1d(inp, out, 1), act())

        if hidden_layer < 1:
            self.lin = nn.Conv1d(input_size, output_size, 1)
        else:
            self.lin = nn.Sequential(
                conv_act(input_size, hidden_size),
                *[conv_act(hidden_size, hidden_size) for _ in range(hidden_layer - 1)],
                nn.Conv1d(hidden_size, output_size, 1),
            )

    def forward(self, x):
        if not self.batch_first:
            x = x.transpose(0, 1)
        out = self.lin(x.transpose(1, 2)).transpose(1, 2)
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, rnn_type="gru"):
        super().__init__()
        self.num_layers = num_layers
        self.rnns = nn.ModuleList(
            [nn.GRU(input_size if i == 0 else hidden_size, hidden_size, 1, batch_first=True) for i in range(num_layers)]
        )

    def forward(self, inp, h_init=None):
        bs, seq_len, _ = inp.shape
        r_input = inp
        new_hidden = []
        for layer_idx, rnn in enumerate(self.rnns):
            r_output, h = rnn(r_input.contiguous(), h_init[layer_idx] if h_init is not None else None)
            new_hidden.append(h)
            r_input = r_output
        return r_output, new_hidden


class SimpleRNN(nn.Module):
    def __init__(self, input_size, output_size, num_layers=1, hidden_size=100, linear_layers=0, return_state=False):
        super().__init__()
        self.return_state = return_state
        self.rnn = RNN(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers)
        self.final = SeqLinear(hidden_size, output_size, hidden_size=hidden_size, hidden_layer=linear_layers, act=nn.LeakyReLU)

    def forward(self, x, h_init=None):
        out, h = self.rnn(x, h_init)
        out = self.final(out)
        return out if not self.return_state else (out, h)


class AR_Model(nn.Module):
    def __init__(self, model, ar=True, stateful=False, model_has_state=False, return_state=False, out_sz=None):
        super().__init__()
        self.model = model
        self.ar = ar
        self.stateful = stateful
        self.model_has_state = model_has_state
        self.return_state = return_state
        self.out_sz = out_sz
        if return_state and not model_has_state:
            raise ValueError("return_state=True requires model_has_state=True")
        self.y_init = None

    def forward(self, inp, h_init=None, ar=None):
        if ar is None:
            ar = self.ar

        if ar:  # autoregressive mode
            y_e = []

            y_next = (
                self.y_init if self.y_init is not None else torch.zeros(inp.shape[0], 1, self.out_sz).to(inp.device)
            )

            # two loops in the if clause to avoid the if inside the loop
            if self.model_has_state:
                h0 = h_init
                for u_in in inp.split(1, dim=1):
                    x = torch.cat((u_in, y_next), dim=2)
                    y_next, h0 = self.model(x, h0)
                    y_e.append(y_next)
            else:
                for u_in in inp.split(1, dim=1):
                    x = torch.cat((u_in, y_next), dim=2)
                    y_next = self.model(x)
                    y_e.append(y_next)

            y_e = torch.cat(y_e, dim=1)

        else:  # teacherforcing mode
            if self.model_has_state:
                y_e, h0 = self.model(inp, h_init)
            else:
                y_e = self.model(inp)

        if self.stateful:
            self.y_init = to_detach(y_e[:, -1:], cpu=False, gather=False)

        return y_e if not self.return_state else (y_e, h0)


def make_model():
    n_u, n_y = 2, 1
    return AR_Model(
        SimpleRNN(n_u + n_y, n_y, hidden_size=16, return_state=True), ar=True, model_has_state=True, out_sz=n_y
    ).eval()


def example_inputs():
    return (torch.randn(2, 12, 2),)


def other_inputs():
    return [(torch.randn(3, 20, 2),), (torch.randn(1, 7, 2),)]


def probe_inputs():
    return other_inputs()
