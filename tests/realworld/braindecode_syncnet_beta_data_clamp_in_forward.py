"""braindecode's SyncNet EEG classifier builds its oscillatory conv kernels from parameters in forward
and, after the conv, keeps its decay parameter non-negative with `self.beta.data.clamp_(min=0)` inside
forward; torch.export fails with "We found a fake tensor in the exported program constant's list", so
PR #919 ("Fix fake tensor issue") put SyncNet on the test suite's not-exportable list with that reason.
The model is SyncNet.forward as in that commit (einops Rearrange written as unsqueeze; numpy arange as
torch.arange in __init__).

Source: https://github.com/braindecode/braindecode/pull/919
"""
from math import ceil

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-77"


class SyncNet(nn.Module):
    def __init__(self, n_chans=8, n_times=400, n_outputs=4, num_filters=1, filter_width=40, pool_size=40,
                 activation=nn.ReLU, ampli_init_values=(-0.05, 0.05), omega_init_values=(0.0, 1.0),
                 beta_init_values=(0.0, 0.05), phase_init_values=(0.0, 0.05)):
        super().__init__()
        self.n_chans = n_chans
        self.n_times = n_times
        self.n_outputs = n_outputs
        self.num_filters = num_filters
        self.filter_width = filter_width
        self.pool_size = pool_size
        self.activation = activation()

        self.amplitude = nn.Parameter(torch.FloatTensor(1, 1, self.n_chans, self.num_filters).uniform_(
            ampli_init_values[0], ampli_init_values[1]))
        self.omega = nn.Parameter(torch.FloatTensor(1, 1, 1, self.num_filters).uniform_(
            omega_init_values[0], omega_init_values[1]))
        self.bias = nn.Parameter(torch.zeros(self.num_filters))
        self.classifier_input_size = int(ceil(float(self.n_times) / float(self.pool_size)) * self.num_filters)
        if self.filter_width % 2 == 0:
            t_range = torch.arange(-int(self.filter_width / 2), int(self.filter_width / 2))
        else:
            t_range = torch.arange(-int((self.filter_width - 1) / 2), int((self.filter_width - 1) / 2) + 1)
        t_np = t_range.reshape(1, self.filter_width, 1, 1)
        self.t = nn.Parameter(torch.FloatTensor(t_np.float()))
        self.phi_ini = nn.Parameter(torch.FloatTensor(1, 1, self.n_chans, self.num_filters).normal_(
            beta_init_values[0], beta_init_values[1]))
        self.beta = nn.Parameter(torch.FloatTensor(1, 1, 1, self.num_filters).uniform_(
            phase_init_values[0], phase_init_values[1]))

        P = filter_width - 2
        self.padding = (P // 2, P // 2 + 1) if P % 2 == 0 else (P // 2, P // 2)
        self.pad_input = nn.ConstantPad1d(self.padding, 0.0)
        self.pad_res = nn.ConstantPad1d(self.padding, 0.0)
        self.pool = nn.MaxPool2d((1, self.pool_size), stride=(1, self.pool_size))
        self.final_layer = nn.Linear(self.classifier_input_size, self.n_outputs)

    def forward(self, x):
        x = x.unsqueeze(2)  # "batch ch time -> batch ch 1 time"

        W_osc = self.amplitude * torch.cos(self.t * self.omega + self.phi_ini)
        t_squared = torch.pow(self.t, 2)
        t_squared_beta = t_squared * self.beta
        W_decay = torch.exp(-t_squared_beta)
        W = W_osc * W_decay
        W = W.view(self.num_filters, self.n_chans, 1, self.filter_width)

        x_padded = self.pad_input(x.float())
        res = F.conv2d(x_padded, W.float(), bias=self.bias, stride=1)
        res_padded = self.pad_res(res)
        res_pooled = self.pool(res_padded)
        res_flat = res_pooled.view(-1, self.classifier_input_size)

        # Ensure beta remains non-negative
        self.beta.data.clamp_(min=0)

        out = self.activation(res_flat)
        out = self.final_layer(out)
        return out


def make_model():
    return SyncNet().eval()


def example_inputs():
    return (torch.randn(2, 8, 400),)


def other_inputs():
    return [(torch.randn(5, 8, 400),), (torch.randn(1, 8, 400),)]


def probe_inputs():
    return other_inputs()
