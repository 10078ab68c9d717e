#!/bin/bash
# One GPU lease (the device tool) for the glyph classifier, run from the repository root there:
#   BUDGET=540 bash referee/lab/lease_glyphs.sh      with carry [".gpu"] made by `python -m referee.lab.lease .gpu ...`
# Cuts glyph crops of many rendered scenes on all its cores (labelled indices and background squares,
# then the shipped detector's own boxes as hard examples), trains two classifiers side by side on
# the GPU for the time left (A from scratch, B from the shipped weights), and packs both runs into
# $OUT/glyph-runs.tar whatever fails. DEVICE=cpu with small counts runs the same script here.
PACK=${PACK:-.gpu}
SEED=${SEED:-170}                 # rendered crops use SEED, mined crops SEED+1
SCENES=${SCENES:-24000}           # rendered scenes to crop
MINED=${MINED:-8000}              # scenes to mine the detector's boxes on
DETECTOR=${DETECTOR:-models/uno_cards.onnx}
INIT_A=${INIT_A:-}                 # A continues from this state (.pt) when set, else starts from scratch
INIT_B=${INIT_B:-models/uno_glyphs.onnx}
BUDGET=${BUDGET:-540}             # seconds for the whole script
DEVICE=${DEVICE:-cuda}
WORKERS=${WORKERS:-7}             # augmenting processes per training run
BATCH=${BATCH:-256}
PY=${PY:-python3}
WORK=${WORK:-/tmp/glyphs}
OUT=${OUT:-/tmp/out}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT" "$WORK/a" "$WORK/b"
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(el)s] $*"; }
finish() {
  log "packing"
  tar -cf "$OUT/glyph-runs.tar" -C "$WORK" a b 2>/dev/null
  ls -la "$OUT"
}
trap finish EXIT

if [ "$DEVICE" != cpu ]; then
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  export PYTHONPATH=$PWD
  mkdir -p /usr/share/fonts/truetype/carried && cp "$PACK"/fonts/* /usr/share/fonts/truetype/carried/
fi
NPROC=$(nproc)
$PY -c "import torch, cv2, onnxruntime; from referee.render.glyphs import numeral_fonts; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'faces', len(numeral_fonts()))" || exit 4
log "rendered crops"
$PY -m referee.lab.glyph_data "$WORK/rendered.npz" --scenes "$SCENES" --seed "$SEED" --size 416 \
  --roboflow "$PACK"/uno-cards-roboflow --workers "$NPROC" --no-compress || exit 5
log "mined crops"
$PY -m referee.lab.glyph_data "$WORK/mined.npz" --scenes "$MINED" --seed $((SEED + 1)) --size 416 \
  --mine "$DETECTOR" --workers "$NPROC" --no-compress || exit 6
MINUTES=$($PY -c "print(round(($BUDGET - $(el) - 45) / 60, 2))")
log "training two runs for $MINUTES min each"
run() {  # NAME, then extra options
  name=$1; shift
  $PY -m referee.lab.glyph_training "$WORK/rendered.npz" "$WORK/mined.npz" --out "$WORK/$name/uno_glyphs.onnx" \
    --minutes "$MINUTES" --device "$DEVICE" --workers "$WORKERS" --batch "$BATCH" --threads 1 "$@" \
    > "$WORK/$name/train.log" 2>&1
}
run a --lr 3e-3 --seed 1 ${INIT_A:+--init "$INIT_A"} \
  --trained-on "lease: rendered crops (seed $SEED, $SCENES scenes, Roboflow train) + detector boxes (seed $((SEED + 1)), $MINED scenes), from ${INIT_A:-scratch}" &
run b --lr 1e-3 --seed 2 --init "$INIT_B" \
  --trained-on "lease: rendered crops (seed $SEED, $SCENES scenes, Roboflow train) + detector boxes (seed $((SEED + 1)), $MINED scenes), from $INIT_B" &
wait
for name in a b; do echo "== $name"; grep -v "^epoch" "$WORK/$name/train.log" | tail -5; grep "^epoch" "$WORK/$name/train.log" | tail -2; done
log "done"
