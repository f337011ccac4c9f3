"""The input generators of the decompositions' proofs (``Proof.inputs`` in
onnxfix/decompositions/registry_*.py is an expression over these, ``g`` a torch.Generator and
``b`` the batch size). Imports torch: only the tests and the catalog probe evaluate proofs."""

from __future__ import annotations

import inspect

import torch

NAN, INF = float("nan"), float("inf")


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


def ties(g, *shape):
    return torch.randint(-2, 3, shape, generator=g).float()


def ties_with_nan(g, *shape):
    x = ties(g, *shape)
    x[..., 1] = NAN if x.shape[-1] > 1 else x[..., 1]
    return x


def well_conditioned(g, batch, n):
    return torch.randn(batch, n, n, generator=g) + n * torch.eye(n)


def ints(g, lo, hi, *shape):
    return torch.randint(lo, hi, shape, generator=g)


def signs(g, *shape):
    return torch.where(torch.randint(0, 2, shape, generator=g) == 0, -1, 1)


def specials(g, *shape):
    x = torch.randn(*shape, generator=g) * 3
    x[..., 1] = INF
    x[..., 2] = -INF
    x[..., 3] = 0.0
    return x


def axis_points(g, *shape):
    """Coordinates on and off the axes: random values, with signed zeros, infinities and NaN mixed in."""
    x = torch.randn(*shape, generator=g) * 2
    pick = torch.randint(0, 10, shape, generator=g)
    for value, chosen in ((0.0, 0), (-0.0, 1), (0.0, 2), (INF, 3), (-INF, 4), (NAN, 5)):
        x = torch.where(pick == chosen, torch.tensor(value), x)
    return x


def randn_with_nan(g, *shape):
    x = torch.randn(*shape, generator=g)
    x[..., 1] = NAN
    return x


def positive(g, *shape):
    return torch.rand(*shape, generator=g) * 3 + 0.01


def spd(g, batch, n):
    a = torch.randn(batch, n, n, generator=g)
    return a @ a.transpose(-2, -1) + n * torch.eye(n)


def triangular(g, batch, n):
    a = torch.randn(batch, n, n, generator=g)
    return a + torch.diag_embed(3 * a.diagonal(dim1=-2, dim2=-1).sign())  # |diagonal| >= 3


def spread(g, batch, n=40, scale=8.0):
    """Values of both signs over several decades, plus poles, zeros and infinities."""
    x = torch.randn(batch, n, generator=g) * scale
    x[:, :4] = torch.rand(batch, 4, generator=g) * 3e3  # Stirling / asymptotic region
    x[:, 4:8] = torch.rand(batch, 4, generator=g) * 1e-3  # near 0
    x[:, 8] = -torch.randint(0, 6, (batch,), generator=g).float()  # poles
    x[:, 9] = 1.0
    x[:, 10] = 2.0
    x[:, 11] = INF
    x[:, 12] = -INF
    x[:, 13] = NAN
    x[:, 14] = -0.0
    x[:, 15] = 10.0
    return x


def orders(g, batch, n=24):
    """zeta's x >= 1 (with x == 1 and integers) and q over (-5, 20) with poles."""
    x = 1 + torch.rand(batch, n, generator=g) * 9
    x[:, :6] = torch.randint(1, 8, (batch, 6), generator=g).float()
    q = torch.randn(batch, n, generator=g) * 6 + 4
    q[:, 6] = -torch.randint(0, 4, (batch,), generator=g).float()
    q[:, 7] = INF
    q[:, 8] = NAN
    return x, q


def negatives(g, batch, n=30):
    x = torch.randn(batch, n, generator=g) * 8
    x[:, :3] = -torch.randint(0, 4, (batch, 3), generator=g).float()
    return (x,)


def bessel(g, batch, n=30):
    """Both Chebyshev ranges (|x| <= 8, > 8), both signs, the boundary 8, 0, infinities, NaN."""
    x = torch.randn(batch, n, generator=g) * 12
    x[:, :5] = torch.tensor([8.0, -8.0, 0.0, INF, NAN])
    return x


def tail_probabilities(g, batch, n=30):
    """Central region, both tails (down to 1e-30), 0, 1, outside [0, 1], NaN."""
    p = torch.rand(batch, n, generator=g)
    p[:, :4] = 10 ** (-30 * torch.rand(batch, 4, generator=g))
    p[:, 4:8] = 1 - 10 ** (-7 * torch.rand(batch, 4, generator=g))
    p[:, 8:13] = torch.tensor([0.0, 1.0, -0.5, 1.5, NAN])
    return p


def frexp_values(g, batch, n=30):
    """Several decades, both signs, powers of two, zeros, subnormals, infinities, NaN."""
    x = torch.randn(batch, n, generator=g) * 10 ** torch.randint(-30, 30, (batch, n), generator=g).float()
    x[:, :9] = torch.tensor([0.0, -0.0, INF, -INF, NAN, 1.0, 0.5, 2.0**-140, -(2.0**100)])
    return x


def symmetric(g, batch, n):
    x = torch.randn(batch, n, n, generator=g)
    return x + x.transpose(-2, -1)


def zeroed_columns(g, batch, m, n):
    """Rank below n for some matrices: whole columns set to zero (exact zero singular values,
    far from any tolerance)."""
    keep = torch.rand(batch, 1, n, generator=g) > 0.4
    return torch.randn(batch, m, n, generator=g) * keep


def split_lengths(g, n, total):
    """n sizes >= 0 summing to total (zeros included): the sections of a split along dim 0."""
    cuts = torch.randint(0, total + 1, (n - 1,), generator=g).sort().values
    return torch.cat([cuts, torch.tensor([total])]) - torch.cat([torch.tensor([0]), cuts])


def class_probabilities(g, *shape):
    return torch.softmax(torch.randn(*shape, generator=g), -1)


GENERATORS = {name: value for name, value in dict(globals()).items() if inspect.isfunction(value)}


def evaluate(inputs: str, g: torch.Generator, b: int) -> tuple:
    """A proof's inputs: ``inputs`` evaluated over the generators, ``g`` and ``b``."""
    return tuple(eval(inputs, {**GENERATORS, "torch": torch, "NAN": NAN, "INF": INF, "g": g, "b": b}))  # noqa: S307 - our own registry
