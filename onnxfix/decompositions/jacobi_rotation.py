import torch


def _onnx_jacobi_rotation(S, k):
    # One round of the cyclic Jacobi method on the symmetric matrix S (..., n, n): the orthogonal
    # J (..., n, n) such that J^T S J has zeros at the n // 2 disjoint pairs (p, q) of round k
    # of the round-robin ("chess tournament") ordering. Rounds 0 .. n + n % 2 - 2 visit every
    # pair once: a full sweep of n (n - 1) / 2 rotations in n - 1 matrix products instead of
    # n (n - 1) / 2, which keeps the exported graph small. The pairs are Python ints (n is the
    # static matrix size), so the selectors below are constants of the graph. Rotation: the
    # small angle (|t| <= 1) of Golub & Van Loan's symmetric Schur decomposition (alg. 8.4.1).
    n = S.shape[-1]
    players = n + n % 2  # an odd n gets a dummy player; its partner sits the round out
    others = range(1, players // 2)  # noqa: ONX603 - n is the static matrix size
    pairs = [(players - 1, k)] + [((k + i) % (players - 1), (k - i) % (players - 1)) for i in others]
    pairs = [(min(a, b), max(a, b)) for a, b in pairs if max(a, b) < n]
    eye = torch.eye(n, dtype=S.dtype, device=S.device)
    if not pairs:
        return eye.expand(S.shape)
    columns = range(n)  # noqa: ONX603 - n is the static matrix size
    first = [[1.0 if j == p else 0.0 for j in columns] for p, _ in pairs]  # (h, n) one-hot rows
    second = [[1.0 if j == q else 0.0 for j in columns] for _, q in pairs]
    EP = torch.tensor(first, dtype=S.dtype, device=S.device)
    EQ = torch.tensor(second, dtype=S.dtype, device=S.device)
    EPt = torch.tensor([list(column) for column in zip(*first)], dtype=S.dtype, device=S.device)
    both = torch.tensor([[a + b for a, b in zip(r, t)] for r, t in zip(first, second)], dtype=S.dtype, device=S.device)
    idle = torch.tensor([1.0 - sum(column) for column in zip(*first, *second)], dtype=S.dtype, device=S.device)
    diagonal = (S * eye).sum(-1)
    app, aqq = diagonal @ EPt, diagonal @ EQ.transpose(0, 1)
    apq = ((EP @ S) * EQ).sum(-1)  # read from row p only: J^T S J is symmetric up to rounding
    zero = apq == 0  # nothing to rotate (and 0/0 below)
    tau = (aqq - app) / (2 * torch.where(zero, torch.ones_like(apq), apq))
    sign = 1 - 2 * (tau < 0).to(S.dtype)
    t = torch.where(zero, torch.zeros_like(tau), sign / (tau.abs() + torch.sqrt(1 + tau * tau)))
    c = 1 / torch.sqrt(1 + t * t)
    s = t * c
    cosines = c @ both + idle  # c at p and q; 1 at the index without a partner (odd n)
    sines = (EPt * s.unsqueeze(-2)) @ EQ  # s at (p, q)
    return cosines.unsqueeze(-1) * eye + sines - sines.transpose(-2, -1)
