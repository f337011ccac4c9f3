"""Spellings the operator rules must leave alone, or fix only as unsafe (found in review): what
looks like a tensor op on a value that is not one, and in-place forms whose out-of-place twin
computes another dtype."""

from __future__ import annotations

from static_findings import findings as _findings


HEADER = """
    import math
    import torch
    from torch import nn


    class Patches:
        def unfold(self, x, size, step):
            return x


"""


def test_a_rebound_parameter_is_not_a_bool_mask(tmp_path):
    """`mask` is a masked_fill mask, then rebound to floats: its cumsum is a float cumsum."""
    found = _findings(tmp_path, HEADER + """
    class M(nn.Module):
        def forward(self, x, mask):
            x = x.masked_fill(mask, 0.0)
            mask = mask.float() * 0.5
            return x, mask.cumsum(-1)
    """)
    assert [f for f in found if f[0] == "ONX528"] == []


def test_an_unrebound_masked_fill_mask_is_bool(tmp_path):
    found = _findings(tmp_path, HEADER + """
    class M(nn.Module):
        def forward(self, x, mask):
            return x.masked_fill(mask, 0.0), mask.cumsum(-1)
    """)
    assert [f for f in found if f[0] == "ONX528"] == [("ONX528", 15, True)]


def test_unfold_of_a_layer_or_an_object_is_not_tensor_unfold(tmp_path):
    found = _findings(tmp_path, HEADER + """
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.unfold = nn.Unfold(3)
            self.patches = Patches()

        def forward(self, x):
            return self.unfold(x), self.patches.unfold(x, 2, 1)
    """)
    assert [f for f in found if f[0] == "ONX519"] == []


def test_elementwise_in_place_on_a_new_tensor_keeps_its_copy_back(tmp_path):
    """`zeros(4, dtype=int32).bitwise_xor_(y)` keeps int32; the out-of-place op would promote."""
    found = _findings(tmp_path, HEADER + """
    class M(nn.Module):
        def forward(self, y: torch.Tensor, i: torch.Tensor, v: torch.Tensor):
            a = torch.zeros(4, dtype=torch.int32).bitwise_xor_(y)
            b = torch.zeros_like(v).index_put_((i,), v, accumulate=True)
            return a, b
    """)
    assert ("ONX518", 16, True) in found and not any(f[1] == 15 for f in found)


def test_complex_products_of_numbers_are_not_complex_tensors(tmp_path):
    found = _findings(tmp_path, HEADER + """
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.k = 3

        def forward(self, x, scale: float):
            w = 2 * math.pi * 1j
            return x, self.k * 1j, scale * 1j, w, torch.sin(x) * 1j
    """)
    assert [f for f in found if f[0] == "ONX526"] == [("ONX526", 20, True)]


def test_floor_division_in_place_is_safe_only_by_an_int_literal(tmp_path):
    found = _findings(tmp_path, HEADER + """
    class M(nn.Module):
        def forward(self, z: torch.Tensor, y: torch.Tensor):
            z = z.clone()
            z //= 3
            z //= y
            return z
    """)
    assert [f for f in found if f[0] == "ONX518"] == [("ONX518", 16, True), ("ONX518", 17, False)]


def test_in_place_and_is_written_back_unless_the_tensor_may_be_a_view(tmp_path):
    """`mask &= x` on a fresh tensor becomes `mask.copy_(mask & x)`; on a slice of another tensor
    the legacy exporter drops the `copy_` through the view (measured: silently wrong), so no fix;
    on a name that may be a Python bool, an unsafe fix."""
    found = _findings(tmp_path, HEADER + """
    class M(nn.Module):
        def forward(self, x: torch.Tensor, flag: bool):
            mask = (x > 0).all(1)
            mask &= (x < 3).all(1)
            row = mask[0]
            row &= x[0, 0] > 1
            ok = flag > 0
            ok &= flag < 5
            return x * mask[:, None], ok
    """)
    assert [f for f in found if f[0] == "ONX519"] == [("ONX519", 16, True), ("ONX519", 18, None), ("ONX519", 20, False)]
