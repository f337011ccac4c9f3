"""Hypothesis strategies for PyTorch-flavoured programs that mix export hazards into valid code.

A generated module has imports, optional module-level helpers, and an ``nn.Module`` subclass
``M`` whose ``forward(self, x, n, s)`` is a random sequence of statements. Every statement runs
in eager PyTorch on the inputs of ``inputs()``: x a float32 (4, 6) tensor, n a 0-d int64 tensor
holding 3, s a 0-d float32 tensor. Statements read tensors of shape (4, 6) from a pool that grows
as they run, so the program is valid and executable by construction, and hazards combine (a
``.numpy()`` result fed to ``np.clip`` fed to ``torch.from_numpy`` inside a loop ...). Layout
varies too: comments, blank lines, parentheses across lines, odd spacing, noqa comments.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from hypothesis import strategies as st

HEADERS = (
    "import numpy as np\nimport torch\nfrom torch import nn\nimport copy\nimport math\n",
    "import numpy as np\nimport torch\nimport torch.nn as nn\nimport copy\nimport math\n",
    '"""A model."""\n\nimport numpy as np\nimport torch\nfrom torch import nn\nimport copy\nimport math\n',
    "import numpy as np\nimport torch as T\nfrom torch import nn\ntorch = T\nimport copy\nimport math\n",
    "# -*- coding: utf-8 -*-\nfrom __future__ import annotations\n\nimport numpy as np\nimport torch\nfrom torch import nn\nimport copy\nimport math\n",
)


@dataclass
class Program:
    pool: list[str] = field(default_factory=lambda: ["x"])  # names of float32 (4, 6) tensors
    outputs: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)  # forward's statements, unindented
    helpers: list[str] = field(default_factory=list)  # module-level functions
    counter: int = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"


# Each template: (lines using {X} input tensor, {o} output name, {a} scratch name, {c} constant,
# {k} small int), and whether the output joins the (4, 6) pool.
TEMPLATES: tuple[tuple[str, bool], ...] = (
    # benign torch code
    ("{o} = torch.relu({X}) + {c}", True),
    ("{o} = {X} * {c}  # scale", True),
    ("{o} = torch.tanh(\n    {X}\n)", True),
    ("{o} = {X}.clone()\n{o}.add_({c})", True),
    ("{o} = torch.stack([{X}, {X}]).sum(0)", True),
    ("{o} = {X}\nfor _ in range({k}):\n    {o} = {o} + 1", True),
    ("{o} = [{X} * i for i in range({k})][-1]", True),
    ("{o} = (lambda t: t * 2)({X})", True),
    ('{a} = "x.numpy() and x.data in a string"\n{o} = {X} - 1', True),
    ("def {a}(t):\n    return t.abs()\n{o} = {a}({X})", True),
    # .data reads (ONX301) and writes (ONX302)
    ("{o} = {X}.data * {c}", True),
    ("{o} = torch.sigmoid({X}.data)", True),
    ("{o} = {X} * 1\n{o}.data[:, 0] = 0", True),
    # NumPy round trips (ONX101-103)
    ("{a} = {X}.numpy()\n{o} = torch.from_numpy(np.clip({a}, -1, 1))", True),
    ("{a} = {X}.detach().numpy()\n{o} = torch.from_numpy(np.maximum({a}, 0))", True),
    ("{a} = {X}.numpy()\n{o} = torch.from_numpy(np.concatenate([{a}, {a} * 2], axis=1))", False),
    ("{a} = {X}.numpy()\n{o} = torch.as_tensor(np.max({a}, axis=-1, keepdims=True))", False),
    ("{o} = {X} + torch.from_numpy(np.arange({X}.shape[1], dtype=np.float32))", True),
    ("{a} = np.zeros({X}.shape[0])\n{o} = torch.tensor({a}) + {X}.sum(1)", False),
    ("{o} = torch.from_numpy(np.exp({X}.numpy())) + {X}", True),
    ("{a} = {X}.numpy()\n{o} = {X} * float(np.sum({a}))", True),
    ("{a} = {X}.cpu().numpy()\n{a} = {a} * 2 + 1\n{o} = torch.tensor({a}) * {X}", True),
    ("{a} = {X}.numpy()\n{o} = torch.from_numpy(np.transpose({a}, (1, 0)).copy())", False),
    ("{a} = {X}.numpy()\n{o} = torch.from_numpy(np.split({a}, 2, axis=1)[0])", False),
    # .item() (ONX201)
    ("{o} = {X}.reshape(n.item(), -1)", False),
    ("{o} = {X}.view((n.item(), -1))", False),
    ("{o} = torch.zeros(n.item(), 2) + {c}", False),
    ("{o} = {X}[: n.item()]", False),
    ("{o} = {X} * s.item() + 1", True),
    ("{o} = torch.full((2, 2), s.item())", False),
    ("{o} = {X}.clamp(max=s.item())", True),
    ("{o} = {X}.masked_fill({X} > 0, s.item())", True),
    ("if {X}.sum().item() > 0:\n    {o} = {X} * 2\nelse:\n    {o} = {X} * 3", True),
    ("{o} = {X} * float({X}.max().item())", True),
    # in-place shape arithmetic (ONX401)
    ("{a} = {X}.shape[1]\n{a} -= {k}\n{o} = {X}[:, :{a}]", False),
    ("{a} = {X}.size(0)\n{a} += 1\n{o} = {X}.sum() * {a}", False),
    ("b_{a}, {a} = {X}.shape\n{a} //= 2\n{o} = {X}[:, :{a}]", False),
    ("{a} = {X}.shape[-1]\n{a} *= {k} + 1\n{o} = {X}.new_zeros({a})", False),
    ("{a} = 0\n{a} += 1  # not a size\n{o} = {X} + {a}", True),
    # Python values taken out of tensors (ONX202-205), sizes through math (ONX402)
    ("{o} = {X}[: len({X}) - 1]", False),
    ("{a} = int({X}.shape[1] / 2)\n{o} = {X}[:, :{a}]", False),
    ("{a} = int({X}.sum())\n{o} = {X} + {a}", True),
    ("{o} = {X} * torch.tensor({X}.shape[1])", True),
    ("{o} = {X} / math.sqrt({X}.shape[-1])", True),
    ("{a} = math.ceil({X}.size(0) / 3)\n{o} = {X}[:{a}]", False),
    ("{a} = {X}.tolist()\n{o} = {X} + len({a})", True),
    ("{o} = {X} * max({X}.sum(), {X}.mean())", True),
    # views, deepcopy, indexing (ONX303, ONX304, ONX701-703)
    ("{o} = {X}.clone()\n{o}[:, 0].mul_(2)", True),
    ("{o} = {X}.clone()\n{o}[0].add_(1)", True),
    ("{o} = copy.deepcopy({X})", True),
    ("{o} = {X}[torch.tensor([0, 1]), -1]", False),
    ("{o} = {X}.clone()\n{o}[torch.tensor([0, 1]), 1:3] = 5.0", True),
    ("{o} = {X}.clone()\n{o}[torch.tensor([0, 2])] = {X}[0]", True),
    # control flow on tensors (ONX601-603)
    ("if {X}.sum() > 0:\n    {o} = {X} * 2\nelse:\n    {o} = -{X}", True),
    ("{o} = {X}\nfor _ in range({X}.shape[0]):\n    {o} = {o} + 1", True),
    ("{o} = {X} * 2 if {X}.mean() > 0 else {X}", True),
    # a module-level helper reached from forward
    ("HELPER\n{o} = {a}({X})", True),
)
HELPERS = (
    "def {a}(t):\n    return t.reshape(n_of(t).item(), -1).reshape(4, 6)\n\n\ndef n_of(t):\n    return torch.tensor(t.shape[0])",
    "def {a}(t):\n    return t.data + 1",
    "def {a}(t):\n    a = t.numpy()\n    return torch.from_numpy(np.clip(a, 0, 1))",
)
COMMENTS = ("", "", "", "  # comment", "  # noqa", "  # noqa: ONX301", "  # noqa: ONX2")


@st.composite
def statement(draw, program: Program) -> None:
    template, joins_pool = draw(st.sampled_from(TEMPLATES))
    names = {
        "X": draw(st.sampled_from(program.pool)),
        "o": program.fresh("t"),
        "a": program.fresh("v"),
        "c": draw(st.sampled_from(["1", "2.5", "-3", "0.5"])),
        "k": str(draw(st.integers(1, 3))),
    }
    if template.startswith("HELPER"):
        helper = draw(st.sampled_from(HELPERS)).format(**names)
        program.helpers.append(helper)
        template = template.replace("HELPER\n", "")
    code = template.format(**names)
    lines = code.split("\n")
    comment_at = draw(st.integers(0, len(lines) - 1))
    comment = draw(st.sampled_from(COMMENTS))
    if not lines[comment_at].rstrip().endswith(":") and "#" not in lines[comment_at]:
        lines[comment_at] += comment
    if draw(st.booleans()) and len(lines) == 1 and "=" in lines[0] and "#" not in lines[0]:
        target, value = lines[0].split(" = ", 1)
        lines = [f"{target} = (", f"    {value}", ")"]  # a value across lines
    if draw(st.integers(0, 4)) == 0:
        lines.append("")
    program.body.extend(lines)
    (program.pool if joins_pool else program.outputs).append(names["o"])
    if joins_pool:
        program.outputs.append(names["o"])


@st.composite
def programs(draw, max_statements: int = 8) -> str:
    """Source of a module whose class M(nn.Module).forward(x, n, s) runs in eager PyTorch."""
    program = Program()
    for _ in range(draw(st.integers(1, max_statements))):
        draw(statement(program))
    header = draw(st.sampled_from(HEADERS))
    annotated = draw(st.booleans())
    signature = "self, x: torch.Tensor, n: torch.Tensor, s: torch.Tensor" if annotated else "self, x, n, s"
    body = "\n".join(program.body) + f"\nreturn ({', '.join(program.outputs)},)"
    helpers = "".join("\n\n" + h + "\n" for h in program.helpers)
    indent = draw(st.sampled_from(["    ", "\t", "  "]))
    forward = textwrap.indent(body, " " * 8)
    module = (
        f"{header}{helpers}\n\nclass M(nn.Module):\n    def forward({signature}):\n{forward}\n"
        f"\n\ndef train_step(model, x):\n    return model(x).data.numpy().item()\n"
    )
    return _reindent(module, indent)


def _reindent(module: str, indent: str) -> str:
    """Every block in the templates is indented by 4 spaces: use ``indent`` instead."""
    if indent == "    ":
        return module
    return re.sub(r"(?m)^((?:    )+)", lambda m: indent * (len(m.group(1)) // 4), module)


def inputs():
    import torch

    torch.manual_seed(0)
    return torch.randn(4, 6), torch.tensor(3), torch.tensor(0.25)


def splice(module: str, statements: str, where: int) -> str:
    """Insert (already valid) statements into forward's body, after its ``where``-th line."""
    lines = module.split("\n")
    start = next(i for i, line in enumerate(lines) if "def forward(" in line)
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())] * 2
    body_end = next(i for i, line in enumerate(lines) if line.lstrip().startswith("return (") and i > start)
    at = min(start + 1 + where, body_end)
    block = textwrap.indent(statements, indent)
    return "\n".join(lines[:at] + [block] + lines[at:])
