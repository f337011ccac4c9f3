"""Properties on programs no one wrote by hand (hypothesmith) and on random PyTorch programs
that mix hazards into valid code (tests/programs.py):

- onnxfix never crashes on valid Python: no error result, in check, --write, --write --unsafe-fixes;
- every rewritten file compiles;
- a second --write changes nothing;
- a file with no fixable finding stays byte-identical (and untouched on disk);
- safe fixes keep what the model computes: the rewritten forward returns torch.equal outputs
  (same dtypes, same shapes) as the original on the same inputs.

The default run draws a few dozen examples per property (profile "fast", tests/conftest.py);
`pytest tests/test_properties.py --hypothesis-profile=long` draws thousands.
"""

from __future__ import annotations

import hypothesmith
import pytest
from hypothesis import assume, given, note
from hypothesis import strategies as st

from onnxfix.config import Settings
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, applicable, process_file
from programs import inputs, programs, splice

BOTH = frozenset({"dynamo", "legacy"})
RULES = RuleSet(list(all_rules()))


def compiles(text: str) -> bool:
    try:
        compile(text, "<generated>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def check_invariants(path, text: str) -> dict[bool, str]:
    """Run check / --write / --write --unsafe-fixes on ``text`` at ``path``; assert the
    invariants; return the rewritten text for unsafe=False and unsafe=True."""
    raw = text.encode("utf-8")
    path.write_bytes(raw)
    checked = process_file(path, path.name, Settings(exporters=BOTH), RULES, "check")
    assert checked.error is None, checked.error
    results = {}
    for unsafe in (False, True):
        path.write_bytes(raw)
        settings = Settings(exporters=BOTH, unsafe_fixes=unsafe)
        first = process_file(path, path.name, settings, RULES, "write")
        assert first.error is None, first.error
        after = path.read_bytes()
        if not any(applicable(f, unsafe) for f in checked.findings):
            assert first.fixed_text is None and after == raw, "a file with no fixable finding changed"
        if first.fixed_text is not None:
            assert after == first.fixed_text.encode("utf-8")
            assert compiles(first.fixed_text), "the rewritten file does not compile"
        second = process_file(path, path.name, settings, RULES, "write")
        assert second.error is None, second.error
        assert second.fixed_text is None and path.read_bytes() == after, "a second --write changed the file"
        results[unsafe] = after.decode("utf-8")
    return results


# hypothesmith builds its grammar's LALR parser on each call (~1.5 s): once, and only in a
# process that runs these tests (at collection it cost every pytest-xdist worker 3 s)
PYTHON_SOURCE = st.deferred(hypothesmith.from_grammar)


@given(source=PYTHON_SOURCE)
def test_generated_modules(source, tmp_path_factory):
    assume(compiles(source))
    check_invariants(tmp_path_factory.mktemp("gen") / "m.py", source)


@given(module=programs(), extra=PYTHON_SOURCE, where=st.integers(0, 12))
def test_generated_code_inside_forward(module, extra, where, tmp_path_factory):
    """hypothesmith's statements spliced into a forward full of hazards."""
    spliced = splice(module, extra, where)
    assume(compiles(spliced))
    note(spliced)
    check_invariants(tmp_path_factory.mktemp("gen") / "m.py", spliced)


def run_forward(source: str):
    namespace: dict = {"__name__": "generated"}
    exec(compile(source, "<generated>", "exec"), namespace)
    try:
        return "ok", namespace["M"]()(*inputs())
    except Exception as exc:  # the original may fail in eager; then the rewrite must fail alike
        return "raised", type(exc).__name__


def assert_same_outputs(before, after) -> None:
    import torch

    assert before[0] == after[0], (before, after)
    if before[0] == "raised":
        assert before[1] == after[1]
        return
    assert len(before[1]) == len(after[1])
    for index, (b, a) in enumerate(zip(before[1], after[1])):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, torch.Tensor), f"output {index}: {type(a)}"
            assert (b.dtype, b.shape) == (a.dtype, a.shape), f"output {index}: {b.dtype}{tuple(b.shape)} -> {a.dtype}{tuple(a.shape)}"
            assert torch.equal(b, a), f"output {index} differs"
        else:
            assert type(b) is type(a) and b == a, f"output {index}: {b!r} -> {a!r}"


@given(module=programs())
def test_hazard_programs_keep_invariants_and_safe_fixes_keep_outputs(module, tmp_path_factory):
    pytest.importorskip("torch")
    note(module)
    rewritten = check_invariants(tmp_path_factory.mktemp("gen") / "m.py", module)
    note(rewritten[False])
    assert_same_outputs(run_forward(module), run_forward(rewritten[False]))
