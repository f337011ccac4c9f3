"""Export and verify several model files with one exporter in one process (tests only).

stdin: {"exporter": "dynamo"|"legacy", "files": [...]}; stdout: one "FLOW-VERDICT <json>" line
per file. Each file defines make_model, example_inputs, probe_inputs and DYNAMIC. One process
per exporter keeps the whole batch under the test budget on two cores (torch is imported once).
"""

from __future__ import annotations

import json
import sys
import warnings


def main() -> None:
    request = json.loads(sys.stdin.read())
    from onnxfix.exporter.probes import generated_probes, user_probes
    from onnxfix.exporter.targets import load_module
    from onnxfix.exporter.verify import verify

    warnings.simplefilter("ignore")
    for path in request["files"]:
        module = load_module(__import__("pathlib").Path(path))
        args = tuple(module.example_inputs())
        dynamic = getattr(module, "DYNAMIC", {})
        probes = user_probes(module.probe_inputs()) + generated_probes(args, dynamic)
        verdict = verify(module.make_model, args, probes, request["exporter"], dynamic)
        print("FLOW-VERDICT " + json.dumps({"file": path, **verdict.to_json()}), flush=True)


if __name__ == "__main__":
    main()
