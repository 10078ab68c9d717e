"""UNO table referee: camera → card recognition → rules core → buttons and voice."""

__version__ = "0.1.0"
