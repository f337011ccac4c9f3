"""The op_db probe's shards merged: onnxfix/data/opdb_verdicts.json (read by the rules, without
torch) and docs/opdb.md (every OpInfo entry with its verdicts).

    python bench/opdb_probe.py --render

Each failure gets a class from its message, the same classes `onnxfix export` diagnoses a run by:
no-translation (dynamo: no ONNX function for an ATen overload), no-symbolic (legacy: the operator
has no symbolic at this opset), data-dependent (a guard on a value), trace-error (torch.export
failed otherwise), exporter-error (the exporter raised otherwise), ort-kernel-gap (onnxruntime has
no kernel for the node's dtypes), invalid-graph (onnxruntime rejects the model's types), ort-error (the model does not load or run), wrong-values /
wrong-dtype / wrong-shape (silently wrong), crash, timeout. Ops that draw random numbers (an ATen
overload tagged nondeterministic_seeded) get EXPORTS instead of OK: they export and run, but their
values cannot be compared with eager's; so do bfloat16 outputs, which onnxruntime's Python API
cannot hand back.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # onnxfix's torch-free reader builds the rules' index
DATA = ROOT / "onnxfix" / "data" / "opdb_verdicts.json"
INDEX = ROOT / "onnxfix" / "data" / "opdb_failing.json"  # what the rules load: small, for the static path
DOC = ROOT / "docs" / "opdb.md"
EXPORTERS = ("dynamo", "legacy")

_OVERLOAD = re.compile(r"No ONNX function found for <OpOverload\(op='([^']+)', overload='([^']+)'\)>")
_SYMBOLIC = re.compile(r"Exporting the operator '([^']+)' to ONNX opset version \d+ is not supported")
_ORT_GAP = re.compile(r"Could not find an implementation for (\w+)\((\d+)\)")


def failure_class(result: dict) -> str:
    verdict, error = result["verdict"], result.get("error", "")
    if verdict in ("OK", "EXPORTS"):
        return ""
    if verdict in ("CRASH", "TIMEOUT"):
        return verdict.lower()
    if verdict == "SILENTLY-WRONG":
        return "wrong-dtype" if "dtype" in error else "wrong-shape" if "shape" in error else "wrong-values"
    if verdict == "ORT-FAILS":
        return "ort-kernel-gap" if _ORT_GAP.search(error) else "invalid-graph" if "INVALID_GRAPH" in error else "ort-error"
    if _OVERLOAD.search(error):
        return "no-translation"
    if _SYMBOLIC.search(error):
        return "no-symbolic"
    if "data-dependent" in error or "GuardOnDataDependent" in error:
        return "data-dependent"
    return "trace-error" if result.get("stage") == "torch.export" else "exporter-error"


def short_error(result: dict) -> str:
    """The failure in a few words: the ATen overload with no translation, the kernel missing, ..."""
    error = result.get("error", "")
    for pattern, template in ((_OVERLOAD, "no ONNX function for {0}.{1}"), (_SYMBOLIC, "no symbolic for {0}"),
                              (_ORT_GAP, "onnxruntime has no {0}({1}) kernel for these dtypes")):
        found = pattern.search(error)
        if found:
            return template.format(*found.groups())
    text = error.split(": ", 1)[-1] if ": " in error else error
    return text if len(text) <= 120 else text[:117] + "..."


def spellings(op) -> list[str]:
    """How user code can call the OpInfo entry: torch.x / torch.linalg.x / F.x, Tensor.x, and its
    aliases'. Not the in-place `Tensor.x_`: the probe runs the functional op, and the in-place one is
    another ATen op the exporters treat apart (the legacy exporter fails on `torch.fill`, not on
    `Tensor.fill_`)."""
    import torch
    names = []

    def qualified(name: str) -> str | None:
        obj = torch
        for part in name.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return "torch." + name

    for name in [op.name] + [a.name for a in op.aliases]:
        found = qualified(name)
        if found:
            names.append(found)
        method = name.rsplit(".", 1)[-1]
        if "." not in name and hasattr(torch.Tensor, method):
            names.append(f"Tensor.{method}")
    return list(dict.fromkeys(names))


def _records(shards: list[Path]) -> dict[str, dict]:
    records = {}
    for shard in shards:
        for line in shard.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash
            records[record["key"]] = record
    return records


def _draws_random(overloads: list[str]) -> bool:
    """A traced ATen overload tagged nondeterministic_seeded (cauchy_, bernoulli, normal, ...)."""
    import torch
    for name in overloads:
        namespace, op, overload = (name.split(".") + ["default"])[:3]
        packet = getattr(getattr(torch.ops, namespace, None), op, None)
        target = getattr(packet, overload, None) if packet is not None else None
        if target is not None and torch.Tag.nondeterministic_seeded in target.tags:
            return True
    return False


def merge(shards: list[Path]) -> dict:
    """{op key: {aten_name, spellings, not_probed, patterns: [...]}} for every op_db entry."""
    import onnxruntime
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    records = _records(shards)
    by_op: dict[str, list[dict]] = {}
    for record in records.values():
        by_op.setdefault(record["op"], []).append(record)
    ops = {}
    for op in op_db:
        key = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        entry = {"aten_name": op.aten_name, "spellings": spellings(op), "not_probed": "", "patterns": []}
        for record in by_op.get(key, []):
            if record.get("pattern") in (None, "-") or "skip" in record:
                entry.setdefault("skipped", []).append(
                    {"dtype": record.get("dtype", "-"), "pattern": record.get("pattern", "-"), "reason": record["skip"]})
                continue
            random = _draws_random(record.get("aten", []))  # OpInfo seeds it per call: eager looks deterministic
            pattern = {"dtype": record["dtype"], "pattern": record["pattern"], "aten": record.get("aten", [])}
            for exporter in EXPORTERS:
                result = dict(record[exporter])
                if random and result["verdict"] in ("OK", "SILENTLY-WRONG"):
                    result = {"verdict": "EXPORTS", "error": "random draws: values not comparable"}
                elif "No corresponding Numpy type" in result.get("error", ""):  # the probe's limit, not the model's
                    result = {"verdict": "EXPORTS", "error": "bfloat16 output: onnxruntime's Python API cannot return it"}
                pattern[exporter] = {"verdict": result["verdict"], "class": failure_class(result),
                                     "error": short_error(result) if result["verdict"] != "OK" else ""}
            entry["patterns"].append(pattern)
        if not entry["patterns"]:
            reasons = sorted({s["reason"] for s in entry.get("skipped", [])})
            entry["not_probed"] = "; ".join(reasons) if reasons else "not reached by the probe yet"
        ops[key] = entry
    return {"torch": torch.__version__, "onnxruntime": onnxruntime.__version__, "opset": 20,
            "entries": len(op_db), "ops": ops, "number_first": number_first(ops)}


def number_first(ops: dict) -> list[str]:
    """Function spellings that also take a number, a bool or a list where OpInfo's samples put a
    tensor first (`torch.pow(2, t)`, `torch.add(1, t)`, `torch.polygamma(1, t)`: an overload with a
    Scalar or int first), measured by calling each one: eager raises for the others, so a value
    passed first to them is a tensor (the static tensor inference's evidence)."""
    import importlib
    import warnings

    import torch
    tensor = torch.ones(2)
    found = []
    for spelling in sorted({s for e in ops.values() for s in e["spellings"] if not s.startswith("Tensor.")}):
        module, _, name = spelling.rpartition(".")
        try:
            function = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if any(_accepts(function, first, rest) for first in (2, 2.0, True, [1.0, 2.0])
                   for rest in ((), (tensor,), (1,), (tensor, tensor))):
                found.append(spelling)
    return found


def _accepts(function, first, rest) -> bool:
    try:
        function(first, *rest)
    except Exception:  # what eager refuses (TypeError, RuntimeError, ...)
        return False
    return True


def totals(data: dict) -> dict:
    patterns = [p for e in data["ops"].values() for p in e["patterns"]]
    counts = {e: Counter(p[e]["verdict"] for p in patterns) for e in EXPORTERS}
    classes = {e: Counter(p[e]["class"] for p in patterns if p[e]["class"]) for e in EXPORTERS}
    probed = sum(1 for e in data["ops"].values() if e["patterns"])
    return {"patterns": len(patterns), "verdicts": len(patterns) * len(EXPORTERS), "probed": probed,
            "counts": counts, "classes": classes}


def _by_count(counter: Counter) -> list[tuple[str, int]]:
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))  # ties by name: the same page from the stored data


