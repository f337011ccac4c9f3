"""CFlow-AD anomaly detector (encoder + FrEIA conditional normalizing-flow decoders): the export
wrapper's forward splits the B*H*W feature vectors of each pool layer into fiber batches of N=256
with `FIB = E // self.N + int(E % self.N > 0)` and a Python `for f in range(FIB)` loop, and collects
the per-pixel log-likelihoods with `.tolist()` into Python lists it returns with the H/W lists;
torch.onnx.export fails ("only a graph dump happens").

Source: https://github.com/pytorch/pytorch/issues/90169
"""
import math
from types import SimpleNamespace

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-8"

c = SimpleNamespace(condition_vec=128, device=torch.device("cpu"), dec_arch="freia-cflow", pool_layers=3)
log_theta = torch.nn.LogSigmoid()
activation = {}
_GCONST_ = -0.9189385332046727  # ln(sqrt(2*pi))


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


def t2np(tensor):
    return tensor.cpu().data.numpy() if tensor is not None else None


def get_logp(C, z, logdet_J):
    logp = C * _GCONST_ - 0.5 * torch.sum(z ** 2, 1) + logdet_J
    return logp


def positionalencoding2d(D, H, W):
    if D % 4 != 0:
        raise ValueError("Cannot use sin/cos positional encoding with odd dimension (got dim={:d})".format(D))
    P = torch.zeros(D, H, W)
    D = D // 2
    div_term = torch.exp(torch.arange(0.0, D, 2) * -(math.log(1e4) / D))
    pos_w = torch.arange(0.0, W).unsqueeze(1)
    pos_h = torch.arange(0.0, H).unsqueeze(1)
    P[0:D:2, :, :] = torch.sin(pos_w * div_term).transpose(0, 1).unsqueeze(1).repeat(1, H, 1)
    P[1:D:2, :, :] = torch.cos(pos_w * div_term).transpose(0, 1).unsqueeze(1).repeat(1, H, 1)
    P[D::2, :, :] = torch.sin(pos_h * div_term).transpose(0, 1).unsqueeze(2).repeat(1, 1, W)
    P[D + 1::2, :, :] = torch.cos(pos_h * div_term).transpose(0, 1).unsqueeze(2).repeat(1, 1, W)
    return P


class CondCouplingBlock(nn.Module):
    # FrEIA AllInOneBlock (conditional affine coupling), the lines the decoder uses
    def __init__(self, dim, cond_dim, clamp=1.9):
        super().__init__()
        self.split = dim // 2
        self.clamp = clamp
        self.subnet = nn.Sequential(nn.Linear(self.split + cond_dim, 2 * dim), nn.ReLU(),
                                    nn.Linear(2 * dim, 2 * (dim - self.split)))

    def forward(self, x, c):
        x1, x2 = torch.split(x, [self.split, x.shape[1] - self.split], dim=1)
        a = self.subnet(torch.cat([x1, *c], 1)) * 0.1
        s, t = a.chunk(2, dim=1)
        s = self.clamp * torch.tanh(s / self.clamp)
        x2 = x2 * torch.exp(s) + t
        return torch.cat((x1, x2), 1), torch.sum(s, dim=1)


class SequenceINN(nn.Module):
    def __init__(self, dim, cond_dim, n_blocks=2):
        super().__init__()
        self.blocks = nn.ModuleList([CondCouplingBlock(dim, cond_dim) for _ in range(n_blocks)])

    def forward(self, x, c):
        log_jac_det = 0.0
        for block in self.blocks:
            x, j = block(x, c)
            x = x.flip(1)
            log_jac_det = log_jac_det + j
        return x, log_jac_det


def load_encoder_arch(c, L):
    encoder = nn.Sequential(
        nn.Sequential(nn.Conv2d(3, 8, 3, 4, 1), nn.ReLU()),
        nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU()),
        nn.Sequential(nn.Conv2d(16, 24, 3, 2, 1), nn.ReLU()),
    )
    pool_layers, pool_dims = [], []
    for i in range(L):
        encoder[i].register_forward_hook(get_activation("layer" + str(i)))
        pool_layers.append("layer" + str(i))
        pool_dims.append(encoder[i][0].out_channels)
    return encoder, pool_layers, pool_dims


def load_decoder_arch(c, dim_in):
    return SequenceINN(dim_in, c.condition_vec)


class CFlow(torch.nn.Module):
    def __init__(self, c):
        super(CFlow, self).__init__()
        L = c.pool_layers
        self.encoder, self.pool_layers, self.pool_dims = load_encoder_arch(c, L)
        self.encoder = self.encoder.to(c.device).eval()
        self.decoders = [load_decoder_arch(c, pool_dim) for pool_dim in self.pool_dims]
        self.decoders = [decoder.to(c.device) for decoder in self.decoders]
        self.N = 256

    def forward(self, x):
        P = c.condition_vec
        height = list()
        width = list()
        i = 0
        test_dist = [list() for layer in self.pool_layers]
        test_loss = 0.0
        test_count = 0
        _ = self.encoder(x)
        with torch.no_grad():
            for l, layer in enumerate(self.pool_layers):
                e = activation[layer]  # BxCxHxW
                #
                B, C, H, W = e.size()
                S = H * W
                E = B * S
                #
                if i == 0:  # get stats
                    height.append(H)
                    width.append(W)
                #
                p = positionalencoding2d(P, H, W).to(c.device).unsqueeze(0).repeat(B, 1, 1, 1)
                c_r = p.reshape(B, P, S).transpose(1, 2).reshape(E, P)  # BHWxP
                e_r = e.reshape(B, C, S).transpose(1, 2).reshape(E, C)  # BHWxC

                decoder = self.decoders[l]
                FIB = E // self.N + int(E % self.N > 0)  # number of fiber batches
                for f in range(FIB):
                    if f < (FIB - 1):
                        idx = torch.arange(f * self.N, (f + 1) * self.N)
                    else:
                        idx = torch.arange(f * self.N, E)
                    #
                    c_p = c_r[idx]  # NxP
                    e_p = e_r[idx]  # NxC
                    #
                    if 'cflow' in c.dec_arch:
                        z, log_jac_det = decoder(e_p, [c_p, ])
                    else:
                        z, log_jac_det = decoder(e_p)
                    #
                    decoder_log_prob = get_logp(C, z, log_jac_det)
                    log_prob = decoder_log_prob / C  # likelihood per dim
                    loss = -log_theta(log_prob)
                    test_loss += t2np(loss.sum())
                    test_count += len(loss)
                    test_dist[l] = test_dist[l] + log_prob.detach().cpu().tolist()
        return height, width, test_dist


def make_model():
    return CFlow(c).eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 80),), (torch.randn(3, 3, 48, 112),)]


def probe_inputs():
    return other_inputs()
