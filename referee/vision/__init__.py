"""Card recognition: detector backends, the card reader, evaluation and benchmarks."""
