"""Child process: run the target once eagerly under the recorder, store the evidence.

Reads {"model", "inputs", "folder", "sys_path"} as JSON on stdin, and optionally "watch":
[[file, line, [condition, ...]], ...], the checks torch.export suggested (suggested_checks.py),
evaluated at their lines; writes one evidence file per user file into ``folder`` (named by the
hash of the file's text, rewriter/evidence.py) and prints one
``ONNXFIX-RESULT {"files": n, "functions": n}`` or ``{"error": "..."}`` line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from onnxfix.exporter.isolate import RESULT_MARKER


def main() -> None:
    request = json.loads(sys.stdin.read())
    sys.path[:0] = request.get("sys_path", [])
    try:
        result = record(request["model"], request["inputs"], Path(request["folder"]), request.get("watch"),
                        request.get("probes"))
    except Exception as exc:  # the user's model does not load or run: no evidence, fixes stay static
        from onnxfix.exporter.errors import describe

        result = {"error": describe(exc)[:2000]}
    print(RESULT_MARKER + json.dumps(result), flush=True)


def record(model_spec: str, inputs_spec: str, folder: Path, watch: list | None = None,
           probes_spec: str | None = None) -> dict:
    import torch

    from onnxfix.exporter.recorder import Recorder
    from onnxfix.exporter.targets import load_spec
    from onnxfix.exporter.worker import as_tuple
    from onnxfix.rewriter import evidence
    from onnxfix.rewriter.source import SourceError, SourceFile

    torch.manual_seed(0)
    model = load_spec(model_spec)().eval()
    args = as_tuple(load_spec(inputs_spec)())
    watched: dict[str, dict[int, tuple[str, ...]]] = {}
    for file, line, conditions in watch or ():
        at_line = watched.setdefault(os.path.realpath(file), {})  # two entries for one line: both lists
        at_line[int(line)] = tuple(dict.fromkeys((*at_line.get(int(line), ()), *conditions)))
    with torch.no_grad(), Recorder(watched) as recorder:
        model(*args)
    if watched and probes_spec:  # the conditions on the probes too; their types stay unrecorded
        recorder.held.update(_held_on_probes(model, probes_spec, watched, recorder.held))
    functions = 0
    stored = 0
    recorded = recorder.by_file()
    for file in watched.keys() - recorded.keys():  # never ran: not held (and not asked again)
        try:
            text = SourceFile.read(Path(file)).text
        except (SourceError, OSError):
            continue
        evidence.add_checks(folder, text, None, [(line, c, False) for line, cs in watched[file].items() for c in cs])
    for file, records in recorded.items():
        try:
            text = SourceFile.read(Path(file)).text  # the text the rules will see
        except SourceError:
            continue
        if watch:  # kept beside what earlier runs noted of this text (its guard lines)
            checks = [(line, condition, recorder.held.get((file, line, condition), False))  # never ran: not held
                      for line, conditions in watched.get(file, {}).items() for condition in conditions]
            evidence.add_checks(folder, text, evidence.to_json(records), checks)
        else:
            evidence.store(folder, text, evidence.to_json(records))
        stored += 1
        functions += len(records)
    return {"files": stored, "functions": functions}


def _held_on_probes(model, probes_spec: str, watched: dict, held: dict) -> dict:
    """``held`` and'ed with each watched condition's truth on every probe input set (a probe
    eager rejects proves nothing and is skipped)."""
    import torch

    from onnxfix.exporter.recorder import Recorder
    from onnxfix.exporter.targets import load_spec
    from onnxfix.exporter.worker import as_tuple

    merged = dict(held)
    for probe in load_spec(probes_spec)():
        with torch.no_grad(), Recorder(watched) as recorder:
            try:
                model(*as_tuple(probe))
            except Exception:
                continue
        for key, value in recorder.held.items():
            merged[key] = merged.get(key, True) and value
    return merged


if __name__ == "__main__":
    main()
