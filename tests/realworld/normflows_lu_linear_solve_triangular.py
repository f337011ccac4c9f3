"""normflows (Neural Spline Flow) LU-parametrized linear flow: `_LULinear.inverse_no_cache` maps
data to latent with two `torch.linalg.solve_triangular` calls; the ONNX-export PR for the library
had to replace this triangular solve with `torch.inverse` because the export breaks on it.
(Here the inverse pass, used for log-density evaluation, is the exported forward.)

Source: https://github.com/VincentStimper/normalizing-flows/pull/74
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F, init

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"inputs": {0: "batch"}}
BLIND = "operators-4"


class _LULinear(nn.Module):
    """A linear transform where we parameterize the LU decomposition of the weights."""

    def __init__(self, features, identity_init=False, eps=1e-3):
        super().__init__()
        self.features = features
        self.bias = nn.Parameter(torch.zeros(features))
        self.eps = eps

        self.lower_indices = np.tril_indices(features, k=-1)
        self.upper_indices = np.triu_indices(features, k=1)
        self.diag_indices = np.diag_indices(features)

        n_triangular_entries = ((features - 1) * features) // 2

        self.lower_entries = nn.Parameter(torch.zeros(n_triangular_entries))
        self.upper_entries = nn.Parameter(torch.zeros(n_triangular_entries))
        self.unconstrained_upper_diag = nn.Parameter(torch.zeros(features))

        self._initialize(identity_init)

    def _initialize(self, identity_init):
        init.zeros_(self.bias)
        if identity_init:
            init.zeros_(self.lower_entries)
            init.zeros_(self.upper_entries)
            constant = np.log(np.exp(1 - self.eps) - 1)
            init.constant_(self.unconstrained_upper_diag, constant)
        else:
            stdv = 1.0 / np.sqrt(self.features)
            init.uniform_(self.lower_entries, -stdv, stdv)
            init.uniform_(self.upper_entries, -stdv, stdv)
            init.uniform_(self.unconstrained_upper_diag, -stdv, stdv)

    def _create_lower_upper(self):
        lower = self.lower_entries.new_zeros(self.features, self.features)
        lower[self.lower_indices[0], self.lower_indices[1]] = self.lower_entries
        # The diagonal of L is taken to be all-ones without loss of generality.
        lower[self.diag_indices[0], self.diag_indices[1]] = 1.0

        upper = self.upper_entries.new_zeros(self.features, self.features)
        upper[self.upper_indices[0], self.upper_indices[1]] = self.upper_entries
        upper[self.diag_indices[0], self.diag_indices[1]] = self.upper_diag

        return lower, upper

    @property
    def upper_diag(self):
        return F.softplus(self.unconstrained_upper_diag) + self.eps

    def logabsdet(self):
        return torch.sum(torch.log(self.upper_diag))

    def inverse_no_cache(self, inputs):
        lower, upper = self._create_lower_upper()
        outputs = inputs - self.bias
        outputs = torch.linalg.solve_triangular(
            lower, outputs.t(), upper=False, unitriangular=True
        )
        outputs = torch.linalg.solve_triangular(
            upper, outputs, upper=True, unitriangular=False
        )
        outputs = outputs.t()

        logabsdet = -self.logabsdet()
        logabsdet = logabsdet * inputs.new_ones(outputs.shape[0])

        return outputs, logabsdet

    def forward(self, inputs):
        return self.inverse_no_cache(inputs)


def make_model():
    return _LULinear(6)


def example_inputs():
    return (torch.randn(32, 6),)


def other_inputs():
    return [(torch.randn(7, 6),), (torch.randn(100, 6),)]


def probe_inputs():
    return other_inputs()
