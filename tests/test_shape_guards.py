"""Root causes of dynamo shape problems (issue #12 item 1), on live exports of
tests/export_models/: the guards torch.export adds on declared dynamic dims, and data-dependent
guards, are reported at the user's line before the symptom (the onnxruntime node's line).

Each model is exported once per module (slow: seconds per export)."""

from __future__ import annotations

import pytest

from onnxfix.exporter import plan, render
from onnxfix.exporter.session import NoProgress, run_target

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def _export(spec: str):
    (result,) = run_target(plan.make_target(spec), NoProgress()).results
    return result.verdict, [render.finding_line(f) for f in result.findings]


@pytest.fixture(scope="module")
def vit():
    return _export("tests/export_models/vit_pos_embed.py:make_model")


@pytest.fixture(scope="module")
def swin():
    return _export("tests/export_models/swin_merge.py:make_model")


def test_vit_scale_through_float_is_reported_at_the_float_line_before_the_ort_symptom(vit):
    verdict, lines = vit
    assert (verdict.verdict, verdict.failing_probe) == ("ORT-FAILS", "probe 1 (user)")
    # the static rules see `float(cols + offset)` of a size (`cols = img.shape[3] // self.patch`, the
    # patch a config int from `self.patch, self.side, self.dim = 4, 4, 8`): the guard is reported there
    assert lines[0] == (
        "tests/export_models/vit_pos_embed.py:23:19: ONX914 [dynamo] dynamic img.shape[3] (\"width\", s25 in the guard) "
        "specialized by guard Eq(ToFloat((s25//4)) + 0.1, 8.1): the exported model works only for img.shape[3] in "
        "32..35; it fails e.g. for 36; a size made a Python number with float(): keep it a SymInt or a tensor "
        "(the ONX203 pattern) (reported by ONX203 at tests/export_models/vit_pos_embed.py:23: no automatic fix)"
    )
    # the symptom: onnxruntime's Add at `tokens + pos`, seven lines later (first divergence, then
    # the runtime error)
    assert [line.split(" [")[0] for line in lines] == [
        "tests/export_models/vit_pos_embed.py:23:19: ONX914", "tests/export_models/vit_pos_embed.py:30:1: ONX945",
        "tests/export_models/vit_pos_embed.py:30:1: ONX941",
    ]
    assert "while running Add node" in lines[2]


def test_swin_parity_branch_is_reported_at_both_lines_with_the_sizes_that_work(swin):
    verdict, lines = swin
    assert (verdict.verdict, verdict.failing_probe) == ("ORT-FAILS", "probe 1 (user)")
    assert lines[:2] == [
        "tests/export_models/swin_merge.py:18:1: ONX915 [dynamo] dynamic img.shape[2] (\"height\", s23 in the guard) "
        "restricted by guard Ne(Mod((s23//4), 2), 1): the exported model works only when img.shape[2] // 4 is even "
        "(img.shape[2] in 32..35, 40..43, 48..51, ...); it fails e.g. for 36; a size condition turned into a Python "
        "bool by `or`: combine with tensor ops, or pad/branch without it",
        "tests/export_models/swin_merge.py:19:12: ONX915 [dynamo] dynamic img.shape[3] (\"width\", s25 in the guard) "
        "restricted by guard Ne(Mod((s25//4), 2), 1): the exported model works only when img.shape[3] // 4 is even "
        "(img.shape[3] in 32..35, 40..43, 48..51, ...); it fails e.g. for 36; Python `if` on a size: only the branch "
        "taken at export is in the graph; compute both sides without a Python branch (torch.where, or arithmetic "
        "such as padding by `size % 2`) (fixed by ONX601 at tests/export_models/swin_merge.py:19)",
    ]
    # the first value that differs (the padding the branch skipped), then the runtime symptom
    assert lines[2] == ("tests/export_models/swin_merge.py:22:1: ONX945 [dynamo] first value that differs from PyTorch "
                        "on probe 1 (user): Slice node_slice_4: shape (1, 4, 5, 8), expected (1, 5, 5, 8) "
                        "(likely fixed by ONX601 at tests/export_models/swin_merge.py:19)")
    assert lines[3].startswith("tests/export_models/swin_merge.py:25:1: ONX941 [dynamo] on probe 1 (user): onnxruntime: ")
    assert "running Concat node" in lines[3] and len(lines) == 4


