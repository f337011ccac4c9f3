import torch


def _onnx_value_select(pred, if_true, if_false, operands=()):
    # The `if` on a tensor's value the code had, its branches made functions. In eager (and under
    # torch.compile) exactly that `if`: only the branch the value picks runs. While either ONNX
    # exporter traces (torch.onnx sets is_in_onnx_export for both), neither can follow that
    # branch: both run and torch.where picks each output, where the two agree in structure, shape
    # and dtype (Python values equal in both kept as they are). Otherwise torch.export gets
    # torch.cond (an ONNX If: outputs may differ in size), and where that fails too, or where a
    # branch cannot be traced, the `if` as before.
    if not (torch.onnx.is_in_onnx_export() and isinstance(pred, torch.Tensor)):
        return if_true(*operands) if pred else if_false(*operands)
    import warnings

    def agree(a, b):
        if isinstance(a, (tuple, list)):
            return type(a) is type(b) and len(a) == len(b) and all(agree(x, y) for x, y in zip(a, b))
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype
        return a is b or (isinstance(a, (bool, int, float, str)) and type(a) is type(b) and a == b)

    def select(a, b):
        if isinstance(a, (tuple, list)):
            items = [select(x, y) for x, y in zip(a, b)]
            return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
        if isinstance(a, torch.Tensor) and a.dtype == torch.bool:  # onnxruntime has no Where on bool
            return (a & picked) | (b & ~picked)
        return torch.where(picked, a, b) if isinstance(a, torch.Tensor) else a

    try:
        first, second = if_true(*operands), if_false(*operands)
        with warnings.catch_warnings():  # the legacy tracer's sizes: compared here on purpose
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            picked = pred.reshape(()) if pred.dtype == torch.bool else pred.reshape(()) != 0
            agreed = agree(first, second)
    except Exception:  # a branch the example's value does not take may not trace, or more than one value
        return if_true(*operands) if pred else if_false(*operands)
    if agreed:
        return select(first, second)
    if torch.compiler.is_exporting() and all(isinstance(t, torch.Tensor) for t in operands):

        def copied(branch):  # torch.cond takes no outputs or operands that alias each other
            def run(*args):
                out = branch(*args)
                return tuple(t.clone() for t in out) if isinstance(out, tuple) else out.clone()

            return run

        try:
            return torch.cond(picked, copied(if_true), copied(if_false), tuple(t.clone() for t in operands))
        except Exception:  # outputs torch.cond cannot take (Python values, nested tuples)
            pass
    return first if pred else second
