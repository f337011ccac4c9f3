"""Child process: run the target once eagerly under the recorder, store the evidence.

Reads {"model", "inputs", "folder", "sys_path"} as JSON on stdin; writes one evidence file per
user file into ``folder`` (named by the hash of the file's text, rewriter/evidence.py) and
prints one ``ONNXFIX-RESULT {"files": n, "functions": n}`` or ``{"error": "..."}`` line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from onnxfix.exporter.isolate import RESULT_MARKER


def main() -> None:
    request = json.loads(sys.stdin.read())
    sys.path[:0] = request.get("sys_path", [])
    try:
        result = record(request["model"], request["inputs"], Path(request["folder"]))
    except Exception as exc:  # the user's model does not load or run: no evidence, fixes stay static
        from onnxfix.exporter.errors import describe

        result = {"error": describe(exc)[:2000]}
    print(RESULT_MARKER + json.dumps(result), flush=True)


def record(model_spec: str, inputs_spec: str, folder: Path) -> dict:
    import torch

    from onnxfix.exporter.recorder import Recorder
    from onnxfix.exporter.targets import load_spec
    from onnxfix.exporter.worker import as_tuple
    from onnxfix.rewriter import evidence
    from onnxfix.rewriter.source import SourceError, SourceFile

    torch.manual_seed(0)
    model = load_spec(model_spec)().eval()
    args = as_tuple(load_spec(inputs_spec)())
    with torch.no_grad(), Recorder() as recorder:
        model(*args)
    functions = 0
    stored = 0
    for file, records in recorder.by_file().items():
        try:
            text = SourceFile.read(Path(file)).text  # the text the rules will see
        except SourceError:
            continue
        evidence.store(folder, text, evidence.to_json(records))
        stored += 1
        functions += len(records)
    return {"files": stored, "functions": functions}


if __name__ == "__main__":
    main()
