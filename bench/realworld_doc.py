"""docs/realworld.md, rendered from the raw results of the two benchmarks that fill it: the
real-world corpus (bench/realworld.py -> bench/out/realworld.json) and the transformers
architectures (bench/transformers_export.py -> bench/out/transformers_export.json, its last
section). Both scripts import this module; neither imports the other.

usage: python bench/realworld_doc.py    # rewrite docs/realworld.md from the two raw json files
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DOC = ROOT / "docs" / "realworld.md"
RAW = BENCH / "out" / "realworld.json"
TRANSFORMERS_RAW = BENCH / "out" / "transformers_export.json"
# The blind batches as first measured, before any rule or repair was changed for them: kept apart
# from realworld.json (which later runs overwrite) so that the blind column never moves.
BLIND_FIRST = BENCH / "out" / "realworld_blind_first.json"
EXPORTERS = ("dynamo", "legacy")
VARIANTS = ("before", "safe", "unsafe")


def error_and_cause(verdict) -> tuple[str, str]:
    """A verdict's first error line and its innermost cause (the last of the chained `<-` causes:
    torch.onnx's "Failed to export ... step 1/3" wraps the guard or the operator that failed),
    or a failing probe's note; the cause is "" where it is the error itself."""
    error = (verdict.error or "").strip()
    causes = [c.strip() for c in error.split("\n  <- ") if c.strip()]
    first = causes[0].splitlines()[0] if causes else ""
    innermost = causes[-1].splitlines()[0] if causes else ""
    bad = next((p for p in verdict.probes if not p.ok), None)
    if not first and bad:
        first = f"{bad.probe}: {bad.note or f'max abs error {bad.max_abs}'}"
    return first, innermost if innermost != first else ""


def ok(r: dict, exporter: str, variant: str) -> bool:
    return r["exports"][exporter][variant]["verdict"] == "OK"


def loud(verdict: dict) -> bool:
    return verdict["verdict"] in ("EXPORT-FAILS", "ORT-FAILS")


def silent(verdict: dict) -> bool:
    return verdict["verdict"] == "SILENTLY-WRONG"


def both_ok(r: dict, variant: str) -> bool:
    return all(ok(r, e, variant) for e in EXPORTERS)


def export_ok(r: dict, exporter: str) -> bool:
    """OK after `onnxfix export --write --unsafe-fixes` (False where that variant was not run)."""
    return "export_fix" in r and r["export_fix"]["exports"][exporter]["verdict"] == "OK"


def export_fix_totals(failing_d: list[dict], failing_any: list[dict]) -> list[str]:
    ran_d = [r for r in failing_d if "export_fix" in r]
    ran_any = [r for r in failing_any if "export_fix" in r]
    if not ran_any:
        return []
    d = sum(export_ok(r, "dynamo") for r in ran_d)
    b = sum(all(export_ok(r, e) for e in EXPORTERS) for r in ran_any)
    where = "" if len(ran_any) == len(failing_any) else (
        f" (run on the {len(ran_any)} of {len(failing_any)} failing cases not OK under both exporters after "
        "`--write --unsafe-fixes`)")
    return [f"- `onnxfix export --exporter both --write --unsafe-fixes`: {d}/{len(ran_d)} dynamo-failing cases OK "
            f"under dynamo; {b}/{len(ran_any)} failing cases OK under both exporters{where}"]


