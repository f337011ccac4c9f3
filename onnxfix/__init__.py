"""onnxfix: find and fix PyTorch code that breaks ONNX export."""

__version__ = "0.1.0"
