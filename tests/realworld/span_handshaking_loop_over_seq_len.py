"""Span-extraction head (TPLinker-style handshaking): `for ind in range(seq_len)` with an nn.Linear inside builds
the pair representations step by step over the sequence length; the user asks how to export it since tracing
unrolls the loop to the export-time length (maintainers: needs torch.jit.script control flow).

Source: https://github.com/pytorch/pytorch/issues/59870
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"seq_hiddens": {0: "batch", 1: "seq_len"}}
BLIND = "domains-6"


class Demo(nn.Module):
    def __init__(self, hidden_size, max_span_len):
        super().__init__()
        self.max_span_len = max_span_len
        self.fc = nn.Linear(hidden_size * 2, hidden_size)

    def forward(self, seq_hiddens):
        '''
        seq_hiddens: (batch_size, seq_len, hidden_size)
        '''
        seq_len = seq_hiddens.size()[1]

        hiddens_list = []
        for ind in range(seq_len):
            hidden_each_step = seq_hiddens[:, ind, :]
            a = seq_hiddens[:, ind:ind + self.max_span_len, :]
            b = hidden_each_step[:, None, :].repeat(1, a.shape[1], 1)

            tmp = torch.cat([a, b], dim=-1)
            tmp = torch.tanh(self.fc(tmp))
            hiddens_list.append(tmp)

        output = torch.cat(hiddens_list, dim=1)
        return output


def make_model():
    return Demo(hidden_size=16, max_span_len=4).eval()


def example_inputs():
    return (torch.randn(2, 9, 16),)


def other_inputs():
    return [(torch.randn(3, 13, 16),), (torch.randn(1, 5, 16),)]


def probe_inputs():
    return other_inputs()
