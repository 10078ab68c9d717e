"""The developer's workbench beside the runtime: nothing here runs at a real table.

The Pi runs ``referee/rules``, ``referee/vision``, ``referee/table``, ``hardware`` and
``calibration``; none of them imports this package (``tests/test_architecture.py``). Here:

* :mod:`~referee.lab.video` — a simulated table filmed from above (``TableVideo``) with its truth;
* :mod:`~referee.lab.demo` — ``uno-referee demo``: one simulated game refereed end to end;
* :mod:`~referee.lab.table_bench` — ``uno-referee bench table``: simulated games through the pipeline;
* :mod:`~referee.lab.rules_bench` — ``uno-referee bench rules``: the rules core against the simulator;
* :mod:`~referee.lab.vision_bench` — ``uno-referee bench vision``: detector latency;
* :mod:`~referee.lab.evaluate` — ``uno-referee eval``: scores on labelled pictures, per deck;
* :mod:`~referee.lab.deck_split`, :mod:`~referee.lab.standin_deck` — decks to measure ``deck learn`` on: a
  real deck split into photos to learn from and to score, a rendered print photographed twice;
* :mod:`~referee.lab.training`, :mod:`~referee.lab.quantize` — the offline training recipe, int8 export;
* :mod:`~referee.lab.lease` and ``lease_train.sh`` — the same training in one short call on a lent GPU.
* :mod:`~referee.lab.glyph_data`, :mod:`~referee.lab.glyph_training` and ``lease_glyphs.sh`` — the glyph
  classifier and corner check (second stage), on the CPU or in one call on a lent GPU.

The card renderer that makes the training data is :mod:`referee.render`, also beside the runtime.
"""
