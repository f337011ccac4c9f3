"""Child process of isolate.run_isolated: reads an ExportRequest as JSON, prints a Verdict."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

from onnxfix.exporter.isolate import RESULT_MARKER, STAGE_MARKER, ExportRequest


def report_stage(stage: str) -> None:
    print(STAGE_MARKER + stage, flush=True)


def main() -> None:
    request = ExportRequest(**json.loads(sys.stdin.read()))
    report_stage("load")
    sys.path[:0] = request.sys_path
    from onnxfix.exporter.errors import describe
    from onnxfix.exporter.verify import LOAD_FAILS, Verdict, verify

    try:
        model, args, probes, dynamic = load(request)
    except Exception as exc:  # loading the user's code failed: report, do not crash
        verdict = Verdict(request.exporter, LOAD_FAILS, failed_stage="load", error=f"could not load target: {describe(exc)}")
    else:
        out = Path(request.out) if request.out else None
        verdict = verify(lambda: model, args, probes, request.exporter, dynamic, request.opset, out, report_stage,
                         decompose=request.decompose)
    print(RESULT_MARKER + json.dumps(verdict.to_json()), flush=True)


def load(request: ExportRequest):
    """Build the model and its inputs from the user's code; resolve dynamic dims by name."""
    import torch

    from onnxfix.exporter.probes import user_probes
    from onnxfix.exporter.targets import load_spec

    torch.manual_seed(0)
    if request.live:
        return load_live(request)
    factory = load_spec(request.model)
    model = factory()
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{request.model} returned {type(model).__name__}, not a torch.nn.Module")
    args = as_tuple(load_spec(request.inputs)())
    probes = user_probes([as_tuple(p) for p in load_spec(request.probes)()]) if request.probes else []
    return with_probes(request, model, args, probes, resolve_dynamic(model, args, request.dynamic))


def with_probes(request: ExportRequest, model, args: tuple, probes: list, dynamic: dict):
    """A language model with its KV cache becomes a decoder with past (kv_cache.py), whose
    generation is its proof; any other model gets the generated probes asked for."""
    from onnxfix.exporter import kv_cache
    from onnxfix.exporter.probes import generated_probes

    wrapped = kv_cache.prepare(model, args, probes, dynamic)
    if wrapped[0] is model and request.generate_probes:
        probes += generated_probes(args, dynamic)
    return wrapped


def load_live(request: ExportRequest):
    """onnxfix.export's payload: the pickled model, or its class re-created and its state dict loaded."""
    import importlib

    import torch

    from onnxfix.exporter.probes import user_probes

    for name, path in request.modules.items():
        load_module_as(name, Path(path))
    payload = torch.load(request.live, weights_only=False)
    if payload["model"] is not None:
        model = payload["model"]
    else:
        owner: object = importlib.import_module(payload["module"])
        for part in payload["qualname"].split("."):
            owner = getattr(owner, part)
        model = owner()
        model.load_state_dict(payload["state_dict"])
    args = tuple(payload["args"])
    probes = user_probes([tuple(p) for p in payload["probes"]])
    return with_probes(request, model, args, probes, resolve_dynamic(model, args, request.dynamic))


def load_module_as(name: str, path: Path) -> None:
    """The user's script is run as "__mp_main__" and stands for "__main__", as multiprocessing's
    spawn does: its `if __name__ == "__main__":` block does not run again."""
    import importlib.util

    run_name = "__mp_main__" if name == "__main__" else name
    spec = importlib.util.spec_from_file_location(run_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[run_name] = module
    if name == "__main__":
        sys.modules["__main__"] = module
    sys.path.insert(0, str(path.parent))  # its sibling imports resolve as they did in the parent
    spec.loader.exec_module(module)


def as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def resolve_dynamic(model, args: tuple, dynamic: dict[str, dict]) -> dict[int, dict[int, str]]:
    """Keys are input indexes or forward's parameter names; dims may be negative."""
    params = list(inspect.signature(model.forward).parameters)
    resolved: dict[int, dict[int, str]] = {}
    for key, dims in dynamic.items():
        key = str(key)
        if key.lstrip("-").isdigit():
            index = int(key)
        elif key in params:
            index = params.index(key)
        else:
            raise ValueError(f"--dynamic {key}: forward() has no parameter {key!r} (it has {', '.join(params)})")
        if not 0 <= index < len(args) or not hasattr(args[index], "dim"):
            raise ValueError(f"--dynamic {key}: input {index} is not a tensor input")
        rank = args[index].dim()
        for dim, name in dims.items():
            dim = int(dim)
            if not -rank <= dim < rank:
                raise ValueError(f"--dynamic {key}: dim {dim} out of range for a {rank}-d input")
            resolved.setdefault(index, {})[dim % rank] = name
    return resolved


if __name__ == "__main__":
    main()
