"""Declared dynamic dims whose example size is 1, and the example grown to 2 along them.

torch.export treats an example size of 0 or 1 as a constant (its "0/1 specialization"): a model
exported with a batch of one sample keeps batch 1 wherever a broadcast or a reshape met it, and
fails or gives wrong values for other batches, although the user declared the dim dynamic. The
legacy exporter's shape inference can likewise record a broadcast of a size-1 dim. The repair
(export_repairs.py "unit_examples_grown") exports with every such dim grown to 2 by repeating the
example along it; the comparison with eager still runs on the user's own example and probes, so
the exported model is proven on the inputs the user gave, and the model's code is untouched.
"""

from __future__ import annotations

import torch

from onnxfix.exporter.export_repairs import GROW_KEY  # noqa: F401  (re-exported for verify.py)


def unit_dim_names(args: tuple, dynamic: dict[int, dict[int, str]] | None) -> list[str]:
    """Names of the declared dynamic dims that are 1 in the example."""
    names: list[str] = []
    for index, dims in (dynamic or {}).items():
        value = args[index] if index < len(args) else None
        if not isinstance(value, torch.Tensor):
            continue
        for dim, name in dims.items():
            if -value.dim() <= dim < value.dim() and value.shape[dim] == 1 and name not in names:
                names.append(name)
    return names


def grown_examples(args: tuple, dynamic: dict[int, dict[int, str]] | None) -> tuple:
    """The example with every dynamic dim of size 1 repeated to 2, in every input that declares a
    dim of that name (inputs sharing a batch dim stay consistent)."""
    names = set(unit_dim_names(args, dynamic))
    grown = []
    for index, value in enumerate(args):
        for dim, name in (dynamic or {}).get(index, {}).items():
            if isinstance(value, torch.Tensor) and name in names and -value.dim() <= dim < value.dim() \
                    and value.shape[dim] == 1:
                value = torch.cat([value, value], dim=dim)
        grown.append(value)
    return tuple(grown)
