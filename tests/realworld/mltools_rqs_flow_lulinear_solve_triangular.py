"""Particle-physics flow toolkit (mltools): `rqs_flow(..., do_lu=True)` stacks an `LULinear` layer
that wraps normflows' `_LULinear` and runs its `inverse` in the sampling direction, i.e. two
`torch.linalg.solve_triangular` calls on the LU factors; the library documents
"do_lu ... WARNING: This is not supported in ONNX export" and has to pre-fill the LU cache first.

Source: https://github.com/mattcleigh/mltools/blob/61673dde3fdec02c0348841cb3308643d88f0083/mltools/flows.py
"""
import numpy as np
import torch as T
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"z": {0: "batch"}}
BLIND = "operators-63"


def zero_flat(z):
    return T.zeros(z.shape[0], dtype=z.dtype, device=z.device)


class _LULinear(nn.Module):
    """normflows.flows.mixing._LULinear (no cache: the export path without prepare_for_onnx)."""

    def __init__(self, features, identity_init=True, eps=1e-3):
        super().__init__()
        self.features = features
        self.eps = eps
        self.bias = nn.Parameter(T.zeros(features))
        self.lower_indices = np.tril_indices(features, k=-1)
        self.upper_indices = np.triu_indices(features, k=1)
        self.diag_indices = np.diag_indices(features)
        n_triangular_entries = ((features - 1) * features) // 2
        self.lower_entries = nn.Parameter(T.randn(n_triangular_entries) * 0.1)
        self.upper_entries = nn.Parameter(T.randn(n_triangular_entries) * 0.1)
        self.unconstrained_upper_diag = nn.Parameter(T.randn(features) * 0.1)

    def _create_lower_upper(self):
        lower = self.lower_entries.new_zeros(self.features, self.features)
        lower[self.lower_indices[0], self.lower_indices[1]] = self.lower_entries
        lower[self.diag_indices[0], self.diag_indices[1]] = 1.0
        upper = self.upper_entries.new_zeros(self.features, self.features)
        upper[self.upper_indices[0], self.upper_indices[1]] = self.upper_entries
        upper[self.diag_indices[0], self.diag_indices[1]] = self.upper_diag
        return lower, upper

    @property
    def upper_diag(self):
        return F.softplus(self.unconstrained_upper_diag) + self.eps

    def logabsdet(self):
        return T.sum(T.log(self.upper_diag))

    def inverse(self, inputs, context=None):
        lower, upper = self._create_lower_upper()
        outputs = inputs - self.bias
        outputs = T.linalg.solve_triangular(lower, outputs.t(), upper=False, unitriangular=True)
        outputs = T.linalg.solve_triangular(upper, outputs, upper=True, unitriangular=False)
        outputs = outputs.t()
        logabsdet = -self.logabsdet()
        logabsdet = logabsdet * inputs.new_ones(outputs.shape[0])
        return outputs, logabsdet


class LULinear(nn.Module):
    """Invertible linear layer using LU decomposition (mltools wrapper)."""

    def __init__(self, num_channels, identity_init=True):
        super().__init__()
        self.linear = _LULinear(num_channels, identity_init=identity_init)

    def forward(self, z, context=None):
        z, log_det = self.linear.inverse(z, context=context)
        return z, log_det.view(-1)


class Tanh(nn.Module):
    def __init__(self, prescale=1.0):
        super().__init__()
        self.prescale = prescale

    def forward(self, z, context=None):
        z = T.tanh(z * self.prescale)
        return z, zero_flat(z)


class FlowSampler(nn.Module):
    """Sampling direction of an rqs_flow(xz_dim=6, do_lu=True, tanh_prescale=0.5) stack."""

    def __init__(self, xz_dim=6, num_stacks=2):
        super().__init__()
        flows = [Tanh(prescale=0.5)]
        for _ in range(num_stacks):
            flows += [LULinear(xz_dim)]
        self.flows = nn.ModuleList(flows)

    def forward(self, z):
        log_det = zero_flat(z)
        for flow in self.flows:
            z, ld = flow(z)
            log_det = log_det + ld
        return z, log_det


def make_model():
    return FlowSampler().eval()


def example_inputs():
    return (T.randn(16, 6),)


def other_inputs():
    return [(T.randn(5, 6),), (T.randn(33, 6),)]


def probe_inputs():
    return other_inputs()
