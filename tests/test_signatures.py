"""The positional binding of torch calls (rewriter/signatures.py) from the table read off the
installed torch (bench/torch_signatures.py)."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

from onnxfix.rewriter.signatures import DATA, bound_argument

REPO = Path(__file__).resolve().parent.parent


def _call(text: str) -> ast.Call:
    return ast.parse(text).body[0].value


def test_the_table_is_the_installed_torchs():
    """Regenerated from this torch, the table is the one shipped (a torch upgrade reruns the script)."""
    spec = importlib.util.spec_from_file_location("torch_signatures", REPO / "bench" / "torch_signatures.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    table = json.loads(DATA.read_text())
    assert table["functions"] == {**script.aten(), **script.functional()}
    assert table["random"] == script.random() and "torch.randint" in table["random"]


def test_positional_arguments_bind_by_the_overloads_that_take_that_many():
    assert ast.unparse(bound_argument(_call("F.group_norm(x, heads, w)"), "torch.nn.functional.group_norm",
                                      "num_groups")) == "heads"
    assert ast.unparse(bound_argument(_call("torch.randint(0, n, (b,))"), "torch.randint", "high")) == "n"
    assert ast.unparse(bound_argument(_call("torch.randint(n, (b,))"), "torch.randint", "high")) == "n"
    assert ast.unparse(bound_argument(_call("F.group_norm(x, num_groups=g)"), "torch.nn.functional.group_norm",
                                      "num_groups")) == "g"


def test_no_binding_where_the_call_spreads_or_the_function_is_unknown():
    assert bound_argument(_call("F.group_norm(*args)"), "torch.nn.functional.group_norm", "num_groups") is None
    assert bound_argument(_call("f(x, g)"), "user.f", "num_groups") is None
