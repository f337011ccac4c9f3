"""Sizes and tensors resolved across calls (onnxfix/rewriter/callsites.py): a parameter is a size
(an int, a tensor) when every call of its function in the file passes one, and nothing is known
when some call is not seen."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from onnxfix.config import Settings
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, check_text, fix_text
from onnxfix.rewriter.source import SourceFile

HEADER = "import math\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


def findings(body: str) -> list[tuple[str, int, bool]]:
    text = HEADER + textwrap.dedent(body)
    source = SourceFile.from_bytes(Path("m.py"), text.encode("utf-8"))
    settings = Settings(exporters=frozenset({"dynamo", "legacy"}))
    found = check_text(text, source, "m.py", settings, RuleSet(list(all_rules())))
    return [(f.code, f.line - HEADER.count("\n"), f.fix is not None and f.fix.safe) for f in found]


def fixed_text(body: str) -> str:
    """The text with every safe fix applied (both exporters targeted)."""
    text = HEADER + textwrap.dedent(body)
    source = SourceFile.from_bytes(Path("m.py"), text.encode("utf-8"))
    settings = Settings(exporters=frozenset({"dynamo", "legacy"}))
    return fix_text(source, "m.py", settings, RuleSet(list(all_rules())))[0]


HELPER = """
def helper(t, n):
    return t[:, : int(n / 2)]


class M(nn.Module):
    def forward(self, x):
        return helper(x, {arg})
"""


def test_module_function_parameter_is_a_size_when_every_call_passes_one():
    assert findings(HELPER.format(arg="x.shape[1]")) == [("ONX203", 3, True)]
    assert findings(HELPER.format(arg="7")) == []


SUBMODULE = """
class Inner(nn.Module):
    def forward(self, x, W):
        return x * math.sqrt(W)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        {body}
"""


@pytest.mark.parametrize("body, expected", [
    ("return self.inner(x, x.size(-1))", [("ONX402", 4)]),  # the submodule's forward, through self.inner(...)
    ("return self.inner(x, x.size(-1)) + self.inner(x, 3.0)", []),  # one call passes a number
    ("return self.inner(x, *x.shape[1:])", []),  # *args: binding unknown
    ("return [m(x, x.size(-1)) for m in [self.inner]][0]", []),  # the module used other than by a call
])
def test_submodule_forward_parameters(body, expected):
    assert [(code, line) for code, line, _ in findings(SUBMODULE.format(body=body))] == expected


HRFORMER = """
class WindowAttention(nn.Module):
    def __init__(self, dim):
        super(WindowAttention, self).__init__()
        self.attn = nn.MultiheadAttention(dim, 1)

    def forward(self, x, H, W):
        pad_h = math.ceil(H / 7) * 7 - H
        return self.attn(x, x, x)[0][:pad_h]


class Block(nn.Module):
    def __init__(self, dim):
        super(Block, self).__init__()
        self.attn = {construction}

    def forward(self, x):
        B, C, H, W = x.size()
        return self.attn(x, H, W)
"""


@pytest.mark.parametrize("construction, expected", [
    # HRFormer: `super(Class, self)` names the class, and both classes store a `self.attn`: the
    # block's calls its WindowAttention, the attention's calls its nn.MultiheadAttention
    ("WindowAttention(dim)", [("ONX402", 8, True)]),
    ("nn.Identity()", []),  # the block's `self.attn` is another module: the attention is never called
])
def test_old_style_super_and_an_attribute_name_two_classes_use(construction, expected):
    assert findings(HRFORMER.format(construction=construction)) == expected


def test_an_inherited_call_of_an_attribute_a_subclass_replaces_counts():
    """Base stores another module in `self.attn`, but Sub stores a WindowAttention there and runs
    Base's forward: that call, with 7.5, binds the attention's H too (no safe integer fix)."""
    body = HRFORMER.format(construction="WindowAttention(dim)").replace("class Block(", "class Other(") + """

class Passthrough(nn.Module):
    def forward(self, x, H, W):
        return x


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Passthrough()

    def forward(self, x):
        return self.attn(x, 7.5, 3)


class Sub(Base):
    def __init__(self):
        super().__init__()
        self.attn = WindowAttention(4)
