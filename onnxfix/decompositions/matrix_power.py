import torch


def _onnx_matrix_power(A, n):
    # ATen's order of products (bit-identical in eager): n = 0 the identity, 1 a copy, 2 and 3
    # direct products, larger n binary exponentiation from the least significant bit, with the
    # running product multiplied on the right. n is a Python int: the products unroll at trace
    # time. A negative n needs an inverse, which neither exporter translates: the original op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.linalg.matrix_power(A, n)
    if n < 0:
        return torch.linalg.matrix_power(A, n)
    if n == 0:
        return torch.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape).clone()
    if n == 1:
        return A.clone()
    if n == 2:
        return torch.matmul(A, A)
    if n == 3:
        return torch.matmul(torch.matmul(A, A), A)
    z, result = None, None
    while n > 0:  # n is a Python int: the loop unrolls at trace time
        bit = n % 2
        n = n // 2
        z = A if z is None else torch.matmul(z, z)
        if bit == 1:
            result = z if result is None else torch.matmul(result, z)
    return result
