import torch


def _onnx_linalg_matrix_exp(A):
    # Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s) with s = ceil(log2 ||A||_1), so the
    # scaled matrix has 1-norm <= 1, where the degree-18 Taylor polynomial is exact to below
    # float64 rounding (remainder < 1/19! ~ 8e-18). s differs per batch element, so a static
    # number of squarings (at most 20: ||A||_1 <= 2^20) is applied under torch.where masks;
    # beyond that bound the scaled norm exceeds 1 and the error grows. Static matrix size n.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.matrix_exp(A)
    max_squarings = 20
    n = A.shape[-1]
    if n == 0:
        return A.clone()
    norm = A.abs().sum(-2).amax(-1, keepdim=True).unsqueeze(-1)  # 1-norm, (..., 1, 1)
    s = torch.ceil(torch.log2(norm)).clamp(0, max_squarings)
    X = A * torch.pow(2.0, -s).to(A.dtype)
    eye = torch.eye(n, dtype=A.dtype, device=A.device)
    P = eye + X / 18
    for k in range(17, 0, -1):  # noqa: ONX603 - unrolled Horner scheme of the static degree 18
        P = eye + (X @ P) / k
    for i in range(max_squarings):  # noqa: ONX603 - unrolled: at most 20 squarings, masked by s
        P = torch.where(s > i, P @ P, P)
    return P
