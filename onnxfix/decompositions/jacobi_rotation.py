import torch


def _onnx_jacobi_rotation(S, k):
    # One round of the cyclic Jacobi method on the symmetric matrix S (..., n, n): the orthogonal
    # J (..., n, n) such that J^T S J has zeros at the n // 2 disjoint pairs (p, q) of round k
    # of the round-robin ("chess tournament") ordering. Rounds 0 .. n + n % 2 - 2 visit every
    # pair once: a full sweep of n (n - 1) / 2 rotations in n - 1 matrix products instead of
    # n (n - 1) / 2, which keeps the exported graph small. The pairs are Python ints (n is the
    # static matrix size), so J is built from constant one-hot matrices. Rotation: the small
    # angle (|t| <= 1) of Golub & Van Loan's symmetric Schur decomposition (algorithm 8.4.1).
    n = S.shape[-1]
    players = n + n % 2  # an odd n gets a dummy player; its partner sits the round out
    pairs = [(players - 1, k)] + [((k + i) % (players - 1), (k - i) % (players - 1)) for i in range(1, players // 2)]
    pairs = [(min(a, b), max(a, b)) for a, b in pairs if max(a, b) < n]
    steps = torch.arange(n, device=S.device)
    eye = (steps.unsqueeze(-1) == steps).to(S.dtype)
    if not pairs:
        return eye.expand(S.shape)
    EP = (torch.tensor([p for p, _ in pairs], device=S.device).unsqueeze(-1) == steps).to(S.dtype)  # (h, n)
    EQ = (torch.tensor([q for _, q in pairs], device=S.device).unsqueeze(-1) == steps).to(S.dtype)
    diagonal = (S * eye).sum(-1).unsqueeze(-2)
    app, aqq = (diagonal * EP).sum(-1), (diagonal * EQ).sum(-1)
    apq = ((EP @ S) * EQ).sum(-1)  # read from row p only: J^T S J is symmetric up to rounding
    zero = apq == 0  # nothing to rotate (and 0/0 below)
    tau = (aqq - app) / (2 * torch.where(zero, torch.ones_like(apq), apq))
    sign = 1 - 2 * (tau < 0).to(S.dtype)
    t = torch.where(zero, torch.zeros_like(tau), sign / (tau.abs() + torch.sqrt(1 + tau * tau)))
    c = 1 / torch.sqrt(1 + t * t)
    s = t * c
    idle = 1 - EP.sum(-2) - EQ.sum(-2)  # the index without a partner (odd n) keeps J = 1
    cosines = (c.unsqueeze(-1) * (EP + EQ)).sum(-2) + idle
    sines = (EP.transpose(-2, -1) * s.unsqueeze(-2)) @ EQ  # s at (p, q)
    return cosines.unsqueeze(-1) * eye + sines - sines.transpose(-2, -1)