def _cell(result: dict) -> str:
    return "OK" if result["verdict"] == "OK" else f"{result['verdict']} ({result['error']})".replace("|", "\\|")


def render(data: dict) -> str:
    t = totals(data)
    lines = [
        "# Every OpInfo operator under both ONNX exporters",
        "",
        "Generated by `python bench/opdb_probe.py` (do not edit by hand; `--render` rewrites it from the",
        "stored shards). Every entry of torch's OpInfo database (`op_db`, the op list torch.onnx's own",
        "consistency tests use), its sample inputs reduced to argument patterns (tensor ranks and dtypes,",
        "non-tensor and keyword arguments), per pattern one export with dynamo (torch.export + torch.onnx)",
        "and one with legacy (TorchScript), opset 20, then onnxruntime vs eager on the sample (rtol 1e-3).",
        f"torch {data['torch']}, onnxruntime {data['onnxruntime']}. The data: `onnxfix/data/opdb_verdicts.json`.",
        "",
        "## Totals",
        "",
        f"- OpInfo entries: {data['entries']}; probed: {t['probed']}; not probed (reason below): {data['entries'] - t['probed']}",
        f"- (op, argument pattern) pairs: {t['patterns']}; exporter verdicts stored: {t['verdicts']}",
    ]
    for exporter in EXPORTERS:
        counts = ", ".join(f"{v} {n}" for v, n in _by_count(t["counts"][exporter]))
        classes = ", ".join(f"{c} {n}" for c, n in _by_count(t["classes"][exporter]))
        lines.append(f"- {exporter}: {counts}; failures by class: {classes or 'none'}")
    lines += ["", "## Patterns that fail under some exporter", "",
              "| op | dtype | pattern | ATen overloads traced | dynamo | legacy |", "|---|---|---|---|---|---|"]
    clean = []
    for key, entry in sorted(data["ops"].items()):
        bad = [p for p in entry["patterns"] if any(p[e]["verdict"] not in ("OK", "EXPORTS") for e in EXPORTERS)]
        if entry["patterns"] and not bad:
            clean.append(f"{key} ({len(entry['patterns'])})")
        for p in bad:
            pattern = p["pattern"].replace("|", "\\|")
            lines.append(f"| {key} | {p['dtype']} | `{pattern}` | {', '.join(p['aten'])} | {_cell(p['dynamo'])} | {_cell(p['legacy'])} |")
    lines += ["", f"## OK on every probed pattern ({len(clean)} ops; patterns in parentheses)", "", ", ".join(clean), "",
              "## Not probed", "", "| op | reason |", "|---|---|"]
    lines += [f"| {k} | {e['not_probed']} |" for k, e in sorted(data["ops"].items()) if not e["patterns"]]
    return "\n".join(lines) + "\n"


def write(shards: list[Path]) -> None:
    from onnxfix.opdb_catalog import index_of
    data = merge(shards)
    DATA.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    INDEX.write_text(json.dumps(index_of(data), indent=1, sort_keys=True) + "\n")
    DOC.write_text(render(data))
    t = totals(data)
    print(f"{t['probed']}/{data['entries']} entries probed, {t['patterns']} patterns, {t['verdicts']} verdicts -> {DATA}, {DOC}")
