"""pytorch_tabular's TabNet backbone (pytorch_tabnet's TabNetNoEmbeddings) is listed as incompatible with ONNX
export (`save_model_for_inference(kind="onnx")` is to raise NotImplementedError for TabNet/NODE/GATE). Its Ghost
Batch Normalization splits the batch with `x.chunk(int(np.ceil(x.shape[0] / self.virtual_batch_size)), 0)`: the
number of chunks is NumPy math on the batch size, so a dynamic batch cannot be exported as such.

Source: https://github.com/pytorch-tabular/pytorch_tabular/issues/654
"""
import numpy as np
import torch
from torch.nn import BatchNorm1d, Dropout, Linear, ReLU

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-28"


class GBN(torch.nn.Module):
    """
        Ghost Batch Normalization
        https://arxiv.org/abs/1705.08741
    """

    def __init__(self, input_dim, virtual_batch_size=128, momentum=0.01):
        super(GBN, self).__init__()

        self.input_dim = input_dim
        self.virtual_batch_size = virtual_batch_size
        self.bn = BatchNorm1d(self.input_dim, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(int(np.ceil(x.shape[0] / self.virtual_batch_size)), 0)
        res = [self.bn(x_) for x_ in chunks]

        return torch.cat(res, dim=0)


class AttentiveTransformer(torch.nn.Module):
    def __init__(self, input_dim, output_dim, dropout, virtual_batch_size=128, momentum=0.02):
        super(AttentiveTransformer, self).__init__()
        self.fc = Linear(input_dim, output_dim, bias=False)
        self.bn = GBN(output_dim, virtual_batch_size=virtual_batch_size, momentum=momentum)
        self.dropout_layer = Dropout(dropout)
        self.selector = torch.sigmoid

    def forward(self, priors, processed_feat):
        x = self.bn(processed_feat)
        x = self.fc(x)
        x = self.dropout_layer(x)
        x = torch.mul(x, priors)
        x = self.selector(x)
        return x


class GLU_Layer(torch.nn.Module):
    def __init__(self, input_dim, output_dim, virtual_batch_size=128, momentum=0.02):
        super(GLU_Layer, self).__init__()
        self.output_dim = output_dim
        self.fc = Linear(input_dim, 2 * output_dim, bias=False)
        self.bn = GBN(2 * output_dim, virtual_batch_size=virtual_batch_size, momentum=momentum)

    def forward(self, x):
        x = self.fc(x)
        x = self.bn(x)
        out = torch.mul(x[:, :self.output_dim], torch.sigmoid(x[:, self.output_dim:]))
        return out


class TabNetNoEmbeddings(torch.nn.Module):
    def __init__(self, input_dim, output_dim, n_d=8, n_steps=3, gamma=1.3, virtual_batch_size=8):
        super(TabNetNoEmbeddings, self).__init__()
        self.n_steps = n_steps
        self.gamma = gamma
        self.initial_bn = BatchNorm1d(input_dim, momentum=0.01)
        self.initial_attention = AttentiveTransformer(input_dim, input_dim, 0., virtual_batch_size=virtual_batch_size)
        self.feat_transformers = torch.nn.ModuleList(
            [GLU_Layer(input_dim, n_d, virtual_batch_size=virtual_batch_size) for _ in range(n_steps)])
        self.att_transformers = torch.nn.ModuleList(
            [AttentiveTransformer(input_dim, input_dim, 0., virtual_batch_size=virtual_batch_size) for _ in range(n_steps)])
        self.final_mapping = Linear(n_d, output_dim, bias=False)

    def forward(self, x):
        res = 0
        initial_x = self.initial_bn(x)
        prior = torch.ones(x.shape).to(x.device)
        M = self.initial_attention(prior, x)
        for step in range(self.n_steps):
            prior = 1 - self.gamma * M
            masked_x = torch.mul(M, x)
            out = self.feat_transformers[step](masked_x)
            d = ReLU()(out)
            res = torch.add(res, d)
            M = self.att_transformers[step](prior, initial_x)
        return self.final_mapping(res)


def make_model():
    return TabNetNoEmbeddings(input_dim=10, output_dim=2).eval()


def example_inputs():
    return (torch.randn(20, 10),)


def other_inputs():
    return [(torch.randn(33, 10),), (torch.randn(5, 10),)]


def probe_inputs():
    return other_inputs()