"""
    assert findings(body) == []


def test_unknown_callers_prove_nothing():
    # also called from a function no forward reaches, and passed as a value
    assert findings(HELPER.format(arg="x.shape[1]") + "\n\ndef train(x):\n    return helper(x, 0.5)\n") == []
    assert findings(HELPER.format(arg="x.shape[1]") + "\n\nHOOKS = [helper]\n") == []


def test_a_comment_naming_the_function_is_no_mention_a_string_is():
    # `# Copied from ...helper` calls nothing; a string may (getattr), so it still counts
    assert findings("# Copied from other.module.helper\n" + HELPER.format(arg="x.shape[1]")) == [("ONX203", 4, True)]
    assert findings(HELPER.format(arg="x.shape[1]") + "\n\nNAME = 'helper'\n") == []


def test_an_item_of_a_tuple_every_call_passes_is_a_size():
    text = """
def prepare(x, input_shape):
    _, length = input_shape
    return x[:, : int(length / 2)] + x[:, : int(input_shape[-1] / 2)]


class M(nn.Module):
    def forward(self, x):
        return prepare(x, (x.shape[0], x.shape[1]))
"""
    # the unpacked item is a size; that it is an int too (what makes the fix safe) is not followed there
    assert findings(text) == [("ONX203", 4, False), ("ONX203", 4, True)]


def test_training_branch_calls_count_too():
    body = HELPER.format(arg="x.shape[1]").replace(
        "        return helper(x, x.shape[1])",
        "        if self.training:\n            return helper(x, 0.5)\n        return helper(x, x.shape[1])",
    )
    assert findings(body) == []


def test_type_tested_parameter_is_not_typed_by_its_callers():
    text = """
def take(x, start):
    if not isinstance(start, torch.Tensor):
        return x.narrow(0, start, 2)
    return x[start.long()]


class M(nn.Module):
    def forward(self, x, s):
        return take(x, s.sum())
"""
    assert [c for c, _, _ in findings(text)] == []


def test_a_size_test_every_call_passes_keeps_the_callers_shapes():
    """mmseg's resize: `if isinstance(size, torch.Size): size = tuple(int(x) for x in size)`, every
    call passing a slice of a shape: the items are sizes (ONX203 drops the `int()`, safe); a call
    passing a tuple of numbers makes the parameter's type vary again: nothing proven."""
    text = """
def resize(input, size=None):
    if isinstance(size, torch.Size):
        size = tuple(int(x) for x in size)
    return F.interpolate(input, size)


class M(nn.Module):
    def forward(self, x, img):
        return resize(x, size=img.shape[2:])
"""
    assert findings(text) == [("ONX203", 4, True)]
    assert findings(text.replace("size=img.shape[2:]", "size=(4, 4)")) == []


def test_tensor_parameter_across_calls_makes_a_fix_safe():
    text = """
def head(x):
    return x.data * 2


class M(nn.Module):
    def forward(self, x):
        return head(torch.relu(x))
"""
    assert findings(text) == [("ONX301", 3, True)]


def test_recursion_is_followed_to_a_fixpoint_from_its_first_call():
    """A recursive call's argument is judged assuming the parameter holds: from forward's size,
    `n // 2` stays a value of the size at every depth, and `float()` of it is recorded (and fixed:
    `torch.sym_float`)."""
    text = """
def down(t, n):
    if n > 1:
        return down(t, n // 2)
    return t * float(n)


class M(nn.Module):
    def forward(self, x):
        return down(x, x.shape[0])
"""
    assert findings(text) == [("ONX203", 5, True)]


BLOCKS = """
class Block(nn.Module):
    def forward(self, x, w):
        return torch.roll(x, shifts=w // 2, dims=1)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(2)])

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            x = block(x, {arg})
        {extra}
        return x
"""


@pytest.mark.parametrize(("arg", "extra", "expected"), [
    ("x.shape[1]", "", [("ONX406", 4, True)]),  # every call of a block: the loop over the ModuleList
    ("x.shape[1]", "x = self.blocks[0](x, 3)", []),  # another call through the container: unknown
    ("4", "", []),
])
def test_forward_of_blocks_in_a_module_list_is_bound_by_the_loop_calling_them(arg, extra, expected):
    assert findings(BLOCKS.format(arg=arg, extra=extra)) == expected


