"""A failing probe that passes another Python value than the export's is told so (exporter/python_arguments.py)."""
import torch

from onnxfix.exporter.python_arguments import baked_arguments


def test_a_changed_number_is_named_with_its_exported_value():
    x = torch.zeros(2)
    note = baked_arguments((x, 0.5, True), (x, 0.0, True), ["x", "w", "flag"])
    assert note.startswith("this probe passes `w`=0.0 (exported with 0.5): a Python value given to forward")


def test_tensors_equal_values_and_other_kinds_are_not_named():
    x = torch.zeros(2)
    assert baked_arguments((x, 1, None), (torch.ones(3), 1, None), ["x", "k", "mask"]) == ""
    assert baked_arguments((x, 1), (x, torch.tensor(2)), ["x", "k"]) == ""  # a tensor now: an input
    assert "`k`=1.0" in baked_arguments((x, 1), (x, 1.0), ["x", "k"])  # another type traces otherwise
