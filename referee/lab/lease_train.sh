#!/bin/bash
# One GPU lease (the device tool), run from the repository root there:
#   BUDGET=560 bash referee/lab/lease_train.sh      with carry [".gpu"] made by `python -m referee.lab.lease .gpu ...`
# Renders a big training set on all its cores, trains the detector from START (or from scratch) for the time left
# and copies the checkpoints and logs to $OUT, whatever fails. Every knob is an environment variable;
# DEVICE=cpu with small counts runs the same script here (a dry run before spending device time).
PACK=${PACK:-.gpu}
# Its record of the real decks it saw must travel too: NAME.decks.json beside a checkpoint in
# models/checkpoints/, or runs/RUN/decks_seen.json for runs/RUN/weights/*.pt (carry both paths).
# START= (empty) trains from the network's definition, from scratch.
START=${START-models/checkpoints/uno-cards.pt}
# The real photos mixed in; ROBOFLOW= (empty) renders scenes only, so the run sees no real deck at all.
ROBOFLOW=${ROBOFLOW-$PACK/uno-cards-roboflow}
EPOCHS=${EPOCHS:-12}            # ultralytics refits the epoch count to the time left after the first
SEED=${SEED:-80}                # scenes use SEED, SEED+1 (clutter), SEED+2 (second chunk)
LR0=${LR0:-0.001}
export PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-560}           # seconds for the whole script
MAIN=${MAIN:-26000}             # first chunk of training-mix scenes
NEG=${NEG:-6000}                # clutter-only scenes
MORE=${MORE:-16000}             # second chunk if rendering was quick (0: none)
# A photographed deck's face folder (packed by `python -m referee.lab.lease --faces`), dealt into FACES_COUNT more
# training scenes and mixed in (referee.lab.mix_sets): the run then records that deck as seen. FACES= (empty): none.
FACES=${FACES-}
FACES_COUNT=${FACES_COUNT:-0}
DEVICE=${DEVICE:-0}
BATCH=${BATCH:-128}
WORKERS=${WORKERS:-14}
PY=${PY:-python3}
DATA=${DATA:-/tmp/mix}
RUNS=${RUNS:-/tmp/runs}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(el)s] $*"; }
finish() {
  log "copying back"
  # A run stopped before ultralytics' own ending still holds its optimiser state (26 MB for yolo11n), over
  # the 16 MiB a file that comes back: strip it as ultralytics does at a normal end (weights kept, in half).
  for f in best.pt last.pt; do
    [ -e "$RUNS/det-gpu/weights/$f" ] || continue
    $PY -c "import sys; from ultralytics.utils.torch_utils import strip_optimizer as s; s(sys.argv[1], sys.argv[2])" \
      "$RUNS/det-gpu/weights/$f" "$OUT/$f" > /dev/null 2>&1 || cp "$RUNS/det-gpu/weights/$f" "$OUT/"
  done
  for f in results.csv args.yaml decks_seen.json; do cp "$RUNS/det-gpu/$f" "$OUT/" 2>/dev/null; done
  ls -la "$OUT"
}
trap finish EXIT

