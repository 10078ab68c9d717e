"""The table around the rules core: config, phrase book, journal (and, later, the referee app)."""
