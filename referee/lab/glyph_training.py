"""Train the glyph classifier (:mod:`referee.vision.glyphs`) and export it to ONNX.

A small convolutional network (about 0.2 M parameters) over the 40 px crops that
:mod:`referee.lab.glyph_data` writes. It learns the detector's 22 classes plus "background", and an
embedding (the layer before the classes, normalised) in which a user's deck is learnt. Colour is not
its job: every crop's channels are shuffled and its hue, light and contrast jittered, and crops are
turned by any multiple of 90° plus a little, as cards lie at any angle under the camera. Half of them
(``--photo-artefacts``) are also shrunk and JPEG-compressed, as a small index in a real photo is.

``python -m referee.lab.glyph_training crops.npz --out models/uno_glyphs.onnx --minutes 20``
(needs the ``train`` extra: torch). Minutes on this 2-core CPU, not hours: it runs beside a detector
training. On a lent GPU (``--device cuda --workers 12``) the augmentation runs in worker processes
and the same minutes hold many more epochs (``referee/lab/lease_glyphs.sh``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

from referee.errors import UserError
from referee.lab.provenance import checkpoint_decks, write_record
from referee.vision.centres import CENTRE_CLASSES, CENTRE_REGION, NO_CENTRE
from referee.vision.corners import CORNER_CLASSES
from referee.vision.glyphs import BACKGROUND, CONTEXT, CROP_PX, GLYPH_CLASSES
from referee.vision.pairs import INDEX_AT, PAIR_CLASSES, PAIR_MARGIN

EMBEDDING = 64


def build_network(classes: int = len(GLYPH_CLASSES)):
    """Five conv stages (stride 2 from the second), global pooling, a 64-d embedding, the classes."""
    import torch
    from torch import nn

    def stage(cin: int, cout: int, stride: int) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
        )

    class GlyphNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                stage(3, 24, 1),
                stage(24, 32, 2),  # 20
                stage(32, 48, 1),
                stage(48, 64, 2),  # 10
                stage(64, 96, 1),
                stage(96, 128, 2),  # 5
                stage(128, 128, 1),
            )
            self.embed = nn.Linear(128, EMBEDDING)
            self.classes = nn.Linear(EMBEDDING, classes)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            pooled = self.features(x).mean(dim=(2, 3))
            embedding = torch.relu(self.embed(pooled))
            logits = self.classes(embedding)
            return logits, nn.functional.normalize(embedding, dim=1)

    return GlyphNet()


def state_from_onnx(path: Path) -> dict:
    """A state dict for :func:`build_network` from an exported classifier, so a run can continue
    from the shipped weights when their ``.pt`` is gone. The export folds each batch norm into its
    convolution; the norms come back as identities (mean 0, variance 1 − eps, scale 1) that carry the
    folded bias, which gives the same outputs as long as they stay frozen (see :func:`train`)."""
    import onnx
    import torch
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(path)).graph
    except Exception as error:  # onnx raises protobuf's and its own types for damaged files
        raise UserError(f"cannot read the classifier {path} ({error}): pass one of our exports") from None
    weights = {item.name: torch.from_numpy(numpy_helper.to_array(item).copy()) for item in graph.initializer}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    if "inner.classes.bias" not in weights:
        raise UserError(f"{path} is not a classifier of this network (no inner.classes layer)")
    net = build_network(len(weights["inner.classes.bias"]))
    state = net.state_dict()
    stages = len(net.features)
    if len(convs) != stages or any(len(node.input) != 3 for node in convs):
        raise UserError(f"{path} is not a classifier of this network ({len(convs)} convolutions)")
    for stage, node in enumerate(convs):
        kernel, bias = weights[node.input[1]], weights[node.input[2]]
        norm = net.features[stage][1]
        state[f"features.{stage}.0.weight"] = kernel
        state[f"features.{stage}.1.weight"] = torch.ones_like(bias)
        state[f"features.{stage}.1.bias"] = bias
        state[f"features.{stage}.1.running_mean"] = torch.zeros_like(bias)
        state[f"features.{stage}.1.running_var"] = torch.full_like(bias, 1.0 - norm.eps)
    for name in ("embed.weight", "embed.bias", "classes.weight", "classes.bias"):
        state[name] = weights[f"inner.{name}"]
    return state


def _freeze_norms(net) -> None:
    """Batch norms keep their statistics while a fine-tune runs: the start's features stay the ones
    it was scored with (and norms rebuilt from an export, :func:`state_from_onnx`, stay exact)."""
    import torch

    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.eval()


#: Share of training crops passed through a compressed photo's artefacts (:func:`photo_artefacts`).
PHOTO_ARTEFACTS = 0.5
#: The side (px) a crop shrinks to before compression: an index of about 13 to 27 px in the photo.
PHOTO_SIDE = (20, CROP_PX)
PHOTO_QUALITY = (35, 90)  # JPEG quality, as phones, messengers and dataset exports save photos


def photo_artefacts(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop as a small index in a JPEG photo shows it: shrunk to photo scale, compressed there
    (8 px blocks, colour at half resolution) and grown back to ``CROP_PX``.

    Rendered scenes are drawn clean; the real photos a deck is learnt from or scored on are JPEGs,
    where a block is as big as a stroke of a small index and can close a 3's open side.

    >>> crop = np.full((CROP_PX, CROP_PX, 3), 200, np.uint8)
    >>> photo_artefacts(crop, np.random.default_rng(0)).shape
    (40, 40, 3)
    """
    import cv2

    side = int(rng.integers(PHOTO_SIDE[0], PHOTO_SIDE[1] + 1))
    small = cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA)
    quality = int(rng.integers(PHOTO_QUALITY[0], PHOTO_QUALITY[1] + 1))
    _, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    photo = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return cv2.resize(photo, (CROP_PX, CROP_PX), interpolation=cv2.INTER_LINEAR)


