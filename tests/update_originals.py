"""Re-measure the test models' recorded exports and rewrite their records: the originals'
verdicts (tests/recorded_originals.py) and the fixed models' proof exports (tests/recorded_exports.py).

    python tests/update_originals.py [flow] [values] [fixed] [fixtures] [values-fixed] [helpers]
    python tests/update_originals.py flow|values|fixed|fixtures NAME [NAME ...]

flow / values: the originals of tests/flow_models and tests/values_models.py. fixed: the rewritten
flow models; fixtures: the ONX5xx fixtures' rewrites (NAME: `ONX513/old_svd`, or a code);
values-fixed: the rewritten tests/values_models.py (one text: all its classes); helpers: the legacy
export of every decomposition's proof, by registry family (tests/test_decompositions.py).
Run it after changing a model, a rule's rewrite or a helper's body, or the installed torch, onnx,
onnxruntime or onnxscript, and review the diff: a verdict that moved is a finding. With names, only
those models are measured and merged into the record (a model added or changed); that needs the
record's versions to be the installed ones, else everything is re-measured.
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


def update_fixed(names: list[str]) -> None:
    from test_flow_proofs import CASES, update_fixed_record

    unknown = sorted(set(names) - set(CASES))
    if unknown:
        raise SystemExit(f"not a flow model: {', '.join(unknown)}")
    update_fixed_record(names or sorted(CASES))


def update_fixtures(names: list[str]) -> None:
    from test_operator_fixtures import update_fixtures_record

    update_fixtures_record(tuple(names) or ("ONX5",))


def update_helpers(names: list[str]) -> None:
    from test_decompositions import update_helpers_record

    if names:
        raise SystemExit("helpers records every family's export: no names")
    update_helpers_record()


def update_values_fixed(names: list[str]) -> None:
    import tempfile
    from pathlib import Path

    from test_values_exporters import update_fixed_record

    if names:
        raise SystemExit("values-fixed records the whole rewritten file: no names")
    update_fixed_record(Path(tempfile.mkdtemp(prefix="onnxfix-values-")))


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
    kinds = {"flow": update_flow, "values": update_values, "fixed": update_fixed, "fixtures": update_fixtures,
             "values-fixed": update_values_fixed, "helpers": update_helpers}
    if len(arguments) > 1 and arguments[0] in kinds and arguments[1] not in kinds:
        kinds[arguments[0]](arguments[1:])
        print(f"updated {len(arguments) - 1} model(s) of the {arguments[0]} record")
        return
    for kind in arguments or list(kinds):
        kinds[kind]([])
        print(f"updated the {kind} record")


if __name__ == "__main__":
    main(sys.argv[1:])
