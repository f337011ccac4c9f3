"""onnxfix: find and fix PyTorch code that breaks ONNX export.

Python API (README, "Python API"): ``export`` a live model like torch.onnx.export and get the
verdict per exporter; ``check`` and ``fix`` a module object, a file or a folder statically.
Importing onnxfix does not import torch.
"""

__version__ = "0.1.0"

from onnxfix.api import CheckResult, ExportResult, check, export, fix  # noqa: E402  (after __version__: cli reads it)

__all__ = ["CheckResult", "ExportResult", "__version__", "check", "export", "fix"]