#: :func:`reshaped`'s ranges: the slant (x shift per unit of height) of italic and back-slanted
#: faces, the width of condensed and extended ones, and a stroke made a pixel bolder or lighter.
SLANT = 0.3
WIDTH = (0.75, 1.25)


def reshaped(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop as another typeface might print its glyph: slanted, narrower or wider, its strokes a
    pixel bolder or lighter (any of the three, each drawn at random).

    A deck we never saw prints its numerals in a face we never rendered; a glyph the classifier
    knows only in the faces it trained on is named by their particular widths and slants, which is
    how an unseen face's 1 with a long flag becomes a 7 and its 3 a 5.

    >>> crop = np.full((CROP_PX, CROP_PX, 3), 200, np.uint8)
    >>> reshaped(crop, np.random.default_rng(0)).shape
    (40, 40, 3)
    """
    import cv2

    centre = CROP_PX / 2
    slant, width = rng.uniform(-SLANT, SLANT), rng.uniform(*WIDTH)
    matrix = np.float32([[width, slant, centre - width * centre - slant * centre], [0, 1, 0]])
    crop = cv2.warpAffine(crop, matrix, (CROP_PX, CROP_PX), borderMode=cv2.BORDER_REPLICATE)
    stroke = int(rng.integers(3))  # 0: as drawn; 1, 2: the light strokes thinner or bolder
    if stroke:
        operation = cv2.erode if stroke == 1 else cv2.dilate
        crop = operation(crop, np.ones((2, 2), np.uint8))
    return crop


def augment(
    batch: np.ndarray,
    rng: np.random.Generator,
    photo_share: float = PHOTO_ARTEFACTS,
    turns: int = 4,
    shapes: float = 0.0,
) -> np.ndarray:
    """Any of ``turns`` even turns (4: any quarter turn, for a glyph; 2: none or a half turn, for the
    pair check's and the centre reader's patches, cut in a card's frame, which only a half turn
    leaves a card's) plus up to 12°, another typeface's shapes on ``shapes`` of the crops
    (:func:`reshaped`), a compressed photo's artefacts on ``photo_share`` of them (in their true
    colours, before the channels are shuffled), light/contrast/blur/noise jitter."""
    import cv2

    out = np.empty_like(batch)
    for i, crop in enumerate(batch):
        if shapes and rng.random() < shapes:
            crop = reshaped(crop, rng)
        crop = np.rot90(crop, int(rng.integers(turns)) * (4 // turns)).copy()
        if rng.random() < 0.5:
            angle = rng.uniform(-12, 12)
            matrix = cv2.getRotationMatrix2D((CROP_PX / 2, CROP_PX / 2), angle, rng.uniform(0.9, 1.1))
            crop = cv2.warpAffine(crop, matrix, (CROP_PX, CROP_PX), borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < photo_share:
            crop = photo_artefacts(crop, rng)
        crop = crop[:, :, rng.permutation(3)]
        if rng.random() < 0.3:
            crop = cv2.GaussianBlur(crop, (3, 3), rng.uniform(0.3, 1.2))
        out[i] = crop
    x = out.astype(np.float32) / 255.0
    gain = rng.uniform(0.6, 1.3, (len(x), 1, 1, 1)).astype(np.float32)
    bias = rng.uniform(-0.15, 0.15, (len(x), 1, 1, 1)).astype(np.float32)
    x = x * gain + bias + rng.normal(0, 0.02, x.shape).astype(np.float32)
    return np.clip(x, 0, 1).transpose(0, 3, 1, 2)


def train(
    crops: np.ndarray,
    labels: np.ndarray,
    minutes: float,
    batch: int = 128,
    threads: int = 2,
    seed: int = 0,
    log=print,
    init: Path | None = None,
    lr: float = 3e-3,
    checkpoint: Path | None = None,
    classes: int = len(GLYPH_CLASSES),
    device: str = "cpu",
    workers: int = 0,
    photo_share: float = PHOTO_ARTEFACTS,
    turns: int = 4,
    shapes: float = 0.0,
    epochs: int | None = None,
):
    """Train for about ``minutes`` (cosine learning rate over the epochs that fit); returns the net.
    ``epochs``: train exactly this many epochs instead, however long they take, so that a run shares
    the CPU with other jobs without becoming a shorter run (``minutes`` is then ignored).
    ``init``: a state dict of an earlier run, or an export, to continue from (with a new schedule
    and frozen batch norms); of a network with other classes, its features only.
    ``checkpoint``: where to save the state dict after every epoch, so a stopped run is not lost.
    ``workers``: processes that augment the batches (0: in this process, as on the 2-core CPU).
    ``photo_share``: the share of crops given a compressed photo's artefacts (:func:`photo_artefacts`).
    ``turns``: the turns a crop is seen at (:func:`augment`).
    ``shapes``: the share of crops drawn as another typeface might print them (:func:`reshaped`)."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    net = build_network(classes)
    if init is not None:
        start = state_from_onnx(init) if init.suffix == ".onnx" else torch.load(init, map_location="cpu")
        if start.get("classes.bias") is not None and start["classes.bias"].shape != net.classes.bias.shape:
            start = {k: v for k, v in start.items() if not k.startswith("classes.")}  # its features only
        missing, unexpected = net.load_state_dict(start, strict=False)
        if unexpected or any(not key.startswith("classes.") for key in missing):
            raise UserError(f"{init} is not a state of this network: start from one of our runs or exports")
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    # Background is the most common crop; weigh classes so that rare symbols count as much.
    counts = np.bincount(labels, minlength=classes).astype(np.float64)
    weights = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(counts)) ** 0.5, dtype=torch.float32)
    steps_per_epoch = math.ceil(len(crops) / batch)
    start = time.monotonic()
    step, total_steps = 0, None if epochs is None else epochs * steps_per_epoch
    epoch = 0
    net.to(device)
    weights = weights.to(device)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights, label_smoothing=0.05)
    while True:
        order = rng.permutation(len(crops))
        net.train()
        if init is not None:
            _freeze_norms(net)
        seen, correct = 0, 0
        batches = _AugmentedBatches(crops, labels, order, batch, (seed, epoch), photo_share, turns, shapes)
        loader = torch.utils.data.DataLoader(
            batches, batch_size=None, shuffle=False, num_workers=workers, persistent_workers=False
        )
        epoch_began, epoch_first_step = time.monotonic(), step
        for x, y in loader:
            if step == 10:
                warm = time.monotonic()  # the first steps also start the workers: not timed
            if total_steps is None and step == 60:  # time 50 steps, then fit the schedule to the budget
                per_step = (time.monotonic() - warm) / 50
                total_steps = max(steps_per_epoch, int((minutes * 60 - (warm - start)) / per_step))
                log(
                    f"{per_step * 1000:.0f} ms a step: {total_steps} steps "
                    f"({total_steps / steps_per_epoch:.1f} epochs)"
                )
            if total_steps is not None:
                if step >= total_steps:
                    return net.cpu()
                for group in optimiser.param_groups:
                    group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * step / total_steps))
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            logits, _ = net(x)
            loss = loss_fn(logits, y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            step += 1
            seen += len(y)
            correct += int((logits.argmax(1) == y).sum())
        epoch += 1
        log(f"epoch {epoch}: train accuracy {correct / seen:.3f}, {time.monotonic() - start:.0f} s")
        if total_steps is not None and epochs is None:
            # refit to the budget with a whole epoch's pace (workers' start too)
            per_step = (time.monotonic() - epoch_began) / max(1, step - epoch_first_step)
            left = minutes * 60 - (time.monotonic() - start)
            total_steps = max(step + 1, step + int(left / per_step))
        if checkpoint is not None:
            torch.save({k: v.cpu() for k, v in net.state_dict().items()}, checkpoint)


class _AugmentedBatches:
    """The epoch's batches, augmented where they are loaded: in worker processes on a lent GPU, so
    that the small network is not left waiting for the CPU. Each batch draws from its own seed (the
    epoch's and its number), whichever process makes it."""

    def __init__(
        self,
        crops: np.ndarray,
        labels: np.ndarray,
        order: np.ndarray,
        batch: int,
        seed: tuple[int, int],
        photo_share: float = PHOTO_ARTEFACTS,
        turns: int = 4,
        shapes: float = 0.0,
    ) -> None:
        self.crops, self.labels, self.seed, self.photo_share = crops, labels, seed, photo_share
        self.turns, self.shapes = turns, shapes
        self.parts = [order[first : first + batch] for first in range(0, len(order), batch)]

    def __len__(self) -> int:
        return len(self.parts)

    def __getitem__(self, number: int):
        import torch

        index = self.parts[number]
        rng = np.random.default_rng([*self.seed, number])
        crops = augment(self.crops[index], rng, self.photo_share, self.turns, self.shapes)
        return torch.from_numpy(crops), torch.from_numpy(self.labels[index])


def export(net, out: Path, info: dict) -> None:
    """ONNX with outputs ``probabilities`` (softmax) and ``embedding``, any batch size."""
    import torch

    class Exported(torch.nn.Module):
        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x):
            logits, embedding = self.inner(x)
            return torch.softmax(logits, dim=1), embedding

    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        Exported(net),
        torch.zeros(1, 3, CROP_PX, CROP_PX),
        str(out),
        input_names=["crops"],
        output_names=["probabilities", "embedding"],
        dynamic_axes={"crops": {0: "n"}, "probabilities": {0: "n"}, "embedding": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    out.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")


def held_out_accuracy(net, crops: np.ndarray, labels: np.ndarray, background: int = BACKGROUND) -> float:
    """Accuracy on held-out crops; also printed for background crops and the rest apart (the
    corner check's two errors: a clock kept, a card's corner dropped)."""
    import torch

    net.eval()
    with torch.no_grad():
        x = torch.from_numpy(crops.astype(np.float32).transpose(0, 3, 1, 2) / 255.0)
        predicted = np.concatenate([net(x[i : i + 512])[0].argmax(1).numpy() for i in range(0, len(x), 512)])
    right = predicted == labels
    other = labels != background
    kept, rest = right[~other], right[other]
    print(f"held out: background {kept.mean():.3f} of {len(kept)}, others {rest.mean():.3f} of {len(rest)}")
    return float(right.mean())


def _start_decks(init: Path) -> list[str]:
    """The real decks the start trained on: an export's card (its .json), or a .pt's record."""
    if init.suffix != ".onnx":
        return checkpoint_decks(init)
    card = init.with_suffix(".json")
    try:
        return list(json.loads(card.read_text(encoding="utf-8"))["decks_seen"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UserError(f"{card} does not say which real decks {init} trained on ({error})") from None


def _check_device(device: str) -> None:
    """A torch device this machine has: a one-line error for a typo or a GPU that is not there."""
    import torch

    try:
        kind = torch.device(device).type
    except (RuntimeError, ValueError):
        raise UserError(f"--device {device} is no torch device: use cpu or cuda") from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise UserError(f"--device {device}: this machine has no CUDA GPU: use --device cpu")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.glyph_training", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "crops", type=Path, nargs="+", help=".npz files from python -m referee.lab.glyph_data"
    )
    parser.add_argument(
        "--init", type=Path, help="continue from an earlier run's state dict (.pt) or an exported .onnx"
    )
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--out", type=Path, required=True, help="ONNX file to write")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=float, default=20.0, help="train about this long (default 20)")
    length.add_argument(
        "--epochs",
        type=int,
        help="train exactly this many epochs, however long: a shared CPU slows the run, not shortens it",
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="torch device: cpu (default) or cuda on a lent GPU")
    parser.add_argument("--workers", type=int, default=0, help="processes that augment batches (0: none)")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trained-on", default="", help="one line on the data, for the model's .json")
    parser.add_argument(
        "--photo-artefacts",
        type=float,
        default=PHOTO_ARTEFACTS,
        help=f"share of crops shrunk and JPEG-compressed as in a photo (default {PHOTO_ARTEFACTS}; 0: none)",
    )
    parser.add_argument(
        "--shapes",
        type=float,
        default=0.0,
        help="share of crops slanted, narrowed or widened and made bolder or lighter, as another typeface "
        "prints its glyphs (default 0: none)",
    )
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument(
        "--corners", action="store_true", help="train the card-corner check (index or not) instead"
    )
    kind.add_argument(
        "--pairs",
        action="store_true",
        help="train the pair check (one card's two corners, or two cards') on referee.lab.pair_data patches",
    )
    kind.add_argument(
        "--centres",
        action="store_true",
        help="train the centre reader (a paired card's big middle symbol) on referee.lab.centre_data patches",
    )
    args = parser.parse_args(argv)
    try:
        if not 0.0 <= args.photo_artefacts <= 1.0:
            raise UserError(f"--photo-artefacts is a share between 0 and 1 (got {args.photo_artefacts})")
        if args.epochs is not None and args.epochs < 1:
            raise UserError(f"--epochs is a whole number of at least 1 (got {args.epochs})")
        if not 0.0 <= args.shapes <= 1.0:
            raise UserError(f"--shapes is a share between 0 and 1 (got {args.shapes})")
        parts = []
        contexts = set()
        decks = set(_start_decks(args.init)) if args.init is not None else set()
        for path in args.crops:
            if not path.is_file():
                raise UserError(f"{path} not found: make it with python -m referee.lab.glyph_data")
            data = np.load(path)
            if "decks_seen" not in data:
                raise UserError(f"{path} does not record which real decks it holds: make it again")
            parts.append((data["crops"], data["labels"]))
            contexts.add(float(data["context"]) if "context" in data else CONTEXT)
            decks |= {str(deck) for deck in data["decks_seen"]}
        if len(contexts) > 1:
            raise UserError(f"the crop sets were cut with different contexts {sorted(contexts)}: use one")
        crops = np.concatenate([c for c, _ in parts])
        labels = np.concatenate([label for _, label in parts])
        if args.corners:  # is there a card around the box: 0 an index, 1 anything else
            labels = (labels == BACKGROUND).astype(np.int64)
        _check_device(args.device)
    except (UserError, OSError, KeyError, ValueError) as error:
        print(f"glyph_training: error: {error}", file=sys.stderr)
        return 2
    # Each network's answers, the one that is "nothing of interest" (held-out figures count it apart),
    # and what its card records of how its patches are cut (in a card's frame: upright or half-turned).
    kind = "corners" if args.corners else "pairs" if args.pairs else "centres" if args.centres else "glyphs"
    names, background_name, frame = {
        "glyphs": (GLYPH_CLASSES, "background", None),
        "corners": (CORNER_CLASSES, "background", None),
        "pairs": (PAIR_CLASSES, "two cards", {"index_at": list(INDEX_AT), "margin": PAIR_MARGIN}),
        "centres": (CENTRE_CLASSES, NO_CENTRE, {"index_at": list(INDEX_AT), "region": list(CENTRE_REGION)}),
    }[kind]
    background = names.index(background_name)
    rng = np.random.default_rng(1)
    order = rng.permutation(len(crops))
    held = order[: min(3000, len(order) // 20)]
    used = order[len(held) :]
    print(
        f"{len(used)} training crops, {len(held)} held out; "
        f"background share {np.mean(labels == background):.2f}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    try:
        net = train(
            crops[used],
            labels[used],
            args.minutes,
            batch=args.batch,
            threads=args.threads,
            seed=args.seed,
            init=args.init,
            lr=args.lr,
            checkpoint=args.out.with_suffix(".epoch.pt"),
            classes=len(names),
            device=args.device,
            workers=args.workers,
            photo_share=args.photo_artefacts,
            turns=4 if frame is None else 2,
            shapes=args.shapes,
            epochs=args.epochs,
        )
    except UserError as error:  # a start that is not of this network
        print(f"glyph_training: error: {error}", file=sys.stderr)
        return 2
    import torch

    torch.save(net.state_dict(), args.out.with_suffix(".pt"))  # to continue from (--init)
    write_record(args.out.with_suffix(".decks.json"), decks)
    accuracy = held_out_accuracy(net, crops[held], labels[held], background)
    print(f"held-out crop accuracy {accuracy:.3f}")
    export(
        net,
        args.out,
        {
            "classes": list(names),
            "crop_px": CROP_PX,
            **({"context": contexts.pop()} if frame is None else {}),
            "version": date.today().isoformat(),
            "trained_on": args.trained_on,
            "held_out_crop_accuracy": round(accuracy, 4),
            "photo_artefacts": args.photo_artefacts,
            **({"shapes": args.shapes} if args.shapes else {}),
            **({"epochs": args.epochs} if args.epochs else {}),
            "decks_seen": sorted(decks),
            **(frame or {}),
        },
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
