"""ST-GCN skeleton action recognition (mmskeleton ST_GCN_18, spatial temporal graph convolutions with an
einsum over the skeleton adjacency): the global pooling is `F.avg_pool2d(x, x.size()[2:])`, a kernel
taken from the feature map's (frames, joints) size; torch.onnx.export fails with "Failed to export an
ONNX attribute 'onnx::Gather', since it's not constant, please try to make things (e.g., kernel size)
static".

Source: https://github.com/open-mmlab/mmskeleton/issues/415
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "domains-9"


def get_hop_distance(num_node, edge, max_hop=1):
    A = np.zeros((num_node, num_node))
    for i, j in edge:
        A[j, i] = 1
        A[i, j] = 1
    hop_dis = np.zeros((num_node, num_node)) + np.inf
    transfer_mat = [np.linalg.matrix_power(A, d) for d in range(max_hop + 1)]
    arrive_mat = (np.stack(transfer_mat) > 0)
    for d in range(max_hop, -1, -1):
        hop_dis[arrive_mat[d]] = d
    return hop_dis


def normalize_digraph(A):
    Dl = np.sum(A, 0)
    num_node = A.shape[0]
    Dn = np.zeros((num_node, num_node))
    for i in range(num_node):
        if Dl[i] > 0:
            Dn[i, i] = Dl[i]**(-1)
    return np.dot(A, Dn)


class Graph():
    """openpose layout, 'distance' strategy (trimmed from mmskeleton.ops.st_gcn.graph)."""

    def __init__(self, max_hop=1):
        self.num_node = 18
        neighbor_link = [(4, 3), (3, 2), (7, 6), (6, 5), (13, 12), (12, 11), (10, 9), (9, 8),
                         (11, 5), (8, 2), (5, 1), (2, 1), (0, 1), (15, 0), (14, 0), (17, 15), (16, 14)]
        self.edge = [(i, i) for i in range(self.num_node)] + neighbor_link
        self.hop_dis = get_hop_distance(self.num_node, self.edge, max_hop=max_hop)
        adjacency = np.zeros((self.num_node, self.num_node))
        for hop in range(0, max_hop + 1):
            adjacency[self.hop_dis == hop] = 1
        normalize_adjacency = normalize_digraph(adjacency)
        A = np.zeros((max_hop + 1, self.num_node, self.num_node))
        for i, hop in enumerate(range(0, max_hop + 1)):
            A[i][self.hop_dis == hop] = normalize_adjacency[self.hop_dis == hop]
        self.A = A


class ConvTemporalGraphical(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.kernel_size = kernel_size
        self.conv = nn.Conv2d(in_channels, out_channels * kernel_size, kernel_size=(1, 1))

    def forward(self, x, A):
        assert A.size(0) == self.kernel_size
        x = self.conv(x)
        n, kc, t, v = x.size()
        x = x.view(n, self.kernel_size, kc // self.kernel_size, t, v)
        x = torch.einsum('nkctv,kvw->nctw', (x, A))
        return x.contiguous(), A


class st_gcn_block(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, residual=True):
        super().__init__()
        padding = ((kernel_size[0] - 1) // 2, 0)
        self.gcn = ConvTemporalGraphical(in_channels, out_channels, kernel_size[1])
        self.tcn = nn.Sequential(
            nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, (kernel_size[0], 1), (stride, 1), padding),
            nn.BatchNorm2d(out_channels))
        if not residual:
            self.residual = lambda x: 0
        elif (in_channels == out_channels) and (stride == 1):
            self.residual = lambda x: x
        else:
            self.residual = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=(stride, 1)),
                nn.BatchNorm2d(out_channels))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x, A):
        res = self.residual(x)
        x, A = self.gcn(x, A)
        x = self.tcn(x) + res
        return self.relu(x), A


class ST_GCN_18(nn.Module):
    def __init__(self, in_channels=3, num_class=10):
        super().__init__()
        graph = Graph()   # kept as self.graph upstream; torch's legacy exporter reads model.graph
        A = torch.tensor(graph.A, dtype=torch.float32, requires_grad=False)
        self.register_buffer('A', A)
        kernel_size = (9, A.size(0))
        self.data_bn = nn.BatchNorm1d(in_channels * A.size(1))
        self.st_gcn_networks = nn.ModuleList((
            st_gcn_block(in_channels, 16, kernel_size, 1, residual=False),
            st_gcn_block(16, 16, kernel_size, 1),
            st_gcn_block(16, 32, kernel_size, 2),
        ))
        self.edge_importance = nn.ParameterList([nn.Parameter(torch.ones(self.A.size()))
                                                 for i in self.st_gcn_networks])
        self.fcn = nn.Conv2d(32, num_class, kernel_size=1)

    def forward(self, x):
        # data normalization
        N, C, T, V, M = x.size()
        x = x.permute(0, 4, 3, 1, 2).contiguous()
        x = x.view(N * M, V * C, T)
        x = self.data_bn(x)
        x = x.view(N, M, V, C, T)
        x = x.permute(0, 1, 3, 4, 2).contiguous()
        x = x.view(N * M, C, T, V)

        # forward
        for gcn, importance in zip(self.st_gcn_networks, self.edge_importance):
            x, _ = gcn(x, self.A * importance)

        # global pooling
        x = F.avg_pool2d(x, x.size()[2:])
        x = x.view(N, M, -1, 1, 1).mean(dim=1)

        # prediction
        x = self.fcn(x)
        x = x.view(x.size(0), -1)
        return x


def make_model():
    return ST_GCN_18().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 18, 2),)   # (N, C, T, V, M)


def other_inputs():
    return [(torch.randn(3, 3, 48, 18, 2),), (torch.randn(1, 3, 20, 18, 2),)]


def probe_inputs():
    return other_inputs()
