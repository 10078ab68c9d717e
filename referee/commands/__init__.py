"""Sub-commands of ``uno-referee``; each module exposes ``register(subparsers)``.

A command module keeps its heavy imports (OpenCV, onnxruntime, ultralytics) inside its handler so
that ``uno-referee --help`` and the rules commands start instantly on a Raspberry Pi.
"""
