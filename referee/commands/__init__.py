"""Sub-commands of ``uno-referee``; each module exposes ``register(subparsers)``.

A command module keeps its heavy imports (OpenCV, onnxruntime, ultralytics) inside its handler so
that ``uno-referee --help`` and the rules commands start instantly on a Raspberry Pi, and work on
one whose OpenCV cannot load (a Pi OS Lite lacks its X libraries). A command whose options are
defined by a heavy module registers with :func:`add_parser_on_demand`: that module is imported
only when the command is chosen.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

from referee.dependencies import install_hint

_MODULE = "on_demand_module"  # the parser default naming the module that completes a sub-parser
_AFTER = "on_demand_after"  # the parser default naming a function "module:name" run after the handler


class OnDemandParsers(argparse._SubParsersAction):
    """Sub-parsers completed when chosen: their module's ``add_arguments(parser)`` and ``run``."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, *rest
    ) -> None:
        chosen = self._name_parser_map.get(values[0])
        module_name = chosen.get_default(_MODULE) if chosen is not None else None
        if module_name and chosen.get_default("handler") is None:
            try:
                module = importlib.import_module(module_name)
            except ImportError as error:
                hint = install_hint(error)
                if hint is None:
                    raise
                chosen.exit(2, f"uno-referee: error: {hint}\n")
            module.add_arguments(chosen)
            chosen.set_defaults(handler=_followed_by(module.run, chosen.get_default(_AFTER)))
        super().__call__(parser, namespace, values, *rest)


def _followed_by(run: Callable[[argparse.Namespace], int], after: str | None) -> Callable[..., int]:
    """``run``, then (when it did not fail) the function ``after`` names ("module:function")."""
    if not after:
        return run
    module_name, _, function = after.partition(":")

    def handler(args: argparse.Namespace) -> int:
        status = run(args)
        getattr(importlib.import_module(module_name), function)(args)
        return status

    return handler


def add_parser_on_demand(
    subparsers: argparse._SubParsersAction,
    name: str,
    module_name: str,
    *,
    after: str | None = None,
    **kwargs: Any,
) -> argparse.ArgumentParser | None:
    """A sub-parser whose options and handler come from ``module_name`` once it is chosen; None
    (nothing offered) when that module is not part of this installation. ``after``
    ("module:function") runs after the handler has succeeded, with the same arguments."""
    if importlib.util.find_spec(module_name) is None:
        return None
    parser = subparsers.add_parser(name, **kwargs)
    parser.set_defaults(**{_MODULE: module_name, _AFTER: after})
    return parser