def test_an_assumption_that_fails_drops_what_other_functions_concluded_on_it():
    """f's `n` is checked through g's `m` (g's callers pass `n - 1`), which comes back to f's `n`,
    assumed while it is checked; `n = n / 2` then fails it, and g's conclusion that `m` is an int,
    drawn in g's oracle, must go with it: `int(m)` keeps no safe fix (m is 1.5 for a size of 5).
    f's `int(n)` of a name rebound to float math gets `torch.sym_int` (`int()` in eager, whatever
    `n` holds), never a dropped `int()`."""
    text = """
class M(nn.Module):
    def forward(self, x):
        return f(x, x.shape[-1])


def f(x, n):
    k = int(n)
    n = n / 2
    if k > 2:
        return g(x, n - 1)
    return x * k


def g(x, m):
    return f(x, m) + x * int(m)
"""
    assert findings(text) == [("ONX203", 8, True), ("ONX203", 16, False)]
    assert "k = torch.sym_int(n)" in fixed_text(text)


def test_a_rebuilt_list_is_no_shape_once_written():
    """`size = list(size)` can be written afterwards (`size[0] = size[0] / 4`): its items are no
    sizes, and `int()` of them stays."""
    text = """
def resize(x, size):
    size = list(size)
    size[0] = size[0] / 4
    return x * sum([int(v) for v in size])


class M(nn.Module):
    def forward(self, x, y):
        return resize(x, y.shape[2:])
"""
    assert not any(safe for _, _, safe in findings(text))


CHUNKS = """
def chunked(x, chunk_size=4):
    b, n, d = x.shape
    pad = (chunk_size - n % chunk_size) % chunk_size
    x = F.pad(x, (0, 0, 0, pad)).reshape(b, -1, chunk_size, d)
    out = torch.zeros_like(x)
    for i in range(0, (n + pad) // chunk_size):
        out[:, i] = x[:, i] * 2
    return out


def by_rank(x, dim=1):
    return x.permute(*[i for i in range(len(x.shape) - dim)], *range(len(x.shape) - dim, x.dim()))


class Model(nn.Module):
    def forward(self, x):
        return chunked(x) + by_rank(chunked(x, 4))
"""


def test_a_literal_default_a_call_leaves_is_what_it_binds():
    """`chunked(x)` leaves chunk_size to its default 4 and `chunked(x, 4)` passes 4: an int at every call,
    so the padded length over it is a size and the loop over the chunks is reported (Qwen3-Next's
    gated delta rule). A rank (`len(x.shape)`) minus such an int is no size: the same for every input."""
    assert [(code, line) for code, line, _ in findings(CHUNKS) if code == "ONX603"] == [("ONX603", 7)]


FLAG_NAMED_LIKE_METHOD = """
class Embeddings(nn.Module):
    def interpolate(self, t, height):
        return t[:, : int(height / 2)]

    def forward(self, x, interpolate=False):
        if interpolate:
            return self.interpolate(x, x.shape[1])
        return x


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = Embeddings()

    def forward(self, x):
        return self.embeddings(x, interpolate=True)
"""


def test_a_flag_named_like_the_method_is_no_mention_of_it():
    # ViT's `interpolate_pos_encoding=False` flag and keyword beside its method of the same name:
    # a parameter, a keyword argument or a read of a parameter never names the method
    assert findings(FLAG_NAMED_LIKE_METHOD) == [("ONX203", 4, True)]
    assert findings(FLAG_NAMED_LIKE_METHOD.replace("return x\n", "return getattr(self, 'interpolate')(x, 7)\n")) == []


def test_a_parameter_that_shadows_a_module_function_is_another_name():
    # `other`'s `helper` is its parameter: the module's helper is still called only by forward;
    # passing the function itself as a value is a mention, and nothing is known
    shadowed = HELPER.format(arg="x.shape[1]") + "\n\ndef other(helper):\n    return helper(3, 7)\n"
    assert findings(shadowed) == [("ONX203", 3, True)]
    assert findings(shadowed + "\n\nother(helper)\n") == []
    passed_by_default = HELPER.format(arg="x.shape[1]") + "\n\ndef other(t, helper=helper):\n    return helper(t, 7)\n"
    assert findings(passed_by_default) == []  # the default is read where `other` is defined: the module's helper
