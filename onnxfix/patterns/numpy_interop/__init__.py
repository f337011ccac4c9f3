"""ONX1xx: NumPy in export-time code, and tensor <-> ndarray round trips.

A function's NumPy region (``.numpy()`` sources, numpy calls, names holding ndarrays, and the
``torch.from_numpy``/``torch.tensor`` sinks) is fixed as one group: the fix is offered only if
every value that leaves the region goes back into torch, and is safe only if every step is
exact in torch (data movement, comparisons, creation with the dtype NumPy would have used).
"""

from onnxfix.patterns.numpy_interop import rules

RULES = [rules.NumpyCall, rules.TensorToNumpy, rules.NumpyToTensor]
