"""An exception chain as one line of text per cause, in the words the user wrote (public names).
Shared by verify.py, divergence.py and the workers, below them all.
"""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TORCHSCRIPT_TENSOR = re.compile(r"\n\[ torch\.\w+\{[^}]*\} \]")  # `3\n[ torch.LongTensor{} ]`


def describe(exc: BaseException) -> str:
    """The error chain, outermost first, causes joined by '<-' (colour codes removed)."""
    from onnxfix.exporter.targets import public_names

    chain = (f"{type(e).__name__}: {_one_line_tensors(ANSI.sub('', str(e))).strip()[:4000]}" for e in exception_chain(exc)[:4])
    return public_names("\n  <- ".join(chain))


def _one_line_tensors(text: str) -> str:
    """TorchScript prints a tensor as `3\n[ torch.LongTensor{} ]`: the value, without the line break
    that would cut the error's first line (the summary) in the middle of a sentence."""
    return TORCHSCRIPT_TENSOR.sub("", text)


def exception_chain(exc: BaseException) -> list[BaseException]:
    chain, current = [], exc
    while current is not None and current not in chain and len(chain) < 8:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain
