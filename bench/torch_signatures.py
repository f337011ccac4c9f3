"""The positional parameters of torch's functions, read from the installed torch (its Python
signatures for torch.nn.functional, ATen's operator schemas for torch.*), for the static rules
that bind a call's positional arguments by name without importing torch (ONX209: a legacy
symbolic that names the argument it needs as a constant). Writes onnxfix/data/torch_signatures.json:

    {"torch": "2.13.0", "functions": {"torch.nn.functional.group_norm": [["input", "num_groups", ...]],
                                      "torch.randint": [["high", "size"], ["low", "high", "size"]], ...}}

One list per overload (duplicates dropped); only functions with an integer parameter are kept
(the arguments a symbolic reads as constants are ints). "random": the functions ATen tags
nondeterministic_seeded.

    python bench/torch_signatures.py
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import torch
import torch.nn.functional as F

OUT = Path(__file__).resolve().parent.parent / "onnxfix" / "data" / "torch_signatures.json"
INT_TYPES = ("int", "SymInt", "int[]", "SymInt[]", "int?", "SymInt?")


def functional() -> dict[str, list[list[str]]]:
    found = {}
    for name in sorted(dir(F)):
        function = getattr(F, name)
        if name.startswith("_") or not inspect.isfunction(function):
            continue
        try:
            parameters = inspect.signature(function).parameters.values()
        except (TypeError, ValueError):
            continue
        positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if any(p.annotation in (int, "int") or "int" in str(p.annotation) for p in parameters):
            found[f"torch.nn.functional.{name}"] = [positional]
    return found


def aten() -> dict[str, list[list[str]]]:
    found = {}
    for name in sorted(dir(torch)):
        if name.startswith("_") or not callable(getattr(torch, name)):
            continue
        overloads = []
        for schema in torch._C._jit_get_schemas_for_operator(f"aten::{name}"):
            if not any(str(a.type).replace("Optional[", "").rstrip("]") in ("int", "SymInt", "List[int]", "List[SymInt]")
                       for a in schema.arguments):
                continue
            positional = [a.name for a in schema.arguments if not a.kwarg_only]
            if positional not in overloads:
                overloads.append(positional)
        if overloads:
            found[f"torch.{name}"] = overloads
    return found


def random() -> list[str]:
    """torch.* functions whose ATen op is tagged nondeterministic_seeded (randint, rand, normal, ...):
    a constant recorded for one of their arguments cannot be checked against eager on other inputs."""
    found = []
    for name in sorted(dir(torch)):
        packet = getattr(torch.ops.aten, name, None) if not name.startswith("_") else None
        if packet is None or not hasattr(packet, "overloads"):
            continue
        if any(torch.Tag.nondeterministic_seeded in getattr(packet, o).tags for o in packet.overloads()):
            found.append(f"torch.{name}")
    return found


def main() -> None:
    functions = {**aten(), **functional()}
    data = {"torch": torch.__version__.split("+")[0], "functions": dict(sorted(functions.items())),
            "random": random()}
    OUT.write_text(json.dumps(data, indent=0, separators=(",", ":")) + "\n")
    print(f"{len(functions)} functions -> {OUT}")


if __name__ == "__main__":
    main()