def totals(results: list[dict]) -> list[str]:
    cases = [r for r in results if not r["control"]]
    controls = [r for r in results if r["control"]]
    failing_d = [r for r in cases if not ok(r, "dynamo", "before")]
    failing_any = [r for r in cases if not both_ok(r, "before")]
    lines = [f"- cases: {len(cases)} (+ {len(controls)} clean controls)",
             f"- failing under dynamo before: {len(failing_d)}; under at least one exporter: {len(failing_any)}"]
    for variant in ("before", "safe", "unsafe"):
        d = sum(ok(r, "dynamo", variant) for r in failing_d)
        b = sum(both_ok(r, variant) for r in failing_any)
        lines.append(f"- {variant}: {d}/{len(failing_d)} dynamo-failing cases OK under dynamo; "
                     f"{b}/{len(failing_any)} failing cases OK under both exporters")
    lines += export_fix_totals(failing_d, failing_any)
    changed = sorted({r["name"] for r in results for v in ("safe", "unsafe") if r["eager"].get(v)}
                     | {r["name"] for r in results if r.get("export_fix", {}).get("eager")})
    lines.append(f"- eager outputs changed by a fix: {len(changed)}" + (f" ({', '.join(changed)})" if changed else ""))
    touched = sorted({r["name"] for r in controls if any(r["changed"].values())})
    lines.append(f"- controls modified by `--write --unsafe-fixes`: {len(touched)}" + (f" ({', '.join(touched)})" if touched else ""))
    worse = sorted({r["name"] for r in results for e in EXPORTERS for v in ("safe", "unsafe")
                    if ok(r, e, "before") and not ok(r, e, v)}
                   | {r["name"] for r in results for e in EXPORTERS
                      if "export_fix" in r and ok(r, e, "before") and not export_ok(r, e)})
    lines.append(f"- cases worse after a fix under some exporter: {len(worse)}" + (f" ({', '.join(worse)})" if worse else ""))
    silenced = sorted({r["name"] for r in results for e in EXPORTERS for v in ("safe", "unsafe")
                       if loud(r["exports"][e]["before"]) and silent(r["exports"][e][v])}
                      | {r["name"] for r in results for e in EXPORTERS if "export_fix" in r
                         and loud(r["exports"][e]["before"]) and silent(r["export_fix"]["exports"][e])})
    lines.append(f"- loud failures (export or onnxruntime fails) a fix turned SILENTLY-WRONG: {len(silenced)}"
                 + (f" ({', '.join(silenced)})" if silenced else ""))
    wrong = [r["name"] for r in results if r["write_status"].get("unsafe")]
    if wrong:
        lines.append(f"- `onnxfix --write` errors: {', '.join(wrong)}")
    return lines


def codes(r: dict) -> str:
    found = sorted({f["code"] + ("*" if f["fix"] == "safe" else "+" if f["fix"] == "unsafe" else "") for f in r["findings"]})
    return " ".join(found) or "none"


def coverage(results: list[dict]) -> list[str]:
    """Cases per failure class and per onnxfix rule family (patterns/ module)."""
    lines = ["| class | cases | failing under dynamo before | failing under an exporter before | controls |",
             "|---|---|---|---|---|"]
    for cls in sorted({r["class"] for r in results}):
        rs = [r for r in results if r["class"] == cls]
        cases = [r for r in rs if not r["control"]]
        lines.append(f"| {cls} | {len(cases)} | {sum(not ok(r, 'dynamo', 'before') for r in cases)} | "
                     f"{sum(not both_ok(r, 'before') for r in cases)} | {len(rs) - len(cases)} |")
    families = {}
    for r in results:
        families.setdefault(r["family"], []).append(r["name"])
    lines += ["", "| rule family (onnxfix/patterns) | cases |", "|---|---|"]
    lines += [f"| {fam} | {len(names)} |" for fam, names in sorted(families.items())]
    return lines


def misses(results: list[dict]) -> list[str]:
    """Failing cases the catalog does not end OK under both exporters, grouped by class."""
    groups: dict[str, list[str]] = {}
    for r in results:
        if r["control"] or both_ok(r, "before") or both_ok(r, "unsafe"):
            continue
        why = "no finding" if not r["findings"] else ("reported, no fix" if not r["changed"].get("unsafe")
                                                      else "fixed, still failing")
        still = ", ".join(f"{e} {r['exports'][e]['unsafe']['verdict']}" for e in EXPORTERS if not ok(r, e, "unsafe"))
        groups.setdefault(r["class"], []).append(f"  - `{r['name']}`: {why} ({codes(r)}); after unsafe fixes: {still}")
    lines = []
    for cls in sorted(groups):
        lines.append(f"- **{cls}** ({len(groups[cls])})")
        lines.extend(groups[cls])
    return lines


