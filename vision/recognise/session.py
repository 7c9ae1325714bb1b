"""One place that opens ONNX models, so every stage gets the same thread and memory settings.

On the Pi the referee, the feed and the camera share four small cores; the recogniser is given one
thread by default (``threads=1``) and sequential execution so that its latency is predictable and it
never starves the rest. The CPU memory arena is kept (turning it off saves a few MB but costs time
on every frame).
"""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort

from vision.recognise.manifest import ModelError


def open_session(path: Path, threads: int = 1) -> ort.InferenceSession:
    """An onnxruntime CPU session for ``path`` using ``threads`` intra-op threads."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: the Pi's journal should not fill with ORT notices
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad graphs
        raise ModelError(f"cannot load ONNX model {path}: {exc}") from None


def static_dim(value: object) -> int | None:
    """A graph dimension as an int, or None when it is symbolic (dynamic)."""
    return value if isinstance(value, int) and value > 0 else None
