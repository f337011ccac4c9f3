import torch


def _onnx_size_cond(pred, if_true, if_false, operands=()):
    # The `if` on sizes the code had, its branches made functions. In eager exactly that `if`, on
    # the same values. Under torch.export, where the sizes are symbolic, torch.cond keeps both
    # branches in the graph (an ONNX If) instead of specializing the sizes to the branch the export
    # example takes. torch.cond takes no outputs or operands that alias each other, and outputs only
    # in row-major strides (a transposed result fails it): contiguous copies, under export only.
    # torch.cond also refuses branches whose results differ in shape (DINOv2's `if npatch == N and
    # w == h: return self.pos_embed` before a resize): then both branches run and the test picks
    # (_onnx_fitted_select), as it does while the legacy exporter traces, where the test is a
    # traced bool tensor. torch.onnx traces with size-oblivious reasoning, under which a slice by
    # symbolic bounds in a branch can make sizes torch.cond cannot bind
    # (PendingUnbackedSymbolNotFound): then the branches are traced again without it (sizes
    # reasoned from the example's, which only the export's verification on other sizes can vouch for).
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
            selected = _onnx_fitted_select(pred, if_true, if_false, operands)
            if selected is not None:
                return selected
            with torch.fx.experimental._config.patch(backed_size_oblivious=False):
                return torch.cond(pred, *branches, tuple(t.clone() for t in operands))
    if torch.jit.is_tracing() and isinstance(pred, torch.Tensor):
        selected = _onnx_fitted_select(pred, if_true, if_false, operands)
        if selected is not None:
            return selected
    return if_true(*operands) if pred else if_false(*operands)


def _onnx_fitted_select(pred, if_true, if_false, operands):
    # Both branches computed, their results (tensors, or tuples of them, of the same ranks and
    # dtypes) brought to the sizes of the branch the test picks and selected with torch.where: each
    # dim gathered at arange(size) with indices clamped to the tensor's own size, so the picked
    # result comes back whole and the other, of any size, only fills a side torch.where drops.
    # None (the caller keeps the `if`) where a branch fails for the export's sizes or the results
    # do not pair up.
    try:
        chosen, other = if_true(*operands), if_false(*operands)
    except Exception:
        return None
    pairs = list(zip(chosen, other)) if isinstance(chosen, tuple) and isinstance(other, tuple) \
        and len(chosen) == len(other) else [(chosen, other)]
    if not all(isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dim() == b.dim()
               and a.dtype == b.dtype for a, b in pairs):
        return None
    if isinstance(pred, torch.SymBool):
        picks = torch.sym_ite(pred, 1, 0)
        flag = torch.scalar_tensor(picks, dtype=torch.int64) != 0
    else:
        picks, flag = pred.long(), pred.bool()
    results = []
    for a, b in pairs:
        sizes = [sb + (sa - sb) * picks for sa, sb in zip(a.shape, b.shape)]
        results.append(torch.where(flag.to(a.device), _onnx_fit_to(a, sizes), _onnx_fit_to(b, sizes)))
    return tuple(results) if isinstance(chosen, tuple) else results[0]


def _onnx_fit_to(tensor, sizes):
    # ``tensor`` at ``sizes``: along each dim the first ``size`` entries, the last one repeated past
    # its end (a dim whose size is already the target by the code's own ints is left alone)
    for dim, size in enumerate(sizes):
        own = tensor.shape[dim]
        if isinstance(own, int) and isinstance(size, int) and own == size:
            continue
        index = torch.arange(size, device=tensor.device).clamp(max=own - 1)
        tensor = tensor.index_select(dim, index)
    return tensor
