"""Re-measure the test models' originals and rewrite their records (tests/recorded_originals.py).

    python tests/update_originals.py [flow] [values]
    python tests/update_originals.py flow|values NAME [NAME ...]

Run it after changing a model in tests/flow_models or tests/values_models.py, or the installed
torch, onnx, onnxruntime or onnxscript, and review the diff: a verdict that moved is a finding.
With names, only those models are measured and merged into the record (a model added or
changed); that needs the record's versions to be the installed ones, else everything is re-measured.
"""

from __future__ import annotations

import sys

import recorded_originals as records


def update_flow(names: list[str]) -> None:
    from test_flow_proofs import CASES, measure_originals

    _update(records.FLOW_RECORD, sorted(CASES), names, measure_originals)


def update_values(names: list[str]) -> None:
    from test_values_exporters import ORIGINAL, measure_originals

    _update(records.VALUES_RECORD, sorted(ORIGINAL), names, measure_originals)


def _update(record, every: list[str], names: list[str], measure) -> None:
    unknown = sorted(set(names) - set(every))
    if unknown:
        raise SystemExit(f"not a model of this record: {', '.join(unknown)}")
    versions, old = records.installed_versions(), records.load(record)
    if not names or old["versions"] != versions:  # another install: every verdict may have moved
        records.save(record, versions, measure(every))
        return
    kept = {name: entry for name, entry in old["models"].items() if name in every}
    records.save(record, versions, {**kept, **measure(names)})


def main(arguments: list[str]) -> None:
    kinds = {"flow": update_flow, "values": update_values}
    if len(arguments) > 1 and arguments[0] in kinds and arguments[1] not in kinds:
        kinds[arguments[0]](arguments[1:])
        print(f"updated {len(arguments) - 1} model(s) of the {arguments[0]} originals' record")
        return
    for kind in arguments or list(kinds):
        kinds[kind]([])
        print(f"updated the {kind} originals' record")


if __name__ == "__main__":
    main(sys.argv[1:])