def record_first_blind_results(results: list[dict], commit: str) -> None:
    """Keep the blind results of cases measured for the first time (bench/realworld.py calls it): a
    batch's first run, and a case a late writer added to a batch already measured (its commit kept in
    the batch's "late")."""
    first = json.loads(BLIND_FIRST.read_text()) if BLIND_FIRST.exists() else {}
    for r in results:
        if not r.get("blind"):
            continue
        batch = first.setdefault(r["blind"], {"commit": commit, "results": {}})
        if batch["commit"] == commit:
            batch["results"][r["name"]] = r
        elif r["name"] not in batch["results"]:
            batch["results"][r["name"]] = r
            batch.setdefault("late", {})[r["name"]] = commit
    BLIND_FIRST.parent.mkdir(parents=True, exist_ok=True)
    BLIND_FIRST.write_text(json.dumps(first, indent=1, sort_keys=True))


def _batch_order(batch: str) -> tuple[str, int]:
    """`domains-9` before `domains-10`: the family, then the batch's number."""
    family, _, number = batch.rpartition("-")
    return (family, int(number)) if number.isdigit() else (batch, 0)


def blind_section(results: list[dict]) -> list[str]:
    """The cases written from their public report alone, as first measured (before any rule was
    changed for them), per batch, apart from the cases the rules were built against."""
    first = json.loads(BLIND_FIRST.read_text()) if BLIND_FIRST.exists() else {}
    if not first:
        return []
    lines = ["", "## Blind column: cases written from the report alone", "",
             "Each case below was written by someone told only the public report: without reading onnxfix's rules,",
             "fixtures or docs, and without running onnxfix on it (`bench/case_before.py` shows only the before",
             "verdicts; the writers' prompt and manifests are in tests/realworld/blind_manifests/). The totals are",
             "those of the first measurement, at the commit named, before any rule or repair was changed for them",
             "(bench/out/realworld_blind_first.json); the per-case table below shows the latest run.", ""]
    for batch in sorted(first, key=_batch_order):
        measured = list(first[batch]["results"].values())
        late = first[batch].get("late", {})
        added = f"; {len(late)} added later, first measured at commit {', '.join(sorted(set(late.values())))}" if late else ""
        lines += [f"### Batch `{batch}` (first measured at commit {first[batch]['commit']}{added})", ""] + totals(measured) + [""]
        latest = [r for r in results if r.get("blind") == batch]
        if latest:  # after rules were changed: reported apart, the blind figures above do not move
            lines += ["Latest run (rules changed since; not blind any more):", ""] + totals(latest)[2:] + [""]
    return lines


def export_cell(r: dict) -> str:
    if "export_fix" not in r:
        return "-"
    cell = ", ".join(r["export_fix"]["exports"][e]["verdict"] for e in EXPORTERS)
    keys = r["export_fix"].get("decompositions")
    return cell + (f" (export-time: {', '.join(keys)})" if keys else "")


