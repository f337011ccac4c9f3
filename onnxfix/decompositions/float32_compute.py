import torch


def _onnx_float32_compute(op, *args, **kwargs):
    # `op` (a convolution, a matmul) on float64 or bfloat16 tensors, for which onnxruntime's CPU
    # provider has no kernel (NOT_IMPLEMENTED: Conv in double, MatMul in bfloat16): while
    # exporting, the tensors of that dtype are cast to float32, the op runs, and its result is
    # cast back, so the exported graph holds a float32 node between two Casts. The exported
    # model rounds as float32 there; eager PyTorch runs the op itself.
    if not torch.onnx.is_in_onnx_export():
        return op(*args, **kwargs)
    dtypes = {v.dtype for v in (*args, *kwargs.values()) if isinstance(v, torch.Tensor)}
    gap = dtypes & {torch.float64, torch.bfloat16}
    if len(gap) != 1:
        return op(*args, **kwargs)
    (dtype,) = gap

    def cast(value):
        return value.float() if isinstance(value, torch.Tensor) and value.dtype == dtype else value

    return op(*(cast(a) for a in args), **{k: cast(v) for k, v in kwargs.items()}).to(dtype)
