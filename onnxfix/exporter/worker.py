"""Child process of isolate.run_isolated: reads an ExportRequest as JSON, prints a Verdict."""

from __future__ import annotations

import json
import sys

from onnxfix.exporter.isolate import ExportRequest


def main() -> None:
    request = ExportRequest(**json.loads(sys.stdin.read()))
    request.dynamic = {int(k): {int(d): n for d, n in v.items()} for k, v in request.dynamic.items()}
    from onnxfix.exporter.probes import generated_probes, user_probes
    from onnxfix.exporter.targets import load_spec
    from onnxfix.exporter.verify import Verdict, verify, EXPORT_FAILS

    try:
        factory = load_spec(request.model)
        args = tuple(load_spec(request.inputs)())
        probes = user_probes(load_spec(request.probes)()) if request.probes else []
        if request.generate_probes:
            probes += generated_probes(args, request.dynamic)
        verdict = verify(factory, args, probes, request.exporter, request.dynamic, request.opset,
                         out=__import__("pathlib").Path(request.out) if request.out else None)
    except Exception as exc:  # loading the user's code failed: report, do not crash
        verdict = Verdict(request.exporter, EXPORT_FAILS, error=f"could not load target: {type(exc).__name__}: {exc}")
    sys.stdout.flush()
    print("ONNXFIX-RESULT " + json.dumps(verdict.to_json()), flush=True)


if __name__ == "__main__":
    main()
