"""Training of the recognition models (needs the ``train`` extra: torch, ultralytics, onnx)."""
