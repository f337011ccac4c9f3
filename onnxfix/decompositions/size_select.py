import torch


def _onnx_size_select(test, then, otherwise, traced=False):
    # `then() if test else otherwise()` for a branch on sizes that only picks a number (a pad that
    # is 0 where the size divides: `if pad == p: pad = 0`). In eager (a Python bool) exactly that,
    # the other value never computed. Under torch.export the test on symbolic sizes is a SymBool:
    # deciding it would pin the sizes to the example's branch; both numbers are computed (size
    # arithmetic, no side effects) and the one the test picks is kept symbolic with torch.sym_ite
    # (an ONNX Where): `otherwise + (then - otherwise) * [test]`, exact for ints. While the legacy
    # exporter traces, sizes are 0-d tensors and so is the test: torch.where of the two values when
    # one of them is such a size, or, with `traced` (every use of the value takes a 0-d tensor as it
    # takes an int: a pad amount, a slice bound), of two Python numbers too (YOLOv4's parity padding);
    # else the number the branch picks, as before.
    if isinstance(test, torch.SymBool):
        chosen, other = then(), otherwise()
        if isinstance(chosen, (int, torch.SymInt)) and isinstance(other, (int, torch.SymInt)):
            return other + (chosen - other) * torch.sym_ite(test, 1, 0)
    if isinstance(test, torch.Tensor) and torch.jit.is_tracing():
        chosen, other = then(), otherwise()
        values = (chosen, other)
        if all(isinstance(v, (int, torch.Tensor)) for v in values) and (
                traced or any(isinstance(v, torch.Tensor) for v in values)):
            return torch.where(test, torch.as_tensor(chosen), torch.as_tensor(other))
    return then() if test else otherwise()
