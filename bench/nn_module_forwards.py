"""The torch.nn layers whose forward is one torch.nn.functional call (or one Tensor method of its
input: `nn.Unflatten`'s `input.unflatten(self.dim, self.unflattened_size)`), read from the installed
torch's own source (torch/nn/modules/*.py): `nn.AdaptiveAvgPool2d(s)(x)` is another spelling of
`F.adaptive_avg_pool2d(x, s)`, and the ONX5xx decomposition rules match it so (base.py,
match_module_call). Writes onnxfix/data/nn_module_forwards.json:

    {"AdaptiveAvgPool2d": {"function": "torch.nn.functional.adaptive_avg_pool2d",
                            "args": ["input", "self.output_size"], "keywords": {},
                            "init": ["output_size"]}, ...}

`args`/`keywords`: forward's call, `input` for forward's tensor, `self.x` for an attribute,
`arg:name` for forward's other arguments (listed in order under `forward`, literal defaults under
`defaults`: `nn.MaxUnpool2d()(x, indices)`);
`init`: __init__'s parameters in order (an attribute named like one holds that argument, as every
layer listed here does; the script checks __init__ assigns `self.x = x` for each attribute used).

    python bench/nn_module_forwards.py
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parent.parent / "onnxfix" / "data" / "nn_module_forwards.json"
FUNCTIONAL = {"F", "functional"}


def forwards(path: Path) -> dict[str, dict]:
    tree = ast.parse(path.read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    found = {}
    for cls in classes.values():
        entry = _entry(_method(cls, "forward", classes), _method(cls, "__init__", classes), _class_attrs(cls))
        if entry:
            found[cls.name] = entry
    return found


def _method(cls: ast.ClassDef, name: str, classes: dict[str, ast.ClassDef]) -> ast.FunctionDef | None:
    """The method as the class resolves it: its own, else a base class's of the same file
    (`AdaptiveAvgPool2d` gets __init__ from `_AdaptiveAvgPoolNd`)."""
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and item.name == name:
            return item
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            found = _method(classes[base.id], name, classes)
            if found is not None:
                return found
    return None


def _class_attrs(cls: ast.ClassDef) -> set[str]:
    return {t.id for n in cls.body if isinstance(n, (ast.AnnAssign, ast.Assign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}


def _entry(forward, init, class_attrs) -> dict | None:
    if forward is None or init is None:
        return None
    body = [s for s in forward.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    params = [a.arg for a in forward.args.args]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or len(params) < 2 or forward.args.vararg:
        return None
    defaults = _literal_defaults(forward.args)
    if defaults is None:
        return None
    call = body[0].value
    func = call.func if isinstance(call, ast.Call) else None
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    method = func.value.id == params[1]  # `input.unflatten(self.dim, ...)`: the Tensor method
    if not (method or func.value.id in FUNCTIONAL):
        return None
    init_params = [a.arg for a in init.args.args[1:] + init.args.kwonlyargs]
    assigned = _assigned_from_params(init)

    def spelled(node):
        if isinstance(node, ast.Name) and node.id == params[1]:
            return "input"
        if isinstance(node, ast.Name) and node.id in params[2:]:
            return f"arg:{node.id}"  # another forward argument (MaxUnpool2d's indices)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr in assigned or node.attr in class_attrs or node.attr == "training":  # nn.Module's flag
                return f"self.{node.attr}"
        if isinstance(node, ast.Constant):
            return repr(node.value)
        return None

    args = ["input"] * method + [spelled(a) for a in call.args]
    keywords = {k.arg: spelled(k.value) for k in call.keywords}
    if None in args or None in keywords.values() or any(k is None for k in keywords) or "input" not in args[:1]:
        return None
    function = f"Tensor.{func.attr}" if method else f"torch.nn.functional.{func.attr}"
    entry = {"function": function, "args": args, "keywords": keywords, "init": init_params}
    if params[2:]:
        entry["forward"] = params[2:]  # forward's arguments after the tensor, in order
        entry["defaults"] = {name: value for name, value in defaults.items() if name in params[2:]}
    return entry


def _literal_defaults(arguments: ast.arguments) -> dict[str, str] | None:
    """{parameter: repr of its default} for forward's defaults, None when one is not a literal."""
    positional = arguments.args[len(arguments.args) - len(arguments.defaults):]
    found = {}
    for parameter, default in zip(positional, arguments.defaults):
        try:
            found[parameter.arg] = repr(ast.literal_eval(default))
        except ValueError:
            return None
    return found


def _assigned_from_params(init: ast.FunctionDef) -> set[str]:
    """Attributes __init__ sets (self.x = ...): the layer's state, read back by forward."""
    return {t.attr for n in ast.walk(init) if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}


def main() -> None:
    folder = Path(torch.__file__).parent / "nn" / "modules"
    found = {}
    for path in sorted(folder.glob("*.py")):
        found.update(forwards(path))
    data = {"torch": torch.__version__.split("+")[0], "layers": dict(sorted(found.items()))}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    print(f"{len(found)} layers -> {OUT}")


if __name__ == "__main__":
    main()