if [ "$DEVICE" != cpu ]; then
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  df -h /dev/shm | tail -1
  mountpoint -q /dev/shm || { mkdir -p /dev/shm; mount -t tmpfs -o size=48G tmpfs /dev/shm; }
  mount -o remount,size=48G /dev/shm 2>/dev/null; df -h /dev/shm | tail -1
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$PACK"/whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site:$PWD
  mkdir -p /usr/share/fonts/truetype/carried && cp "$PACK"/fonts/* /usr/share/fonts/truetype/carried/
fi
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=0 YOLO_CONFIG_DIR=$RUNS/.ultralytics
NPROC=$(nproc)
$PY -c "import ultralytics, torch; from referee.render.glyphs import numeral_fonts; print('ultralytics', ultralytics.__version__, 'torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'faces', len(numeral_fonts()))" || exit 4
log "render main"
$PY -m referee.render.dataset "$DATA" --count "$MAIN" --seed "$SEED" --size 320 --val-fraction 0.02 --workers "$NPROC" \
  ${ROBOFLOW:+--roboflow "$ROBOFLOW" --roboflow-share 0.12} > /tmp/render1.log 2>&1 || { tail -5 /tmp/render1.log; exit 5; }
tail -c 300 /tmp/render1.log
log "render negatives"
$PY -m referee.render.dataset "$DATA" --kind negative --count "$NEG" --seed $((SEED + 1)) --size 320 --val-fraction 0 --workers "$NPROC" > /tmp/render2.log 2>&1 || { tail -5 /tmp/render2.log; exit 6; }
tail -c 200 /tmp/render2.log
if [ "$MORE" -gt 0 ] && [ "$(el)" -lt $((BUDGET / 5)) ]; then
  log "render more"
  $PY -m referee.render.dataset "$DATA" --count "$MORE" --seed $((SEED + 2)) --size 320 --val-fraction 0 --workers "$NPROC" > /tmp/render3.log 2>&1 || { tail -5 /tmp/render3.log; exit 7; }
  tail -c 200 /tmp/render3.log
fi
# The real photos are the only real texture in the set: each one twice more (under other names).
for copy in 2 3; do
  for image in "$DATA"/images/train/rf_*.jpg; do
    [ -e "$image" ] || continue
    stem=$(basename "$image" .jpg)
    cp "$image" "$DATA/images/train/x${copy}${stem}.jpg"
    cp "$DATA/labels/train/$stem.txt" "$DATA/labels/train/x${copy}${stem}.txt"
  done
done
TRAIN_SET=$DATA
DEALT=0
if [ -n "$FACES" ] && [ "$FACES_COUNT" -gt 0 ]; then
  log "render scenes dealt $FACES"
  $PY -m referee.render.dataset "$DATA-faces" --faces "$FACES" --count "$FACES_COUNT" --seed $((SEED + 3)) --size 320 --val-fraction 0 --workers "$NPROC" > /tmp/render4.log 2>&1 || { tail -5 /tmp/render4.log; exit 8; }
  tail -c 300 /tmp/render4.log
  $PY -m referee.lab.mix_sets "$DATA-mixed" "$DATA" "$DATA-faces" || exit 9
  TRAIN_SET=$DATA-mixed
  DEALT=$(ls "$DATA-faces"/images/train | wc -l)
fi
log "train images: $(ls "$DATA"/images/train | wc -l) + $DEALT dealt a photographed deck, val: $(ls "$DATA"/images/val | wc -l)"
# ultralytics' clock starts after it has scanned the labels (~20 s for 50,000 scenes) and stops before its
# final validation: MARGIN covers both and the copying back (the s50 lease, at 50 s, was cut in its last one).
MARGIN=${MARGIN:-100}
hours_left() { $PY -c "print(round(max($BUDGET - $(el) - $MARGIN, 30) / 3600, 4))"; }  # a dry run still trains a little
HOURS=$(hours_left)
log "training for $HOURS h"
train() {
  timeout $((BUDGET - $(el) - 12)) $PY -m referee.lab.training "$TRAIN_SET/data.yaml" --name det-gpu --runs "$RUNS" \
    ${START:+--weights "$START"} --epochs "$EPOCHS" --hours "$1" --imgsz 320 \
    --batch "$2" --workers "$3" --device "$DEVICE" --lr0 "$LR0" --close-mosaic 3 > "$OUT/train.log" 2>&1
}
TRAINING_FROM=$(el)
train "$HOURS" "$BATCH" "$WORKERS"
if [ $? -ne 0 ] && [ $(( $(el) - TRAINING_FROM )) -lt 90 ]; then
  log "training failed early, retrying with batch 64 and 6 workers"; tail -5 "$OUT/train.log"
  rm -rf "$RUNS/det-gpu"
  HOURS=$(hours_left)
  train "$HOURS" 64 6
fi
grep -a -E "Epoch|all |epochs completed|Error|error|Traceback|best checkpoint" "$OUT/train.log" | tr '\r' '\n' | grep -v "it/s]$" | tail -n 60
log "training ended"
