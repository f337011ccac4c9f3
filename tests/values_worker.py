"""Child process for test_values_exporters: export every model class of a file with one
exporter and print one JSON line per class (verdict, failing probe, first error line)."""

import json
import sys
from pathlib import Path

from onnxfix.exporter.probes import user_probes
from onnxfix.exporter.targets import load_module
from onnxfix.exporter.verify import verify


def main(path: str, exporter: str, names: list[str]) -> None:
    module = load_module(Path(path))
    for name in names:
        verdict = verify(getattr(module, name), module.example_inputs(), user_probes(module.probe_inputs()),
                         exporter, module.DYNAMIC)
        probes_ran = [p.probe for p in verdict.probes]
        print("VALUES " + json.dumps([name, verdict.verdict, verdict.failing_probe, verdict.error[:200], probes_ran]),
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
