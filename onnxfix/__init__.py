"""onnxfix: find and fix PyTorch code that breaks ONNX export.

Python API (README, "Python API"): ``export`` a live model like torch.onnx.export and get the
verdict per exporter; ``check`` and ``fix`` a module object, a file or a folder statically.
Importing onnxfix does not import torch.
"""

from onnxfix._version import __version__
from onnxfix.api import CheckResult, ExportResult, check, export, fix

__all__ = ["CheckResult", "ExportResult", "__version__", "check", "export", "fix"]
