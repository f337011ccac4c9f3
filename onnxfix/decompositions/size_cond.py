import torch


def _onnx_size_cond(pred, if_true, if_false, operands=()):
    # The `if` on sizes the code had, its branches made functions. In eager (and while the legacy
    # exporter traces) exactly that `if`, on the same values. Under torch.export, where the sizes
    # are symbolic, torch.cond keeps both branches in the graph (an ONNX If) instead of
    # specializing the sizes to the branch the export example takes. torch.cond takes no outputs
    # or operands that alias each other, and outputs only in row-major strides (a transposed result
    # fails it): contiguous copies, under export only. torch.onnx traces with
    # size-oblivious reasoning, under which a slice by symbolic bounds in a branch can make sizes
    # torch.cond cannot bind (PendingUnbackedSymbolNotFound): then the branches are traced again
    # without it (sizes reasoned from the example's, which only the export's verification on other
    # sizes can vouch for).
    if isinstance(pred, torch.SymInt):  # `if n % 8:`: an int's truth
        pred = pred != 0
    if torch.compiler.is_exporting() and isinstance(pred, torch.SymBool):

        def copied(branch):
            def run(*args):
                out = branch(*args)
                return tuple(t.clone(memory_format=torch.contiguous_format) for t in out) if isinstance(out, tuple) \
                    else out.clone(memory_format=torch.contiguous_format)

            return run

        branches = copied(if_true), copied(if_false)
        try:
            return torch.cond(pred, *branches, tuple(t.clone() for t in operands))
        except Exception:
            with torch.fx.experimental._config.patch(backed_size_oblivious=False):
                return torch.cond(pred, *branches, tuple(t.clone() for t in operands))
    return if_true(*operands) if pred else if_false(*operands)
