#!/usr/bin/env bash
# Train the corner detector on a lent CUDA machine that reaches no package index (docs/vision.md,
# "4 December, evening"). Two halves:
#
#   here, once:  scripts/gpu-detector.sh --prepare
#       wheels the machine lacks into .whl/ (for its Python 3.12), the faces packed into .devcarry/faces
#       (vision/training/carry.py); both are ignored by git and travel as the device tool's carry.
#   there:       scripts/gpu-detector.sh PIPELINE-OPTIONS...      (carry [".whl", ".devcarry"])
#       installs the wheels, unpacks the faces, runs `python -m vision.training.pipeline` with the
#       options and copies the weights, export and log to $OUT (or runs/gpu-out without it).
#
# The shipped models come from the 2-core CPU recipe (`cardtable vision train`); this is for measuring
# what a larger budget buys, e.g.
#   scripts/gpu-detector.sh --stages detector-data,detector --det-device 0 --det-batch 64 --workers 16 \
#     --det-images 20000 --epochs 60 --det-minutes 5.5 --out runs/gpu
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--prepare" ]]; then
    mkdir -p .whl
    platforms=()
    for n in manylinux_2_28 manylinux_2_27 manylinux_2_24 manylinux_2_17 manylinux2014 manylinux1; do
        platforms+=(--platform "${n}_x86_64")
    done
    .venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        "${platforms[@]}" -d .whl \
        "ultralytics==$(.venv/bin/python -c 'import ultralytics; print(ultralytics.__version__)')" \
        ultralytics-thop ultralytics-platform pydantic pydantic_core annotated_types typing_inspection typing_extensions
    rm -rf .devcarry/faces
    .venv/bin/python -m vision.training.carry pack .devcarry/faces
    du -sh .whl .devcarry
    exit 0
fi

out="${OUT:-runs/gpu-out}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
# ultralytics reads its own results.csv back with polars only to store it in the checkpoint; the
# machine has no polars, so a stand-in says so and ultralytics stores nothing there.
mkdir -p /tmp/shim/polars
printf 'def read_csv(*args, **kwargs):\n    raise RuntimeError("polars is not on this machine")\n' \
    >/tmp/shim/polars/__init__.py
export PYTHONPATH="/tmp/site:/tmp/shim:$PWD"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
python3 -m vision.training.carry unpack .devcarry/faces --workers "$(nproc)"
# What the run left is copied even when it fails or its cap cuts it short; its status is the script's.
status=0
python3 -m vision.training.pipeline "$@" 2>&1 | tr '\r' '\n' | { grep -v 'it/s' || true; } | tee "$out/log" || status=$?
run="runs/train"
for ((i = 1; i <= $#; i++)); do
    case "${!i}" in
        --out) j=$((i + 1)); run="${!j}" ;;
        --out=*) run="${!i#--out=}" ;;
    esac
done
for f in "$run"/*/weights/best.pt "$run"/export/corner-detector.onnx; do
    [[ -f "$f" ]] && cp "$f" "$out/$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")"
done
tar czf "$out/results.tgz" "$run"/*/results.csv "$run"/part-*.json 2>/dev/null || true
ls -la "$out"
exit "$status"