def test_data_dependent_guard_names_the_branch_and_where_the_value_was_read():
    verdict, lines = _export("tests/export_models/data_gate.py:LevelGate")
    assert verdict.verdict == "EXPORT-FAILS"
    assert lines == [
        "tests/export_models/data_gate.py:10:1: ONX913 [dynamo] GuardOnDataDependentSymNode: Could not guard on "
        "data-dependent expression zuf0 > 0.5 (unhinted: zuf0 > 0.5).  (Size-like symbols: none) (zuf0 is a value "
        "read out of a tensor at line 15: `level = x.mean().item()`); an early return on a value read out of a "
        "tensor: compute both results and select with torch.where when they have the same shape and dtype; "
        "otherwise there is no faithful rewrite (the output's shape would depend on the data)",
    ]


def test_a_data_dependent_loop_exit_says_why_no_graph_computes_it():
    """The root line (the `if` that breaks) and the reason: the iteration count depends on the data."""
    verdict, lines = _export("tests/export_models/early_exit.py:Refiner")
    assert verdict.verdict == "EXPORT-FAILS"
    assert len(lines) == 1 and lines[0].startswith("tests/export_models/early_exit.py:13:1: ONX913 [dynamo] ")
    assert lines[0].endswith(
        "; an early exit from a loop on a value read out of a tensor: how many iterations run depends on the "
        "data; no faithful rewrite to one exported graph: run a fixed bound of iterations with the finished "
        "ones masked (exact only when the extra iterations leave the result unchanged), or export the loop's "
        "body and run the loop outside the model")


def test_int_of_sizes_that_the_strict_capture_keeps_symbolic_is_no_finding():
    """torch.onnx's non-strict attempt specializes `int(x.size(2))` and fails; the strict attempt
    that produced the graph does not: only the last attempt's guards count."""
    verdict, lines = _export("tests/export_models/int_sizes.py:Head")
    assert (verdict.verdict, lines) == ("OK", [])
    assert [p.probe for p in verdict.probes] == [
        "export inputs", "generated (other values)", "generated (dynamic dims +1)", "generated (dynamic dims +3)"]


def test_a_size_pinned_by_a_branch_is_reported_at_the_branch_from_the_capture_whose_error_torch_raises():
    """Both captures fail; torch.onnx raises the first (non-strict) one's error, so its guards count."""
    verdict, lines = _export("tests/export_models/pinned_size.py:Pinned")
    assert verdict.verdict == "EXPORT-FAILS"
    assert lines[0] == (
        "tests/export_models/pinned_size.py:10:1: ONX914 [dynamo] dynamic x.shape[1] (\"x_dim1\", s27 in the guard) "
        "specialized by guard Eq(s27, 16): the exported model works only for x.shape[1] in 16; it fails e.g. for 17; "
        "Python `if` on a size: only the branch taken at export is in the graph; compute both sides without a Python "
        "branch (torch.where, or arithmetic such as padding by `size % 2`)"
    )
    assert lines[1].startswith("tests/export_models/pinned_size.py:7:1: ONX910 [dynamo] ValueError: Found the following "
                               "conflicts between user-specified ranges and inferred ranges")


def test_a_correct_dynamic_model_has_no_guard_findings():
    verdict, lines = _export("tests/export_models/correct.py:make_model")
    assert (verdict.verdict, lines, verdict.guards) == ("OK", [], [])


def test_a_guard_from_torch_onnx_decomposition_pass_is_not_a_restriction():
    """nn.LSTM over a dynamic length: the decomposition pass tries LSTM's fake decomposition (a loop
    over time, guarding the length to the example's) and keeps the LSTM node; the model exports
    for any length, and no guard is reported."""
    verdict, lines = _export("tests/export_models/lstm_any_length.py:make_model")
    assert (verdict.verdict, lines, verdict.guards) == ("OK", [], [])
    assert [p.probe for p in verdict.probes][-1] == "generated (dynamic dims +3)"


# ---- which guards are reported, on guards as torch records them (no export) ------------------

def _guards(*exprs):
    import sympy

    from onnxfix.exporter.guards import Guard

    s0, s1, u0 = (sympy.Symbol(n, integer=True, positive=True) for n in ("s0", "s1", "u0"))
    sources = {s0: ["L['x'].size()[1]"], s1: ["L['y'].size()[0]"], u0: []}
    hints = {s0: 32, s1: 32, u0: None}
    made = []
    for build in exprs:
        expr = build(s0, s1, u0)
        symbols = sorted(expr.free_symbols, key=str)
        made.append(Guard(expr, str(expr), [["m.py", 7, "forward"]], {s: sources[s] for s in symbols}, {s: hints[s] for s in symbols}))
    return made


