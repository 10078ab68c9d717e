"""Card recognition: detector backends, the card reader, evaluation and benchmarks.

The pieces, camera-side first (nothing here imports torch):

* :mod:`~referee.vision.backends` — ``load_detector(path, backend)`` → a
  :class:`~referee.vision.backends.Detector` whose ``detect(image_bgr)`` returns
  :class:`~referee.vision.detection.Detection` boxes in image pixels (onnxruntime, opencv-dnn,
  ultralytics where installed); :mod:`~referee.vision.detection` holds the shared letterbox,
  YOLO11 decoding and class-aware NMS.
* :mod:`~referee.vision.colour` — :class:`~referee.vision.colour.ColourModel`, the Lab colour model
  that calibration re-centres with ``ColourModel.from_samples`` and stores as JSON.
* :mod:`~referee.vision.glyphs`, :mod:`~referee.vision.corners`, :mod:`~referee.vision.pairs`,
  :mod:`~referee.vision.centres` — the small second-look networks: the glyph classifier (each box's
  symbol, and the space a user's deck is learnt in, :mod:`~referee.vision.deck`), the card-corner
  check (is a card around the box?), the pair check (are two corners one card's?) and the centre
  reader (what is the big symbol in a paired card's middle?).
* :mod:`~referee.vision.reader` — :class:`~referee.vision.reader.CardReader`: detections → physical
  :class:`~referee.vision.reader.Card` objects (``red-7``, ``wild-draw4`` …), tiling large pictures
  through :mod:`~referee.vision.tiling`.
* :mod:`~referee.vision.scripted` — tiny ONNX models with a chosen output, for exact tests of
  everything downstream of the network.
"""
