"""ONX6xx: Python control flow that depends on tensor values or on dynamic sizes.

The exporters trace one execution. A Python `if`/`while` on a tensor value is decided once, at
export time: the legacy exporter records the branch taken (TracerWarning "Converting a tensor to
a Python boolean") and the dynamo exporter refuses (`GuardOnDataDependentSymNode`, or
"Data-dependent branching" in its strict fallback). A loop over `range(x.shape[0])` is unrolled:
silently by the legacy exporter, while the dynamo exporter rejects a dynamic dimension ("tracing
inferred a static shape").

Statement-level fixes are exact text edits: the replaced `if`/`for` statement becomes one
statement at the same position and indentation, and comments that sat between its parts are
kept on their own lines above it (libcst would not keep those either, since the statements that
own them disappear; text edits also spare the static path libcst's import cost).
"""

from onnxfix.patterns.control_flow import best_rows_cut, branches, singleton_shortcut, cached_size_path, distributions, eager_only_default, empty_guard, loop_exit, loops, pad_to_multiple, size_cond, size_remainder, size_select, suggested_check, traced_size_check, tracing_only_guard

RULES = [branches.TensorIf, loops.TensorWhile, loops.SizeLoop, *distributions.RULES, *eager_only_default.RULES, *size_remainder.RULES, *tracing_only_guard.RULES, *pad_to_multiple.RULES, *cached_size_path.RULES, *empty_guard.RULES, *suggested_check.RULES, *loop_exit.RULES, *size_cond.RULES, *size_select.RULES, *best_rows_cut.RULES, *singleton_shortcut.RULES, *traced_size_check.RULES]
