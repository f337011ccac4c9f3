"""A small, conservative answer to "is this expression a torch.Tensor?".

Fix safety depends on it: ``x.data`` -> ``x.detach()`` is exact for a tensor but breaks a
PackedSequence. The oracle answers True only on evidence (a torch call, a tensor method on a
tensor, a parameter annotated ``Tensor``, an input of the exported ``forward`` whose size it
reads or on which it calls a tensor-only method, a module's weight, or a recorded run in which
every value of the expression was a tensor: rewriter/evidence.py), None when it cannot tell.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.bindings import parameter_reaches, reaching_branch_values, reaching_value
from onnxfix.rewriter.evidence import all_ints, all_tensor_sequences, all_tensors, one_dtype, scalar_tensor_dtype
from onnxfix.rewriter.tensor_inputs import REDUCTION_METHODS, forward_input_used_as_tensor
from onnxfix.rewriter.type_tests import a_tensor_here, not_a_tensor_here
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

# torch.* callables that do not return a tensor.
NON_TENSOR_TORCH = frozenset(
    {
        "is_tensor", "is_floating_point", "is_complex", "numel", "Size", "device", "dtype",
        "get_default_dtype", "no_grad", "enable_grad", "is_grad_enabled", "manual_seed",
        "set_grad_enabled", "inference_mode", "jit", "onnx", "compile", "cond", "_check",
        "finfo", "iinfo", "typename", "is_nonzero", "equal", "broadcast_shapes",
        "result_type", "promote_types", "can_cast", "get_device", "is_autocast_enabled",
        # these return tuples of tensors
        "split", "chunk", "unbind", "meshgrid", "tensor_split", "hsplit", "vsplit", "dsplit",
        "broadcast_tensors", "sort", "topk", "kthvalue", "mode", "std_mean", "var_mean",
        "aminmax", "frexp", "histogram", "slogdet", "qr", "svd", "eig", "eigh", "lu",
        "cummax", "cummin", "lstsq",
    }
)
# Tensor methods whose result is not a tensor.
# torch.nn.utils.rnn's constructors of a PackedSequence (a named tuple of tensors)
PACKED_SEQUENCES = frozenset(f"torch.nn.utils.rnn.{name}" for name in (
    "pack_padded_sequence", "pack_sequence", "PackedSequence"))
NON_TENSOR_METHODS = frozenset(
    {
        "item", "tolist", "numpy", "size", "dim", "ndimension", "numel", "nelement",
        "element_size", "stride", "data_ptr", "storage_offset", "is_contiguous", "get_device",
        "is_floating_point", "is_complex", "equal", "__len__", "type", "untyped_storage",
        "register_hook", "backward", "chunk", "split", "unbind", "tensor_split",
        "sort", "topk", "kthvalue", "mode", "aminmax", "frexp", "slogdet", "qr", "svd", "eig",
        "cummax", "cummin", "hsplit", "vsplit", "dsplit",
    }
)
# max/min/median(dim) return a (values, indices) pair; without a dim, a tensor.
PAIR_WITH_DIM = frozenset({"max", "min", "median", "nanmedian"})
# ops returning a (values, indices) named tuple (max / min / median with a dim)
VALUES_INDICES = PAIR_WITH_DIM | frozenset({"topk", "sort", "kthvalue", "mode", "cummax", "cummin"})
# ops (torch.x, torch.linalg.x, Tensor.x) returning a tuple of tensors: what a tuple target unpacks
TENSOR_TUPLES = VALUES_INDICES | frozenset({
    "aminmax", "frexp", "var_mean", "std_mean",
    "split", "chunk", "unbind", "tensor_split", "meshgrid", "broadcast_tensors", "qr", "eigh", "svd", "slogdet",
    "lu_factor", "histogram",
    # a tuple of tensors (`rows, cols = torch.where(mask)`), or a tensor whose rows unpack (tensors either way)
    "where", "nonzero", "unique", "unique_consecutive", "hsplit", "vsplit", "dsplit", "triu_indices",
    "tril_indices",
})
# torch.nn layers whose call returns a single tensor (RNNs, attention, containers excluded).
TENSOR_LAYERS = frozenset(
    {
        "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
        "ConvTranspose3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
        "InstanceNorm1d", "InstanceNorm2d", "RMSNorm", "Embedding", "Dropout", "Dropout1d",
        "Dropout2d", "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax",
        "LeakyReLU", "Hardswish", "Mish", "ELU", "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d",
        "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "Flatten", "Unflatten", "Upsample", "PixelShuffle",
    }
)
TENSOR_ATTRIBUTES = frozenset({"data", "T", "mT", "H", "mH", "real", "imag", "grad"})
TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.nn.Parameter"})


# an `if`'s branches moved into nested functions by ONX601 / ONX613, each parameter the enclosing
# function's name of the same spelling
MOVED_BRANCHES = ("_onnx_when_true", "_onnx_when_false", "_onnx_if_", "_onnx_else_")


class TensorOracle:
    def __init__(self, ctx: "FunctionContext"):
        self.ctx = ctx
        self._names: dict[str, bool | None] = {}

    def is_tensor(self, node: ast.AST) -> bool | None:
        if isinstance(node, ast.Name) and not_a_tensor_here(node, self.ctx):
            return False  # `else` of `if isinstance(v, torch.Tensor):`, whatever the run saw elsewhere
        if isinstance(node, ast.Name) and a_tensor_here(node, self.ctx):
            return True  # the body of `if isinstance(v, torch.Tensor):`, whatever the annotation says
        answer = self._static(node)
        observed = self.ctx.observed(node) if answer is not False or isinstance(node, ast.Name) else None
        if (answer is None or (answer is False and isinstance(node, ast.Name))) and all_tensors(observed):
            return True  # run-time evidence: every value seen here was a tensor (a name's bindings can mislead)
        if answer is True and isinstance(node, ast.Name) and all_ints(observed):
            return None  # a parameter annotated `torch.LongTensor` that the run saw hold ints only (Moonshine's lengths)
        return answer

    def item_receiver(self, node: ast.AST) -> ast.expr | None:
        """``t`` of a ``t.item()`` call (no arguments), unless ``t`` is known not to be a tensor
        (NumPy scalars have ``.item()`` too)."""
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"
            and not node.args and not node.keywords
        ):
            return None
        return None if self.is_tensor(node.func.value) is False else node.func.value

    def has_tensor_evidence(self, node: ast.AST) -> bool:
        """A tensor by the oracle, or the result of a tensor reduction method (``x.sum()``,
        ``logits.max()``): enough to rewrite as a tensor where an unknown value may not be one."""
        if self.is_tensor(node):
            return True
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REDUCTION_METHODS

    def dtype(self, node: ast.AST) -> str | None:
        """The one dtype a recorded run saw for ``node`` (evidence only; None without)."""
        return one_dtype(self.ctx.observed(node))

    def scalar_dtype(self, node: ast.AST) -> str | None:
        """The dtype of ``node`` when a recorded run saw only 0-d tensors of that dtype."""
        return scalar_tensor_dtype(self.ctx.observed(node))

    def _static(self, node: ast.AST) -> bool | None:
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Name):
            # a lambda's parameter or a comprehension's variable is not the function's name
            if self.ctx.inner_scope(node) is not None:
                return None
            answer = self._name(node.id)
            if answer is None:  # bindings of several kinds: the one this read sees, where straight-line code decides it
                reaching = reaching_value(node, self.ctx)
                if reaching is not None:
                    return self.is_tensor(reaching)
                left = reaching_branch_values(node, self.ctx)  # an `if` rebinding it on every path
                if left is not None and all(self.is_tensor(value) for value in left):
                    return True
                return self._passed_in(node.id, node) if parameter_reaches(node, self.ctx) else None
            return answer
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Subscript):
            if self.is_tensor(node.value):
                return True
            item = isinstance(node.slice, ast.Constant) and type(node.slice.value) is int
            if item and isinstance(node.value, ast.Call) and self._values_indices(node.value):
                return True  # `torch.max(scores, dim=1)[1]` (SAM's best mask): one of the pair
            return True if item and all_tensor_sequences(self.ctx.observed(node.value)) else None  # `pairs[0]`
        if isinstance(node, ast.BinOp):
            if self.is_tensor(node.left) or self.is_tensor(node.right):
                return True
            return None
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            return self.is_tensor(node.operand)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:  # `x > 0` of a tensor is a tensor
            if not isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                return True if self.is_tensor(node.left) or self.is_tensor(node.comparators[0]) else None
            return False
        if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Tuple, ast.List, ast.Dict)):
            return False
        return None

    def _call(self, node: ast.Call) -> bool | None:
        if isinstance(node.func, ast.Call) and node.args:  # `nn.ReLU()(x)`: a layer built and applied at once
            built = self.ctx.qualname(node.func.func) or ""
            if built.startswith("torch.nn.") and built.rsplit(".", 1)[-1] in TENSOR_LAYERS:
                return True
            layer = self._layer_getter(node.func)  # `self.get_input_embeddings()(input_ids)`
            if layer is not None and self._tensor_layer_call(layer):
                return True
        qualname = self.ctx.qualname(node.func)
        if qualname:
            if qualname.split(".")[0] in ("numpy", "math", "builtins"):
                return False
            module, _, last = qualname.rpartition(".")
            if module in ("torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"):
                if last in PAIR_WITH_DIM and _has_dim_argument(node, first=1):
                    return None
                return last not in NON_TENSOR_TORCH
            if qualname == "torch.nn.Parameter":
                return True
            if qualname in PACKED_SEQUENCES:
                return False  # a PackedSequence: its `.data` is a field, not Tensor.data
            return None
        if isinstance(node.func, ast.Name) and self._instance_of_own_class(node.func.id):
            return False  # `dist = Categorical(logits)`: `dist.mode()` is the class's method, not Tensor.mode
        if isinstance(node.func, ast.Attribute):
            method = node.func.attr
            returns = self._own_method_annotation(node.func)
            if returns is not None:
                return self.ctx.qualname(returns) in TENSOR_ANNOTATIONS or None
            if method in NON_TENSOR_METHODS and not (method == "type" and (node.args or node.keywords)):
                return False  # `x.type()` is a string, `x.type(torch.float64)` a tensor
            if method in PAIR_WITH_DIM and _has_dim_argument(node, first=0):
                return None
            dim = next((k.value for k in node.keywords if k.arg == "dim"), None)
            numbered = dim is not None and not (isinstance(dim, ast.Constant) and isinstance(dim.value, str))
            if method in REDUCTION_METHODS and method != "numel" and numbered and self.is_tensor(node.func.value) is not False:
                return True  # `m.any(dim=1)`: torch's keyword (NumPy's and pandas' is `axis=`; xarray's `dim="time"` a name)
            if self.ctx.is_nn_module_attr(node.func.value) and method == "forward":
                return None
            if self._tensor_layer_call(node.func):
                return True
            if self.is_tensor(node.func.value):
                return True
        return None

    def _values_indices(self, node: ast.Call) -> bool:
        """A torch op that returns its (values, indices) pair: `torch.max(x, dim)`, `x.topk(k)`."""
        qualname = self.ctx.qualname(node.func)
        module, _, last = (qualname or "").rpartition(".")
        if module == "torch" and last in VALUES_INDICES:
            return last not in PAIR_WITH_DIM or _has_dim_argument(node, first=1)
        if qualname is None and isinstance(node.func, ast.Attribute) and node.func.attr in VALUES_INDICES:
            method = node.func.attr
            return (method not in PAIR_WITH_DIM or _has_dim_argument(node, first=0)) and bool(
                self.is_tensor(node.func.value))
        return False

    def _module_global(self, name: str) -> bool | None:
        """A name the function reads from its module: False for an instance of a class of the file
        (DeePMD's array namespace `xp = _TorchNamespace()`: `xp.argsort(w)` is its method, not
        Tensor.argsort), else unknown."""
        value = self.ctx.file.module.global_value(name)
        built = isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        return False if built and self._instance_of_own_class(value.func.id) else None

    def _instance_of_own_class(self, name: str) -> bool:
        """Calling ``name`` builds an instance of a class of this file (not a local of that name):
        no `__new__` of its own and no base spelled `...Tensor` (a tensor subclass)."""
        info = self.ctx.file.module.classes.get(name)
        if info is None or self.ctx.scope.is_local(name):
            return False
        bases = [ast.unparse(b) for b in info.node.bases]
        return "__new__" not in info.methods and not any(b.split(".")[-1].endswith("Tensor") for b in bases)

    def _tensor_layer_call(self, func: ast.Attribute) -> bool:
        """``self.proj(x)`` where ``self.proj = nn.Linear(...)`` (layers that return one tensor, or an
        ``nn.Sequential`` ending in one) or a module class of this file whose ``forward`` is annotated
        ``-> torch.Tensor``."""
        if not self.ctx.is_nn_module_attr(func):
            return False
        value = self.ctx.self_attr_value(func)
        module = self.ctx.file.module
        if isinstance(value.func, ast.Name) and value.func.id in module.classes:
            forward = module.classes[value.func.id].methods.get("forward")  # a module of this file
            returns = forward.returns if forward is not None else None
            return returns is not None and module.scope.qualname(returns) in TENSOR_ANNOTATIONS
        qualname = module.scope.qualname(value.func) or ""
        if qualname == "torch.nn.Sequential" and value.args and isinstance(value.args[-1], ast.Call):
            qualname = module.scope.qualname(value.args[-1].func) or ""  # SAM's mask head: what its last layer gives
        return qualname.startswith("torch.nn.") and qualname.rsplit(".", 1)[-1] in TENSOR_LAYERS

    def _layer_getter(self, call: ast.Call) -> ast.Attribute | None:
        """``self.<attr>`` that ``self.method()`` returns, where the method of this class is only
        `return self.<attr>` (transformers' `get_input_embeddings`), spelled on this method's self."""
        cls = self.ctx.fn.cls
        func = call.func
        if cls is None or call.args or call.keywords or not (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.ctx.self_name
        ):
            return None
        method = cls.methods.get(func.attr)
        body = [s for s in method.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))] if method else []
        returned = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None
        if not (isinstance(returned, ast.Attribute) and isinstance(returned.value, ast.Name) and method.args.args
                and returned.value.id == method.args.args[0].arg):
            return None
        return ast.Attribute(value=ast.Name(id=self.ctx.self_name, ctx=ast.Load()), attr=returned.attr, ctx=ast.Load())

    def _own_method_annotation(self, func: ast.Attribute) -> ast.expr | None:
        """The return annotation of ``self.method`` when the method is defined in this class."""
        cls = self.ctx.fn.cls
        if cls is None or not (isinstance(func.value, ast.Name) and func.value.id == self.ctx.self_name):
            return None
        method = cls.methods.get(func.attr)
        return method.returns if method is not None else None

    def _attribute(self, node: ast.Attribute) -> bool | None:
        if self.ctx.is_own_parameter(node):
            return True
        if node.attr in TENSOR_ATTRIBUTES:
            receiver = self.is_tensor(node.value)
            if receiver is not None:
                return receiver  # a NumPy array's `.T`, `.mT`, `.real` are NumPy arrays
        if node.attr == "shape":
            return False
        if node.attr in ("values", "indices") and self._named_tensor_pair(node.value):
            return True  # `x.max(dim=0).values`
        value = self.ctx.self_attr_value(node)
        if isinstance(value, ast.Call):  # self.mask = torch.ones(...) in __init__
            qualname = self.ctx.file.module.scope.qualname(value.func) or ""
            if qualname.startswith("torch.") and not qualname.startswith("torch.nn.") and (
                qualname.rsplit(".", 1)[-1] not in NON_TENSOR_TORCH
            ):
                return True
        if value is None and self._own_instances_only(node.attr):
            return False
        return None

    def _own_instances_only(self, attr: str) -> bool:
        """Every class of the file that sets `self.<attr>` sets it to an instance of a class of the
        file (ultralytics' `Results`: `self.masks = Masks(...)`), so `r.masks.data` is that
        object's field, not Tensor.data, whichever object `r` is."""
        values = [info.self_attrs[attr] for info in self.ctx.file.module.classes.values() if attr in info.self_attrs]
        return bool(values) and all(isinstance(v, ast.Call) and self._own_class_call(v.func) for v in values)

    def _own_class_call(self, func: ast.expr) -> bool:
        """`Masks(...)`, or `Results.Masks(...)` of a class nested in one of the file's."""
        if isinstance(func, ast.Name):
            return self._instance_of_own_class(func.id)
        return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and self._instance_of_own_class(func.value.id))

    def _named_tensor_pair(self, node: ast.AST) -> bool:
        """A call returning torch's (values, indices) named tuple: `torch.topk(t, k)`, `t.max(dim)`;
        on a receiver not known to be a tensor only with a dim (pandas' `df.max(axis=0).values`
        and `df.cummax().values` are arrays)."""
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        qualname = self.ctx.qualname(func)
        if qualname is not None:
            return qualname.rpartition(".")[0] == "torch" and qualname.rpartition(".")[2] in VALUES_INDICES
        if not (isinstance(func, ast.Attribute) and func.attr in VALUES_INDICES):
            return False
        known = self.is_tensor(func.value)
        return known is True or (known is None and any(k.arg == "dim" for k in node.keywords))

    def name_is_tensor(self, name: str) -> bool | None:
        """What this function's bindings of ``name`` say, wherever it is read."""
        return self._name(name)

    def _name(self, name: str) -> bool | None:
        if name in self._names:
            return self._names[name]
        # Provisionally True: `h = h * 2` is a tensor if every other assignment says so.
        self._names[name] = True
        answer = self._name_uncached(name)
        self._names[name] = answer
        return answer

    def _name_uncached(self, name: str) -> bool | None:
        ctx = self.ctx
        annotation = parameter_annotation(ctx.fn.node, name)
        if annotation is not None:
            return ctx.qualname(annotation) in TENSOR_ANNOTATIONS or None
        outer = ctx.outer_function
        if outer is not None and not ctx.is_parameter(name) and not _bindings(ctx, name):
            return outer.tensors._name(name)  # a closure's name: typed where it is bound
        if outer is not None and ctx.is_parameter(name) and ctx.fn.node.name.startswith(MOVED_BRANCHES):
            if outer.tensors._name(name) is not True:  # passed in as itself: `_onnx_value_select(..., (h,))`
                return None
            values = _bindings(ctx, name)
            return None if any(isinstance(v, ast.stmt) or not self.is_tensor(v) for v in values) else True
        if ctx.is_parameter(name):
            # a tensor when every call site in the file passes one (and every rebinding is one),
            # or an input of the exported forward that forward uses as a tensor
            if not self._passed_in(name):
                return None
            values = _bindings(ctx, name)
            if any(isinstance(v, ast.stmt) for v in values):
                return None
            return True if all(self.is_tensor(v) for v in values) else None
        values = [v for v in _bindings(ctx, name) if not (isinstance(v, ast.Assign) and self._unpacks_tensors(v))]
        if not _bindings(ctx, name):
            return self._module_global(name)
        answers = [None if isinstance(v, ast.stmt) else self.is_tensor(v) for v in values]
        if not any(answers) and any(self._numpy_value(v) for v in values):
            return False  # `a = (np.arange(n) + 0.5) * s`, `gx, gy = np.meshgrid(a, b)`: `a.ravel()` is NumPy's
        if answers and all(answer is False for answer in answers) and not _augmented(ctx, name):
            return False  # every binding is known not to be a tensor (`y = x.numpy()`, `n = 3`; not `h = 0; h += x`)
        return True if all(answers) else None

    def _passed_in(self, name: str, read: ast.Name | None = None) -> bool | None:
        """The parameter ``name`` holds a tensor on entry: every call site in the file passes one,
        or it is an input of the exported forward that forward uses as a tensor (as ``read``, a
        read that sees the value passed in, tells where forward rebinds the name)."""
        ctx = self.ctx
        if ctx.across_calls("tensor", name, lambda caller, arg: bool(caller.tensors.is_tensor(arg))):
            return True
        return True if forward_input_used_as_tensor(ctx, name, read) else None

    def _numpy_value(self, value: ast.AST) -> bool:
        """A NumPy call (`np.arange(n)`), arithmetic, indexing or a method chain on one, or a
        tuple unpacking of one."""
        if isinstance(value, ast.Assign):
            value = value.value if all(isinstance(t, ast.Tuple) for t in value.targets) else None
        if isinstance(value, ast.BinOp):
            return self._numpy_value(value.left) or self._numpy_value(value.right)
        if isinstance(value, ast.UnaryOp):
            return self._numpy_value(value.operand)
        if isinstance(value, ast.Subscript):  # `np.arange(n)[:, None]`
            return self._numpy_value(value.value)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and self.ctx.qualname(value.func) is None:
            return self._numpy_value(value.func.value)  # `np.arange(n).reshape(1, -1)`, `.astype(...)`
        return isinstance(value, ast.Call) and (self.ctx.qualname(value.func) or "").split(".")[0] == "numpy"

    def _unpacks_tensors(self, assign: ast.Assign) -> bool:
        """`values, indices = torch.topk(x, k)` (or `x.sort(...)`, `x.max(dim)`): a flat tuple
        target unpacking an op that returns a tuple of tensors."""
        if not all(isinstance(t, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in t.elts)
                   for t in assign.targets) or not isinstance(assign.value, ast.Call):
            return False
        func = assign.value.func
        qualname = self.ctx.qualname(func)
        if qualname is not None:
            return qualname.rpartition(".")[0] in ("torch", "torch.linalg") and qualname.rpartition(".")[2] in TENSOR_TUPLES
        return (isinstance(func, ast.Attribute) and func.attr in TENSOR_TUPLES
                and bool(self.is_tensor(func.value)))


def _augmented(ctx: "FunctionContext", name: str) -> bool:
    """``name`` is the target of an augmented assignment (`h += x`) in the function."""
    return any(isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name
               for n in walk(ctx.fn.node))


# torch's calls that draw random numbers (functions, methods, in-place samplers): code that runs one
# more or one fewer of them moves every later draw
RANDOM_CALLS = frozenset({"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm",
                          "bernoulli", "bernoulli_", "multinomial", "normal", "normal_", "uniform_", "random_",
                          "exponential_", "geometric_", "cauchy_", "log_normal_", "dropout", "poisson"})


def in_place_method(name: str) -> bool:
    """`add_`, `clamp_`, `masked_fill_`: torch's naming of a method that writes its receiver
    (not a dunder, not a private `_x_`)."""
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")


def _has_dim_argument(node: ast.Call, first: int) -> bool:
    """``x.max(1)`` / ``torch.max(x, dim=1)``; ``torch.max(a, b)`` (two tensors) is unclear."""
    return len(node.args) > first or any(k.arg in ("dim", "keepdim") for k in node.keywords)


def parameter_annotation(fn: ast.AST, name: str) -> ast.expr | None:
    args = fn.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if arg.arg == name:
            return arg.annotation
    return None


def _bindings(ctx, name: str) -> list:
    """The name's assignments but its augmented ones (`t ^= m`): an in-place operator on a
    tensor leaves a tensor, so they decide nothing the others do not."""
    return [v for v in ctx.assignments(name) if not isinstance(v, ast.AugAssign)]
