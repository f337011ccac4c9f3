"""Golden files keep a one-line marker where onnxfix writes a decomposition helper, not the helper's
body: a helper changed in onnxfix/decompositions/ then changes no golden file. The marker stands for
the exact text `helper_source(key)` (the comparison stays exact: a helper written with any other
text is not collapsed and the comparison fails), and `expand` restores it to run the file."""

from __future__ import annotations

import re

from onnxfix.decompositions import BY_KEY, SUPPORT, helper_source

MARKER = re.compile(r"^# <onnxfix helper _onnx_(\w+): onnxfix/decompositions/\1\.py>\n", re.M)


def _keys() -> list[str]:
    return [*BY_KEY, *SUPPORT]


def collapse(text: str) -> str:
    for key in _keys():
        source = helper_source(key)
        if source in text:
            text = text.replace(source, f"# <onnxfix helper _onnx_{key}: onnxfix/decompositions/{key}.py>\n")
    return text


def expand(text: str) -> str:
    return MARKER.sub(lambda m: helper_source(m.group(1)), text)
