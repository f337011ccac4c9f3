"""Python values among forward's arguments, which the ONNX model has no input for.

Both exporters take a number, a bool or a string passed to forward as a constant of the trace:
the ONNX model has inputs for tensors only, and the value the export was called with is baked in
(CodeFormer's fidelity weight `w`, a threshold, a flag). A probe that passes another value cannot
give it to onnxruntime, so its outputs differ for that reason alone; the note says so at the probe.
"""

from __future__ import annotations

PYTHON_VALUES = (bool, int, float, complex, str)


def baked_arguments(example: tuple, probe: tuple, names: list[str]) -> str:
    """A note naming the Python-valued arguments whose value in ``probe`` is not the export's."""
    changed = [f"`{name}`={given!r} (exported with {baked!r})"
               for name, baked, given in zip(names, example, probe)
               if isinstance(baked, PYTHON_VALUES) and isinstance(given, PYTHON_VALUES)
               and (type(baked) is not type(given) or baked != given)]
    if not changed:
        return ""
    return (f"this probe passes {', '.join(changed)}: a Python value given to forward is a constant of the "
            "export, which the ONNX model has no input for; make it a tensor to make it an input")
