"""ONX1xx: NumPy in export-time code, and tensor <-> ndarray round trips.

A function's NumPy region (``.numpy()`` sources, numpy calls, names holding ndarrays, and the
``torch.from_numpy``/``torch.tensor`` sinks) is fixed as one group: the fix is offered only if
every value that leaves the region goes back into torch, and is safe if every step is exact
in torch (data movement, comparisons, creation with the dtype NumPy would have used) or differs
only in rounding: then each rewritten expression keeps its NumPy original for eager behind
`torch.onnx.is_in_onnx_export()`.
"""

from onnxfix.patterns.numpy_interop import rules

RULES = [rules.NumpyCall, rules.TensorToNumpy, rules.NumpyToTensor]