def _reports(*exprs, dynamic=None, guards=None, capture_failed=False):
    from onnxfix.exporter.guards import guard_reports

    dynamic = dynamic or {0: {1: "seq"}, 1: {0: "rows"}}
    made = guards or _guards(*exprs)
    return [(r["code"], r["message"]) for r in guard_reports(made, ["x", "y"], dynamic, capture_failed)]


def test_the_attempt_whose_guards_count_is_the_last_after_a_capture_and_the_first_when_all_failed():
    """torch.onnx captures non-strict, then strict; when both fail it raises the first one's error."""
    import sympy

    first, second = _guards(lambda s0, s1, u0: sympy.Eq(s0, 32), lambda s0, s1, u0: sympy.Eq(s1, 32))
    first.env, second.env = 1, 2
    assert [m.split(" (")[0] for _, m in _reports(guards=[first, second])] == ["dynamic y.shape[0]"]
    assert [m.split(" (")[0] for _, m in _reports(guards=[first, second], capture_failed=True)] == ["dynamic x.shape[1]"]


def test_guards_every_size_from_the_example_up_satisfies_are_not_reported():
    import sympy
    from torch.utils._sympy.functions import FloorDiv

    assert _reports(lambda s0, s1, u0: s0 >= 4, lambda s0, s1, u0: sympy.Ne(FloorDiv(s0, 4), 1),
                    lambda s0, s1, u0: u0 >= 0) == []


def test_divisibility_then_its_consequence_reports_only_the_cause():
    import sympy
    from torch.utils._sympy.functions import FloorDiv, Mod

    assert _reports(lambda s0, s1, u0: sympy.Eq(Mod(s0, 8), 0),
                    lambda s0, s1, u0: sympy.Eq(8 * FloorDiv(s0, 8), s0)) == [(
        "ONX915", 'dynamic x.shape[1] ("seq", s0 in the guard) restricted by guard Eq(Mod(s0, 8), 0): the exported '
                  "model works only for x.shape[1] in 32, 40, 48, ...; it fails e.g. for 33",
    )]


def test_equality_with_another_dynamic_dim_says_the_other_was_held():
    import sympy

    assert _reports(lambda s0, s1, u0: sympy.Eq(s0, s1)) == [
        ("ONX915", 'dynamic y.shape[0] ("rows", s1 in the guard) restricted by guard Eq(s0, s1): the exported model '
                   "works only for y.shape[0] in 32 while x.shape[1] keeps the example's size; it fails e.g. for 33"),
        ("ONX915", 'dynamic x.shape[1] ("seq", s0 in the guard) restricted by guard Eq(s0, s1): the exported model '
                   "works only for x.shape[1] in 32 while y.shape[0] keeps the example's size; it fails e.g. for 33"),
    ]


def test_dims_the_user_named_alike_vary_together_so_their_equality_is_no_restriction():
    import sympy

    assert _reports(lambda s0, s1, u0: sympy.Eq(s0, s1), dynamic={0: {1: "n"}, 1: {0: "n"}}) == []


def test_a_pinned_dim_is_specialized():
    import sympy

    assert _reports(lambda s0, s1, u0: sympy.Eq(s0, 32)) == [(
        "ONX914", 'dynamic x.shape[1] ("seq", s0 in the guard) specialized by guard Eq(s0, 32): the exported model '
                  "works only for x.shape[1] in 32; it fails e.g. for 33",
    )]


def test_an_example_size_of_one_says_to_export_with_a_larger_one():
    """Measured on a tiny GPT-2 with input_ids (1, 8) and dims 0, 1 dynamic: Eq(s72, 1), added in
    transformers' code (so at the factory line), and onnxruntime fails on batch 2."""
    import sympy

    from onnxfix.exporter.guards import Guard, guard_reports

    s0 = sympy.Symbol("s72", integer=True, positive=True)
    guard = Guard(sympy.Eq(s0, 1), "Eq(s72, 1)", [], {s0: ["L['input_ids'].size()[0]"]}, {s0: 1})
    assert [r["message"] for r in guard_reports([guard], ["input_ids"], {0: {0: "batch"}})] == [
        'dynamic input_ids.shape[0] ("batch", s72 in the guard) specialized by guard Eq(s72, 1): the exported model '
        "works only for input_ids.shape[0] in 1; it fails e.g. for 2; the example's size is 1, which torch.export "
        "specializes: export with a size of 2 or more"
    ]


