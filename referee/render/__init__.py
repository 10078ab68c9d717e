"""Procedural UNO cards and table scenes: the detector's training data.

Modules (import what you need; nothing here pulls in gpiozero, pyttsx3 or onnxruntime):

* :mod:`referee.render.cards` — ``render_card(name, design, colourblind, height, rng) -> CardSprite``
  (BGR, alpha, labelled regions in sprite pixels), ``render_back``, ``ALL_CARD_NAMES``;
* :mod:`referee.render.compose` — ``place(canvas, sprite, homography)``, ``pose_homography`` and
  ``Scene`` (owner map, visibility, YOLO rows, per-card metadata);
* :mod:`referee.render.scenes` — ``render_scene(rng, size, kind, faces)`` (discard / table / fan /
  negative; ``faces`` deals a photographed deck's faces instead, or ``Retype`` draws them again in
  typefaces no network trains on, both for held-out evaluation sets);
* :mod:`referee.render.surfaces`, :mod:`referee.render.objects` — tables, light, hands, distractors;
* :mod:`referee.render.dataset` — the ``uno-referee dataset`` writer (also ``python -m``);
* :mod:`referee.render.preview` — contact sheets with the labels drawn.
"""
