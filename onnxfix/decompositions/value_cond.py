import torch


def _onnx_value_cond(pred, if_true, if_false, operands=()):
    # The `if` on a tensor's value the code had, its branches made functions. In eager (and while
    # the legacy exporter traces) exactly that `if`: the truth of the same one-element tensor.
    # Under torch.export, which cannot branch on a value it does not know, torch.cond keeps both
    # branches in the graph (an ONNX If). torch.cond takes no outputs or operands that alias each
    # other: copies, under export only.
    if torch.compiler.is_exporting() and isinstance(pred, torch.Tensor):

        def copied(branch):
            def run(*args):
                out = branch(*args)
                return tuple(t.clone(memory_format=torch.contiguous_format) for t in out) if isinstance(out, tuple) \
                    else out.clone(memory_format=torch.contiguous_format)

            return run

        return torch.cond(pred, copied(if_true), copied(if_false), tuple(t.clone() for t in operands))
    return if_true(*operands) if pred else if_false(*operands)