def test_a_computed_size_of_one_at_the_example_says_to_export_with_a_larger_one():
    """Measured on transformers' FocalNet at a 32 x 32 example with height and width dynamic: the
    last stage's map is 1 x 1, `Eq((s0//32), 1)`, and onnxruntime fails at 48 x 40. A size of one
    that is the dim itself says so as above; a dim compared with another value says nothing more."""
    import sympy
    from torch.utils._sympy.functions import FloorDiv

    (code, message), = _reports(lambda s0, s1, u0: sympy.Eq(FloorDiv(s0, 32), 1))
    assert code == "ONX914" and message.endswith(
        "it fails e.g. for 64; a size computed from it is 1 at the example's size, and torch.export specializes "
        "sizes of 1 (a feature map shrunk to 1 x 1, say): unless a line of yours compares it with 1, export with "
        "a larger example, where that size is 2 or more")
    assert "computed from it" not in _reports(lambda s0, s1, u0: sympy.Eq(FloorDiv(s0, 16), 2))[0][1]


def test_a_convolutions_memory_format_guard_is_not_a_specialization():
    """torch.onnx's fake Conv1d picks its output's memory format with ATen's backend heuristic,
    which guards `s77 < 16` on the batch of a 2-row example (the blind weight-normed PReLU block);
    the graph, and ONNX's, holds for every batch: no ONX914 "works only for x.shape[0] in 2..15".
    The same guard raised anywhere else is reported."""
    import sympy

    from onnxfix.exporter.guards import Guard, guard_reports

    s0 = sympy.Symbol("s77", integer=True, positive=True)

    def guard(frames):
        return Guard(sympy.Lt(s0, 16), "s77 < 16", frames, {s0: ["L['x'].size()[0]"]}, {s0: 2})

    import inspect

    from torch._subclasses import fake_impls

    source, first = inspect.getsourcelines(fake_impls.conv)
    line = first + next(i for i, text in enumerate(source) if "_select_conv_backend(" in text)
    output_size = first + next(i for i, text in enumerate(source) if "func(**new_kwargs)" in text)
    heuristic = [[fake_impls.__file__, line, "conv"], ["/venv/torch/fx/experimental/sym_node.py", 576, "guard_bool"]]
    assert guard_reports([guard(heuristic)], ["x"], {0: {0: "batch"}}) == []
    (shape,) = guard_reports([guard([[fake_impls.__file__, output_size, "conv"]])], ["x"], {0: {0: "batch"}})
    assert shape["code"] == "ONX914"  # the output size's own guards are real
    (report,) = guard_reports([guard([["/work/model.py", 9, "forward"]])], ["x"], {0: {0: "batch"}})
    assert report["code"] == "ONX914" and "specialized by guard s77 < 16" in report["message"]


def test_a_value_read_out_of_a_tensor_as_a_bool_is_keyed_by_its_symbol():
    """`if x.sum() > 0:` makes a SymBool whose expression is Eq(u0, 1); torch's error names u0."""
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    from onnxfix.exporter.guards import recording

    with recording() as record:
        ShapeEnv().create_unbacked_symbool()
    assert list(record.unbacked) == ["u0"]


@pytest.mark.parametrize("side", [
    lambda n: int(n ** 0.5),
    lambda n: __import__("math").isqrt(n),
    lambda n: __import__("torch").sym_int(__import__("torch").sym_sqrt(n)),
], ids=["int-pow", "isqrt", "sym_sqrt"])
def test_no_spelling_of_a_square_root_keeps_a_dynamic_size_dynamic(side):
    """ONX203 offers no fix for `int(n ** 0.5)` of a size and says why: torch.export specializes
    the square root of a symbolic size whichever way it is written (torch 2.13)."""
    import torch

    class Grid(torch.nn.Module):
        def forward(self, x):
            return x[:, : side(x.shape[1])] * 2

    dims = {"x": {1: torch.export.Dim("tokens", min=2, max=4096)}}
    with pytest.raises(Exception, match="Constraints violated"):
        torch.export.export(Grid(), (torch.randn(2, 16, 3),), dynamic_shapes=dims)


