"""Export-time repair: the comparisons torch.onnx leaves unread when it drops torch.export's
runtime assertions, which it cannot translate when their bound lies outside int64.

torch.export asserts the value ranges it inferred for unbacked sizes (`u1 <= 46116860184273879030`
after a `min(k, n)` of a selection's size in MMYOLO's `filter_scores_and_topk`). torch.onnx
removes the assertion nodes before translating (`_fx_passes.remove_assertion_nodes`) but keeps the
comparisons they read, now read by nothing, and the translation of such a bound fails ("Error
calling operator 'LessOrEqual' with args (..., 46116...)"): an ONNX int64 cannot hold it. A
node that nothing reads computes nothing the model returns, so torch.fx's own dead-code
elimination after that pass changes nothing.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch


@contextmanager
def dead_comparisons_dropped(model) -> Iterator[None]:
    """Within the block, the programs torch.onnx translates lose the nodes no node reads (the
    removed assertions' comparisons); ``model`` is unused: the repair is the same for any model."""
    from torch.onnx._internal.exporter import _core

    original = _core._prepare_exported_program_for_export

    def prepare(*args, **kwargs):
        program = original(*args, **kwargs)
        drop_dead_comparisons(program.graph_module)
        return program

    _core._prepare_exported_program_for_export = prepare
    try:
        yield
    finally:
        _core._prepare_exported_program_for_export = original


def drop_dead_comparisons(graph_module: torch.fx.GraphModule) -> bool:
    """torch.fx's dead-code elimination (side-effect-free nodes nobody reads); whether it erased any."""
    changed = graph_module.graph.eliminate_dead_code()
    if changed:
        graph_module.recompile()
    return changed
