"""Re-measure the test models' originals and rewrite their records (tests/recorded_originals.py).

    python tests/update_originals.py [flow] [values]

Run it after changing a model in tests/flow_models or tests/values_models.py, or the installed
torch, onnx, onnxruntime or onnxscript, and review the diff: a verdict that moved is a finding.
"""

from __future__ import annotations

import sys

import recorded_originals as records


def update_flow() -> None:
    from test_flow_proofs import CASES, measure_originals

    records.save(records.FLOW_RECORD, records.installed_versions(), measure_originals(sorted(CASES)))


def update_values() -> None:
    from test_values_exporters import ORIGINAL, measure_originals

    records.save(records.VALUES_RECORD, records.installed_versions(), measure_originals(sorted(ORIGINAL)))


def main(which: list[str]) -> None:
    for name in which or ["flow", "values"]:
        {"flow": update_flow, "values": update_values}[name]()
        print(f"updated the {name} originals' record")


if __name__ == "__main__":
    main(sys.argv[1:])