def test_unit_dims_are_grown_to_two_in_every_input_that_declares_them():
    """Only dims declared dynamic and 1 in the example grow; an input sharing the dim's name grows
    with it, a dim of another name or a non-tensor input stays."""
    import torch

    from onnxfix.exporter.unit_dims import grown_examples, unit_dim_names

    x, mask, table = torch.randn(1, 5, 1), torch.ones(1, 5), torch.randn(1, 3)
    dynamic = {0: {0: "batch", 1: "length", 2: "channels"}, 1: {0: "batch"}, 3: {0: "n"}}
    args = (x, mask, table, 7)
    assert unit_dim_names(args, dynamic) == ["batch", "channels"]
    grown = grown_examples(args, dynamic)
    assert [tuple(a.shape) for a in grown[:3]] == [(2, 5, 2), (2, 5), (1, 3)]
    assert grown[3] == 7 and torch.equal(grown[0][1:, :, :1], x) and torch.equal(grown[0][:1, :, 1:], x)


def test_a_guard_a_passing_probe_contradicts_is_not_reported():
    """torch.export may record a guard the ONNX graph does not enforce (`s77 < 16` on the batch
    after a gathered adaptive pooling): a probe of an excluded size that matched eager in
    onnxruntime proves "it fails e.g. for 16" wrong, so that report goes; the others stay, and
    none carries the excluded sizes to the parent."""
    import torch

    from onnxfix.exporter.guards import EXCLUDED, unenforced

    def report(code, sizes):
        return {"code": code, "message": code, "frames": [], EXCLUDED: [0, 0, sizes]}

    reports = [report("ONX914", [16, 17, 18]), report("ONX915", [30, 31]), {"code": "ONX914", "message": "", "frames": []}]
    kept = unenforced(reports, [(torch.zeros(2, 3),), (torch.zeros(17, 3),)])
    assert [r["code"] for r in kept] == ["ONX915", "ONX914"]
    assert all(EXCLUDED not in r for r in kept)


def test_a_guard_no_size_satisfies_says_so_and_why():
    """TransReID's `try: x.view(batch, group, -1, dim) except: ...` (tests/realworld): the failed
    view left Eq(Mod(1600*s77, 128*s77), 0) behind, which holds at no batch size; torch.export
    rejects it as inconsistent. The report named an empty range of sizes ("in ;")."""
    import sympy

    from onnxfix.exporter.guards import Guard, guard_reports

    s0 = sympy.Symbol("s77", integer=True, positive=True)
    guard = Guard(sympy.Eq(sympy.Mod(1600 * s0, 128 * s0), 0), "Eq(Mod(1600*s77, 128*s77), 0)", [],
                  {s0: ["L['x'].size()[0]"]}, {s0: 2})
    (report,) = guard_reports([guard], ["x"], {0: {0: "batch"}})
    assert report["code"] == "ONX915"
    assert report["message"] == (
        'dynamic x.shape[0] ("batch", s77 in the guard): guard Eq(Mod(1600*s77, 128*s77), 0) holds at no size '
        "(not even the example's 2), so torch.export rejects the export at every size; it was recorded by a size "
        "check that failed while the example ran, as in an operation that raised inside a `try` whose `except` "
        "took another path: test the condition itself (`if ... % ... == 0:`) instead of catching the error")


def test_a_guard_no_size_satisfies_with_another_dim_held_says_which():
    """The same guard relating two dynamic dims: "at every size" would claim more than was tried."""
    import sympy

    from onnxfix.exporter.guards import Guard, guard_reports

    s0, s1 = (sympy.Symbol(n, integer=True, positive=True) for n in ("s0", "s1"))
    guard = Guard(sympy.Eq(sympy.Mod(1600 * s0 * s1, 128 * s0 * s1), 0), "Eq(Mod(1600*s0*s1, 128*s0*s1), 0)", [],
                  {s0: ["L['x'].size()[0]"], s1: ["L['x'].size()[1]"]}, {s0: 2, s1: 3})
    messages = [r["message"] for r in guard_reports([guard], ["x"], {0: {0: "batch", 1: "tokens"}})]
    assert messages[0].startswith(
        'dynamic x.shape[0] ("batch", s0 in the guard): guard Eq(Mod(1600*s0*s1, 128*s0*s1), 0) holds at no size '
        "(not even the example's 2) while x.shape[1] keeps the example's size, so torch.export rejects the export; "
        "it was recorded by a size check"), messages