def render(results: list[dict], torch_version: str) -> str:
    out = ["# Real-world corpus: public export failures, before and after onnxfix", "",
           "Generated by `python bench/realworld.py` (do not edit by hand). Each case in `tests/realworld/` re-creates",
           "one export failure from a public issue (URL in its docstring); controls (`CONTROL = True`) are the",
           "upstream-fixed twins. Per case: `onnxfix --exporters dynamo,legacy` report, `--write` (safe) and",
           "`--write --unsafe-fixes` on copies, eager outputs compared with `torch.equal` on `example_inputs()` and",
           "`other_inputs()`, then each exporter run through onnxfix's export checker (onnxruntime on the example,",
           "`other_inputs()` (new values and new sizes of the dynamic dims), re-drawn values and grown dynamic dims).",
           f"torch {torch_version}.", "",
           "Verdicts: before -> after `--write` -> after `--write --unsafe-fixes`. Findings: `*` safe fix, `+` unsafe fix.",
           "\"Eager outputs changed\" is `torch.equal` (bit-identical) on every input set: a decomposition that agrees",
           "to float rounding counts as a change. \"Worse\" counts an exporter that was OK before and is not after.",
           "", "Classes (issue #13): `cross-call` values that cross a call; `size-branch` Python branches / builtins on",
           "sizes under dynamic shapes; `data-dependent-size` sizes taken from tensor values (with or without an exact",
           "static bound); `numpy-from-shape` / `numpy` NumPy arrays built from shapes or data; `data-dependent-exit`",
           "early exits and empty checks on values; `dynamic-loop` loops over dynamic sizes; `item-assigned` `.item()`",
           "assigned to a name and used later; `operator` operators that do not export on torch 2.13;",
           "`autograd-function` code reached through `torch.autograd.Function.apply`; `exporter-defaults` pitfalls that",
           "only the legacy exporter hits; `constant-tensor` tensors built from Python values in forward; `indexing`,",
           "`views` index and view writes. A case fails when some exporter's verdict is not OK before any fix.",
           f"Run: `python bench/realworld.py` (all {len(results)} cases, two at a time by default; `--blind --export-fix --update`, the "
           f"{sum(1 for r in results if r.get('blind'))} blind\ncases also through `onnxfix export --write --unsafe-fixes`), `--update CASE ...` to",
           "re-run some and merge, `--render` to rewrite this file from bench/out/realworld.json.", "",
           "## Totals", "", "Cases the rules were written against (the blind cases have their own section).", ""]
    out += totals([r for r in results if not r.get("blind")]) + blind_section(results) + [
           "", "## Coverage", ""] + coverage(results) + [
           "", "## Per case", "",
           "`export --write`: dynamo, legacy verdicts after `onnxfix export --exporter both --write --unsafe-fixes`",
           "(- where not run), verified on the case's own inputs: the written file, exported with the",
           "decompositions the command's last export ran with, named after the verdicts (\"export-time\": code",
           "it does not edit, the ONNX file the command writes carries them). Blind cases are marked with their batch.", "",
           "| case | class | family | dynamo | legacy | export --write | findings | eager | source |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        cells = [" -> ".join(r["exports"][e][v]["verdict"] for v in VARIANTS) for e in EXPORTERS]
        eager = "; ".join(f"{v}: {r['eager'][v]}" for v in ("safe", "unsafe") if r["eager"].get(v))
        if r.get("export_fix", {}).get("eager"):
            eager += ("; " if eager else "") + f"export: {r['export_fix']['eager']}"
        name = r["name"] + (" (control)" if r["control"] else "") + (f" (blind {r['blind']})" if r.get("blind") else "")
        out.append(f"| {name} | {r['class']} | {r['family']} | {cells[0]} | {cells[1]} | {export_cell(r)} | {codes(r)} | "
                   f"{eager or 'unchanged'} | {r['url']} |")
    out += ["", "## What the catalog misses (input for the next rules)", "",
            "Failing cases not OK under both exporters after `--write --unsafe-fixes`, grouped by class.", ""]
    out += misses(results) or ["- none"]
    out += ["", "## First error per failing export (before)", ""]
    for r in results:
        for e in EXPORTERS:
            v = r["exports"][e]["before"]
            if v["verdict"] != "OK":
                out.append(f"- `{r['name']}` {e} {v['verdict']}: {v.get('cause') or v['error'] or v['probe']}"
                           .replace("|", "\\|"))
    out += transformers_section()
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- transformers architectures

INPUT_NOTES = {arch: "input_ids only: vision side not run" for arch in ("llava_onevision", "mllama", "qwen3_vl",
                                                                      "qwen3_vl_moe", "llama4")}
INPUT_NOTES.update(ibert="quant_mode=True", janus="VQ-VAE encode", chameleon="VQ-VAE encode", udop="input_ids, bbox, decoder_input_ids",
                   t5="T5EncoderModel", whisper="WhisperEncoder", efficientloftr="2 image pairs")

# Read by hand from the root lines of the last run (transformers 5.23, torch 2.13): why each failure
# happens, at which line, and whether a faithful rewrite exists. Re-check after a new run.
ANALYSIS = {
    "bit": "Newly measured (not one of the recipes): off by 2.3e-4 relative where the bound is 1e-4, from the "
           "first weight-standardized convolution on (models/bit/modeling_bit.py:124). The standardization "
           "(`F.batch_norm(weight, training=True)`) exports exactly when checked alone (1e-6), so this is "
           "accumulated rounding of a wide convolution or a real divergence: not traced further.",
    "llama4": "complex-valued RoPE: `apply_rotary_emb` (models/llama4/modeling_llama4.py:350, the call; the op is "
              "`torch.view_as_complex`/complex multiply inside it) has no ONNX translation for complex tensors "
              "(ONX920). Rewritable with real arithmetic on the (even, odd) pairs, as llama's `rotate_half` does; "
              "the complex product may round differently, so such a rule's fix would be unsafe. No rule today.",
    "phimoe": "`transformers.grouped_mm_fallback`, the custom op of the default experts implementation "
              "(integrations/moe.py:634, chosen by `config._experts_implementation`) has no ONNX function "
              "(ONX920). Not a source pattern of the model: configuring the eager experts loop may avoid it "
              "(not measured); no static rewrite of transformers' dispatch is faithful to the option.",
    "qwen3_vl_moe": "same as phimoe: `transformers.grouped_mm_fallback` at integrations/moe.py:634 (ONX920).",
    "reformer": "`torch.cat([torch.index_select(position_encodings[i], 0, position_ids[i]).unsqueeze(0) for i in "
                "range(batch_size)])` (models/reformer/modeling_reformer.py:289) unrolls over the batch: guard "
                "Eq(batch, 2) (ONX914, linked to ONX603, which has no fix for this form). Faithful rewrite exists: "
                "`torch.gather(position_encodings, 1, position_ids[..., None].expand(-1, -1, D))` selects the same "
                "elements. Candidate for a rule (per-row index_select in a comprehension -> gather).",
    "rwkv": "`for current_index in range(seq_length):` recurrence over time (models/rwkv/modeling_rwkv.py:180, "
            "the CPU path of rwkv_linear_attention): torch.export unrolls it, seq pinned to 7 (ONX914, linked to "
            "ONX603). Each step depends on the previous state; no fixed-graph rewrite without a scan/Loop, which "
            "the dynamo exporter does not produce here. Reported, no faithful rewrite.",
    "superpoint": "`[self.keypoint_decoder(h[None, ...]) for h in last_hidden_state]` iterates over the batch "
                  "(models/superpoint/modeling_superpoint.py:423; batch pinned to 2, ONX914, no static finding: "
                  "iterating a tensor in a comprehension is not caught), and each image keeps a data-dependent "
                  "number of keypoints (thresholding). Output sizes depend on values: no faithful fixed-shape rewrite.",
    "t5": "fails in torch.onnx's decomposition step (2/3): `attn_output.reshape(*input_shape, -1)` "
          "(models/t5/modeling_t5.py:366) becomes a `view` of SDPA's output in another layout: CPU SDPA picks "
          "its kernel by whether the mask (T5's position bias, from a Parameter) requires grad, and the type "
          "promotion pass re-runs the graph with the parameters' requires_grad fake values. An exporter bug "
          "(docs/upstream/sdpa-mask-requires-grad-view.md); onnxfix's `contiguous` export-time repair (a clone "
          "in the memory format) is named by the failure.",
    "udop": "symptom at models/udop/modeling_udop.py:969 (`attention_mask.size(1)` on None); root at line 1184: "
            "`if attention_mask is None and not is_torchdynamo_compiling():` skips building the default mask "
            "under export only, so the export path differs from eager. Passing `attention_mask` should avoid it (not run); a "
            "faithful rewrite drops the guard (`torch.ones(batch, seq)` exports). Candidate for a rule "
            "(an export guard that leaves a value None that later code uses); not reported today.",
}

ROOT_CODES = ("ONX913", "ONX914", "ONX915", "ONX916", "ONX920", "ONX912", "ONX911", "ONX945", "ONX941", "ONX940")


def final_summary(row: dict) -> dict:
    """The last stage run: the export with the run's decompositions, else after, else before."""
    return row.get("decomposed") or row["after"] or row["before"]


def verdict_after(row: dict) -> str:
    return final_summary(row)["verdict"]


def after_cell(row: dict) -> str:
    static = "(unchanged)" if row["after"] is None else row["after"]["verdict"]
    decomposed = row.get("decomposed")
    if not decomposed:
        return static
    return f"{static}; with `--decompose-ops {','.join(decomposed['decompose'])}`: {decomposed['verdict']}"


def root_finding(summary: dict) -> dict | None:
    """The finding that names the cause: by code priority, at a transformers line first."""
    ranked = sorted(summary["findings"], key=lambda f: (f["where"].startswith("<wrapper>"),
                                                        ROOT_CODES.index(f["code"]) if f["code"] in ROOT_CODES else 99))
    return ranked[0] if ranked else None


def _cell(text: str, width: int = 160) -> str:
    text = " ".join((text or "").split()).replace("|", "/")
    return text if len(text) <= width else text[: width - 3] + "..."


def transformers_section() -> list[str]:
    """The transformers architectures' section (empty without bench/transformers_export.py's raw json)."""
    if not TRANSFORMERS_RAW.exists():
        return []
    data = json.loads(TRANSFORMERS_RAW.read_text())
    rows = list(data["archs"].values())
    meta = data["meta"]
    from transformers_worker import RECIPES

    recipes = [r for r in rows if r["arch"] in RECIPES]
    ok_before = [r for r in rows if r["before"]["verdict"] == "OK"]
    ok_after = [r for r in rows if verdict_after(r) == "OK"]
    fixed = [r["arch"] for r in rows if r["before"]["verdict"] != "OK" and verdict_after(r) == "OK"]
    worse = [r["arch"] for r in rows if r["before"]["verdict"] == "OK" and verdict_after(r) != "OK"]
    different = [r["arch"] for r in rows if r["eager"] not in ("identical", "unchanged")]
    lines = [
        "", "## Transformers architectures: export before and after `--write --unsafe-fixes` (and the run's decompositions)", "",
        "Generated by `python bench/transformers_export.py` (raw results: bench/out/transformers_export.json;",
        "`--archs a,b` re-runs some and merges). Each architecture is built from a small config (random weights,",
        "nothing downloaded; the recipes of bench/transformers_worker.py plus a few common ones), with",
        "`use_cache=False` wherever its config or a sub-config has the key, wrapped so that forward takes the",
        "recipe's tensors positionally and returns every output tensor flat, and run through onnxfix's export",
        "session (`onnxfix export`'s machinery): the default dynamo exporter, batch (and for token inputs sequence)",
        "dims dynamic, onnx.checker, onnxruntime against eager on the example (batch 2), a probe of new values with",
        "batch + 1 and sequence - 3, and onnxfix's generated probes (new values; dynamic dims + 1 and + 3).",
        "\"Before\" imports an unmodified copy of transformers, \"after\" a copy whose model folders",
        "`onnxfix --write --unsafe-fixes` (dynamo) rewrote; both are copies so that findings land on transformers'",
        "lines (imported from site-packages, reformer and udop give the same verdicts, with every finding at the",
        "harness's forward instead). The after model loads the before model's weights; \"eager\" compares their outputs (`torch.equal`).",
        "Where the after export still fails and the run names onnxfix decompositions of the failing operators (the",
        "`--decompose-ops` hint `onnxfix export` prints), it is exported once more with them, as a user would: the",
        "decompositions replace the ops only while exporting, so eager is untouched (the fix for code in site-packages).",
        f"transformers {meta.get('transformers', '?')}, torch {meta.get('torch', '?')}; "
        f"a full run took {meta.get('full_run_minutes', '?')} minutes on 2 shared cores.", "",
        "### Totals", "",
        f"- architectures: {len(rows)} ({len(recipes)} of the equivalence recipes)",
        f"- OK before: {len(ok_before)} ({sum(r in ok_before for r in recipes)} of {len(recipes)} recipes); "
        f"OK after: {len(ok_after)} ({sum(r in ok_after for r in recipes)} of {len(recipes)} recipes)",
        f"- turned OK by the rewrite: {len(fixed)}" + (f" ({', '.join(fixed)})" if fixed else ""),
        f"- OK before, not after: {len(worse)}" + (f" ({', '.join(worse)})" if worse else ""),
        f"- eager outputs changed by the rewrite: {len(different)}" + (f" ({', '.join(different)})" if different else ""),
        f"- goal (issue #13) at least 20 of the {len(recipes)} recipes OK: "
        f"{'met' if sum(r in ok_after for r in recipes) >= 20 else 'not met'}; issue #25: at least 26: "
        f"{'met' if sum(r in ok_after for r in recipes) >= 26 else 'not met'}",
        f"- OK only with the run's export-time decompositions (no source edit can carry them: custom ops, "
        f"exporter bugs): {', '.join(r['arch'] for r in rows if r.get('decomposed') and r['decomposed']['verdict'] == 'OK') or 'none'}", "",
        "### Per architecture", "",
        "| architecture | config notes | before | error (before) | fixes | after | eager | root finding (before) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        notes = []
        if r.get("use_cache_off"):
            notes.append("use_cache=False" + ("" if r["use_cache_off"] == ["config"] else f" ({', '.join(r['use_cache_off'])})"))
        dims = "; ".join(f"in{i}:" + ",".join(f"{d}={n}" for d, n in dd.items()) for i, dd in r["dynamic"].items())
        if r["arch"] in INPUT_NOTES:
            notes.append(INPUT_NOTES[r["arch"]])
        notes.append(f"dynamic {dims}")
        if r["dynamic_note"]:
            notes.append(r["dynamic_note"])
        b = r["before"]
        error = "" if b["verdict"] == "OK" else (b["cause"] or b["error"])
        after = after_cell(r)
        root = root_finding(b) if b["verdict"] != "OK" else None
        root_text = f"{root['code']} {root['where']}: {root['message']}" if root else ""
        if root and root["fixed_by"]:
            root_text += f" (fixed by {', '.join(root['fixed_by'])})"
        lines.append(f"| {r['arch']} | {_cell('; '.join(notes), 120)} | {b['verdict']} | {_cell(error)} | "
                     f"{r['fixes']} | {after} | {_cell(r['eager'], 80)} | {_cell(root_text, 240)} |")
    lines += ["", "### After the rewrite, still failing: root line and whether a faithful rewrite exists", "",
              "The verdict and finding after `--write --unsafe-fixes` (\"unchanged\": onnxfix changed none of the",
              "architecture's files), then the reading of the root line (written by hand from the findings above;",
              "`ANALYSIS` in bench/realworld_doc.py).", ""]
    still = [r for r in rows if verdict_after(r) != "OK"]
    for r in still:
        a = final_summary(r)
        root = root_finding(a)
        lines.append(f"- `{r['arch']}` {a['verdict']}{'' if r['after'] else ' (unchanged)'}: "
                     f"{_cell(a['cause'] or a['error'], 200)}" + (f"; {root['code']} at {root['where']}" if root else ""))
        if r["arch"] in ANALYSIS:
            lines.append(f"  - {ANALYSIS[r['arch']]}")
    if not still:
        lines.append("- none")
    return lines + hw_section(rows)


# Why an image architecture still fails with dynamic height and width (read from the root lines of
# the last --hw run, transformers 5.23, torch 2.13).
HW_ANALYSIS = {
    "swin": "After ONX607 and ONX608 (the patch embedding's pad and the window crop, now always), the root "
            "is `SwinPatchMerging.maybe_pad` (models/swin/modeling_swin.py:303): `should_pad = (height % 2 == 1) "
            "or (width % 2 == 1)` then a pad of `width % 2`, the zero pad ONX601 makes unconditional; but "
            "height and width reach it as a tuple (`input_dimensions`) returned by the embeddings, which "
            "onnxfix's size oracle does not follow through calls' return values, so no rule reports it.",
    "bit": "Not an export error: at the old 32 x 32 input the last stage's map is 1 x 1, so its GroupNorm "
           "(32 groups of 32 channels, models/bit/modeling_bit.py:143) normalizes one value per group, "
           "exactly 0; ATen's CPU kernel returns rounding noise up to 1.2e-4 there and onnxruntime 0 (against "
           "a float64 run of the same model eager is 2.2e-4 off, onnxruntime 5.6e-6), which the next "
           "convolution (line 124, where it first showed) amplifies. At 64 x 64 (groups of 4 values) "
           "onnxruntime and eager agree to 4.2e-6; the bench now feeds 64 x 64.",
    "dinov2_with_registers": "`torch_int(height)` (utils/generic.py:738) is `int(x)` outside the TorchScript "
            "tracer: under torch.export it specializes the interpolated position grid (ONX914) and other "
            "sizes fail in onnxruntime. DINOv2 without registers interpolates with a scale factor and is OK. "
            "The root is in transformers' utilities, which the bench does not rewrite.",
    "focalnet": "At the old 32 x 32 example the last stage's map is 1 x 1 (`Eq((s0//32), 1)`): torch.export "
                "specializes that size of 1 (in stride and contiguity checks, first at the stage-3 downsample's "
                "projection, models/focalnet/modeling_focalnet.py:234; the modulation's lines 288-306 are its "
                "symptoms), and onnxruntime then fails at 48 x 40. No source rewrite removes a size-1 "
                "specialization; the bench now feeds 64 x 64, and ONX914 tells users the same.",
    "superpoint": "Per-image keypoint counts depend on the data (see above); with dynamic height and width the "
                  "export fails on the batch dimension first.",
}


def hw_section(rows: list[dict]) -> list[str]:
    """Image models exported with dynamic height and width (`--hw`), when measured."""
    measured = [r for r in rows if r.get("dynamic_hw")]
    if not measured:
        return []
    ok = [r["arch"] for r in measured if r["dynamic_hw"]["verdict"] == "OK"]
    lines = ["", "### Image models with dynamic height and width (`--hw`)", "",
             "The last variant of each image architecture (rewritten where onnxfix changed it, with the run's",
             "decompositions where they were needed) exported again with the image's height and width dynamic",
             "besides the batch (ViT with `interpolate_pos_encoding=True`), and probed with height x 1.5 and width",
             "x 1.25 (multiples of the tiny configs' patch size) besides onnxfix's generated probes. LOAD-FAILS:",
             "eager PyTorch itself rejects the probe's size (the architecture, as configured, takes one image size or",
             "sizes of another multiple): not an export failure.", "",
             f"- OK: {len(ok)} of {len(measured)}" + (f" ({', '.join(ok)})" if ok else "")
             + f"; of those whose eager model takes other sizes: {len(ok)} of "
             f"{sum(r['dynamic_hw']['verdict'] != 'LOAD-FAILS' for r in measured)}", "",
             "| architecture | verdict | error / failing probe | root finding |", "|---|---|---|---|"]
    for r in measured:
        summary = r["dynamic_hw"]
        root = root_finding(summary) if summary["verdict"] != "OK" else None
        root_text = f"{root['code']} {root['where']}: {root['message']}" if root else ""
        error = "" if summary["verdict"] == "OK" else (summary["cause"] or summary["error"])
        lines.append(f"| {r['arch']} | {summary['verdict']} | {_cell(error)} | {_cell(root_text, 240)} |")
    failing = [r["arch"] for r in measured if r["dynamic_hw"]["verdict"] not in ("OK", "LOAD-FAILS")]
    if failing:
        lines += ["", "Why the others fail (read by hand from the root lines; `HW_ANALYSIS` in bench/realworld_doc.py):", ""]
        lines += [f"- {arch}: {HW_ANALYSIS.get(arch, 'not analysed yet')}" for arch in failing]
    return lines


def write(results: list[dict] | None = None, out: Path = DOC) -> None:
    """Render ``results`` (default: the corpus's raw json) with the transformers section to ``out``."""
    results = json.loads(RAW.read_text()) if results is None else results
    Path(out).write_text(render(results, importlib.metadata.version("torch")))


if __name__ == "__main__":
    write()
