"""The repair stage of `onnxfix export --fix`: export-time repairs and decompositions (keys of
EXPORT_REPAIRS and the decomposition registry) tried on the fix loop's last text when some
export still fails, kept only where they make some exporter OK and none worse; and the fix loop
once more under the kept repairs, for the failure a repair uncovers at a line a static fix mends.

Torch-free: ``export(fixed, keys, exporters)`` runs the exports in worker processes.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Protocol

from onnxfix.exporter import fixloop
from onnxfix.exporter.export_repairs import EXPORT_REPAIRS, SPECULATIVE_REPAIRS
from onnxfix.exporter.result import OK
from onnxfix.rewriter.engine import applicable, fix_key


class Outcome(Protocol):
    """What the rounds report back (session.FixResult)."""

    exports: int
    decompositions: tuple[str, ...]
    dropped: list
    under_repairs: dict  # text -> (keys, results) of with_repairs' last export of it


def _applied(keys: tuple[str, ...], results) -> tuple[str, ...]:
    """The keys that took part in the export: the repairs (settings, whole-value carriers) and the
    operator decompositions that replaced some call. One that never ran changed nothing (an error
    text named it: a Reshape failure reads like nn.MultiheadAttention's), so the hint leaves it out."""
    used = {key for r in results for key in r.verdict.decompositions_used}
    return tuple(key for key in keys if key in used or key in EXPORT_REPAIRS and not EXPORT_REPAIRS[key].counts_use)


def with_repairs(final, keys: tuple[str, ...], outcome: Outcome, export, named_by, rounds: int = 3):
    """The loop's last state, exported once more with onnxfix's decompositions of the ops the
    first run named, when some export still fails: the repair for code the static fixes do not
    edit (an op inside site-packages). What that export fails on next names more (the fused
    attention kernel turned off, the composite path's packed projection then needs its own
    repair): up to ``rounds`` exports. Kept when it makes some verdict OK and none worse; eager
    PyTorch is untouched (they replace the ops only while exporting)."""
    if not keys or fixloop.all_ok(final.results):
        return final
    for _ in range(rounds):
        results = export(final.fixed, keys)
        outcome.exports += 1
        outcome.under_repairs[final.fixed.text] = (keys, results)
        more = tuple(k for k in named_by(results, keys) if k not in keys)
        if fixloop.all_ok(results) or not more:
            break
        keys = (*keys, *more)
    together_gains = _gains(final.results, results)
    if not together_gains or (len(keys) > 1 and not fixloop.all_ok(results)):
        # one repair can stand in another's way (conv1d's decomposition, named by the failing Conv
        # node, calls the op past float32_compute's wrapper; index_add's helper scatters in float16
        # past it): each named key alone, the first that gains (and, where all of them together
        # gained too, makes more exports OK than they did)
        than = results if together_gains else final.results
        alone = _one_key_that_gains(final, keys, outcome, export, than=than) if len(keys) > 1 else None
        if alone is None and not together_gains:
            return final
        keys, results = alone or (keys, results)
    applied, results = _without_speculative(final, _applied(keys, results), results, outcome, export)
    if not applied:
        return final
    outcome.decompositions = applied
    return replace(final, results=results)


def _without_speculative(final, applied: tuple[str, ...], results, outcome: Outcome, export):
    """(keys, results) without the repairs tried on a fact every wrong export shares (the floor
    division of sizes) where the others do as well without them: one more export each."""
    for key in SPECULATIVE_REPAIRS:
        if key in applied and len(applied) > 1:
            rest = tuple(k for k in applied if k != key)
            again = export(final.fixed, rest)
            outcome.exports += 1
            if not fixloop.worsened(results, again):  # as good without it: not kept
                applied, results = rest, again
    return applied, results


def _gains(before, after) -> bool:
    """Some exporter OK that was not, and none worse."""
    gained = any(a.verdict.verdict == OK != b.verdict.verdict for b, a in zip(before, after))
    return gained and not fixloop.worsened(before, after)


def _one_key_that_gains(final, keys: tuple[str, ...], outcome: Outcome, export, than, most: int = 4):
    """(keys, results) of the first of ``keys`` (at most ``most`` tried) that gains alone and
    makes more exports OK than ``than``, or None.

    A key can make more exports OK than ``than`` only if it makes OK some exporter that ``than``
    failed: each key is exported under those first, and under the others only when one of them
    is OK (most keys alone gain nothing, and this halves what they cost)."""
    together = fixloop.oks(than)
    failed = tuple(r.verdict.exporter for r in than if r.verdict.verdict != OK)
    for key in keys[:most]:
        results = _exported_failed_first(final.fixed, (key,), export, failed, [r.verdict.exporter for r in than])
        outcome.exports += 1
        if results is not None and _gains(final.results, results) and fixloop.oks(results) > together:
            return (key,), results
    return None


def _exported_failed_first(fixed, keys: tuple[str, ...], export, failed: tuple[str, ...], order: list[str]):
    """Every exporter's results of ``fixed`` under ``keys``, in ``order``, or None when none of
    the exporters in ``failed`` is OK (the others then are not run)."""
    first = export(fixed, keys, failed)
    if not fixloop.oks(first):
        return None
    others = tuple(e for e in order if e not in failed)
    by_exporter = {r.verdict.exporter: r for r in (*first, *(export(fixed, keys, others) if others else ()))}
    return [by_exporter[e] for e in order]


def fixes_under_repairs(final, before, keys: tuple[str, ...], outcome: Outcome, static_fix, export, unsafe: bool,
                        evidence):
    """The fix loop once more with every export under ``keys`` (the repairs kept, whose results
    ``final`` holds, else those the run named), when some export still fails and the exports
    under them fail at a line the loop's last exports without them (``before``) did not name,
    where a static fix applies: a repair gets an export past its first failure to one that a
    static fix mends once a run names its line. HTDemucs: complex pairs get dynamo past the
    complex `F.pad` to pad1d's assert on the padded values, a data-dependent guard that ONX601's
    fix skips while exporting. The fixes the first loop dropped are not tried again, but those
    dropped only for making a loud failure silent (a repair may take the silent part). Kept where
    some exporter ends OK that ``final`` failed, none worse. (A FixError of the static fixer
    propagates: the caller's.)"""
    if not keys or fixloop.all_ok(final.results):
        return final
    kept = bool(outcome.decompositions)
    if kept:
        results = final.results
    elif final.fixed.text in outcome.under_repairs:
        keys, results = outcome.under_repairs[final.fixed.text]  # with_repairs exported it under them (and those they named)
    else:
        results = export(final.fixed, keys)
        outcome.exports += 1
    new_lines = fixloop.named_lines(results) - fixloop.named_lines(before)
    # a fix the first loop dropped only for turning a loud failure silent may complete under the
    # repairs (super-gradients' `len(anchors[-1])` -> `.shape[0]`: its Python-int outputs were the
    # silent part, which flat_outputs leaves out of the ONNX model)
    silenced = {d.key for d in outcome.dropped if d.key and d.only_silenced}
    fixed = static_fix(final.keys) if new_lines or silenced else None
    if fixed is None or not any(applicable(f, unsafe) and ((os.path.realpath(f.path), f.line) in new_lines
                                                           or fix_key(f, fixed.text) in silenced)
                                for f in fixed.findings):
        return final  # no fix at a line only the exports under the repairs name: nothing new to try
    under = lambda text, _keys=None, exporters=None: export(text, keys, exporters)  # noqa: E731
    dropped = frozenset(d.key for d in outcome.dropped if d.key and d.key not in silenced)
    loop = fixloop.run_loop(fixloop.State(final.keys, fixed, results), static_fix, under, unsafe, evidence, dropped)
    outcome.exports += loop.exports
    if loop.final.fixed.text == final.fixed.text or not _gains(final.results, loop.final.results):
        return final
    applied, results = _applied(keys, loop.final.results), loop.final.results
    if not kept:  # the named keys, not pruned yet: those a speculative repair's fact named go where not needed
        applied, results = _without_speculative(loop.final, applied, results, outcome, export)
    known = {d.key for d in outcome.dropped}
    outcome.dropped = [d for d in outcome.dropped if d.key not in loop.final.keys] + [
        d for d in loop.dropped if d.key not in known]
    outcome.decompositions = applied
    return replace(loop.final, results=results)
