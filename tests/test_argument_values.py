"""Operator variants decided by arguments held in variables (`antialias=self.antialias` set in
__init__ from a parameter's default, a local name bound to a literal), `**kwargs` calls (an unsafe
fix), and methods of a model passed to a wrapper's constructor (DINOv2's `TempModel(model)`)."""

from __future__ import annotations

from static_findings import findings as _findings


def test_arguments_held_in_attributes_and_locals_decide_the_variant(tmp_path):
    found = _findings(tmp_path, """
    import torch
    from torch import nn
    import torch.nn.functional as F


    class Resize(nn.Module):
        def __init__(self, antialias=True, mode="bicubic", off=False):
            super().__init__()
            self.antialias = antialias
            self.mode = mode
            self.off = off

        def forward(self, x):
            sum_pool = 1
            a = F.interpolate(x, size=(5, 7), mode=self.mode, antialias=self.antialias)
            b = F.interpolate(x, size=(5, 7), mode="bilinear", antialias=self.off)
            c = F.avg_pool2d(x, 2, divisor_override=sum_pool)
            return a, b, c
    """)
    assert found == [("ONX519", 16, True), ("ONX516", 18, True)]


def test_a_kwargs_call_gets_an_unsafe_fix(tmp_path):
    found = _findings(tmp_path, """
    import torch
    from torch import nn


    class Resize(nn.Module):
        def forward(self, x):
            kwargs = {"size": (5, 7)}
            return nn.functional.interpolate(x, mode="bicubic", antialias=True, **kwargs)
    """)
    assert found == [("ONX519", 9, False)]


def test_methods_of_a_model_passed_to_the_constructor_are_reached(tmp_path):
    found = _findings(tmp_path, """
    import torch
    from torch import nn


    class Backbone(nn.Module):
        def features(self, x):
            return torch.atanh(x)


    class Wrapper(nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model.features(x)


    def make_model():
        backbone = Backbone()
        return Wrapper(model=backbone)
    """)
    assert found == [("ONX517", 8, True)]


def test_a_callable_helper_object_held_by_the_module_is_reached(tmp_path):
    """DA3's PositionGetter: a plain object (not a module) built in __init__ behind a flag and
    called in forward runs its __call__."""
    found = _findings(tmp_path, """
    import torch
    from torch import nn


    class PositionGetter:
        def __call__(self, h, w):
            return torch.cartesian_prod(torch.arange(h), torch.arange(w))


    class Backbone(nn.Module):
        def __init__(self, rope=True):
            super().__init__()
            self.getter = PositionGetter() if rope else None

        def forward(self, x):
            return x + self.getter(x.shape[-2], x.shape[-1]).sum()
    """)
    assert [f[:2] for f in found if f[0] == "ONX519"] == [("ONX519", 8)]


def test_int_of_a_parameter_callers_pass_as_a_size_becomes_sym_int(tmp_path):
    """transformers' torch_int: `int(x)` where some caller passes a size (through a rebinding
    `height = height // patch`) specializes it under torch.export; torch.sym_int is int() in eager."""
    code = """
    import torch
    from torch import nn


    def torch_int(x):
        return x.to(torch.int64) if torch.jit.is_tracing() and isinstance(x, torch.Tensor) else int(x)


    class Embeddings(nn.Module):
        def interpolate(self, grid, height, width):
            height = height // 16
            side = torch_int(grid.shape[1] ** 0.5)
            return nn.functional.interpolate(grid.reshape(1, 1, side, side), size=(torch_int(height), torch_int(width)))

        def forward(self, pixels, grid):
            b, _, height, width = pixels.shape
            return self.interpolate(grid, height, width)
    """
    found = _findings(tmp_path, code)
    assert [f for f in found if f[0] == "ONX203"] == [("ONX203", 7, True)]


def test_values_passed_by_callers_and_constructors_decide_the_variant(tmp_path):
    """torchvision-style `resize(img, size, antialias=True)` called without antialias, and a
    model built as `MyModel(scale, mode)` after `mode = 'area'` (issue 41009's repro)."""
    found = _findings(tmp_path, """
    import torch
    from torch import nn
    import torch.nn.functional as F


    def resize(img, size, antialias=True):
        return F.interpolate(img, size=size, mode="bilinear", align_corners=False, antialias=antialias)


    class MyModel(nn.Module):
        def __init__(self, scale_factor, mode):
            super().__init__()
            self.interp_mode = mode
            self.sf = scale_factor

        def forward(self, x):
            return F.interpolate(x, scale_factor=self.sf, mode=self.interp_mode) + resize(x, (4, 4)).mean()


    def make_model():
        scale_factor = 1 / 2
        mode = 'area'
        return MyModel(scale_factor, mode)
    """)
    assert [f[:2] for f in found if f[0] == "ONX519"] == [("ONX519", 8), ("ONX519", 18)]


def test_literal_arguments_select_batch_norm_on_batch_statistics(tmp_path):
    """ONX519's batch_norm_stats takes calls passing no running statistics and `training=True`, by
    keyword or at its place; `training=1` is not the literal True, and `**kwargs` may pass anything."""
    found = _findings(tmp_path, """
    import torch.nn.functional as F
    from torch import nn


    class Norms(nn.Module):
        def forward(self, x, w, options):
            a = F.batch_norm(x, None, None, w, None, True, 0.1, 1e-5)
            b = F.batch_norm(x, None, None, w, training=True)
            c = F.batch_norm(x, None, None, w, None, 1, 0.1, 1e-5)
            d = F.batch_norm(x, None, None, **options)
            e = F.batch_norm(x, w, w, None, None, True)
            return a + b + c + d + e
    """)
    assert [(code, line) for code, line, _ in found if code == "ONX519"] == [("ONX519", 8), ("ONX519", 9)]


def test_an_argument_chosen_by_a_branch_of_init_is_no_literal(tmp_path):
    # which value runs is the config's: reading the first assignment (True) would rewrite the
    # antialiased path into a model that runs the plain one
    found = _findings(tmp_path, """
    import torch
    from torch import nn
    import torch.nn.functional as F


    class Resize(nn.Module):
        def __init__(self, smooth=False):
            super().__init__()
            if smooth:
                self.antialias = True
            else:
                self.antialias = False

        def forward(self, x):
            return F.interpolate(x, size=(5, 7), mode="bicubic", antialias=self.antialias)
    """)
    assert found == []
