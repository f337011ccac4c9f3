"""Export-time repair: torch.export's runtime assertions whose bound lies outside int64.

torch.export asserts the value ranges it inferred for unbacked sizes (`u1 <= 46116860184273879030`
after a `min(k, n)` of a selection's size in MMYOLO's `filter_scores_and_topk`). torch.onnx
removes the assertion nodes before translating (`_fx_passes.remove_assertion_nodes`) but keeps the
comparisons they read, now read by nothing, and the translation of such a bound fails ("Error
calling operator 'LessOrEqual' with args (..., 46116...)"): an ONNX int64 cannot hold it. A
comparison of sizes that nothing reads computes nothing the model returns, so erasing it after
that pass changes nothing.
"""

from __future__ import annotations

import operator
from contextlib import contextmanager
from typing import Iterator

import torch

# Python comparisons on SymInts, as torch.export records them for its runtime assertions
COMPARISONS = frozenset({operator.le, operator.lt, operator.ge, operator.gt, operator.eq, operator.ne})


@contextmanager
def dead_comparisons_dropped(model) -> Iterator[None]:
    """Within the block, the programs torch.onnx translates lose the size comparisons that no node
    reads (``model`` is unused: the repair is the same for any model)."""
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


def drop_dead_comparisons(graph_module: torch.fx.GraphModule) -> int:
    """Erase the comparisons of sizes no node reads (what the removed assertions read); the
    number erased."""
    graph = graph_module.graph
    dead = [n for n in graph.nodes if n.op == "call_function" and n.target in COMPARISONS and not n.users]
    for node in reversed(dead):
        graph.erase_node(node)
    if dead:
        graph.lint()
        graph_module.recompile()
    return len(dead)
