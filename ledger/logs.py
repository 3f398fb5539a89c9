"""Structured logging: one key-value line per command (JSON in production).

Every line, at every level, passes :func:`scrub` before it is rendered: a token's secret is cut
to its public id (``ltk_<id>_***``), values under keys that hold cards (``cards``, ``hole``,
``front`` ...) are replaced, lone surrogates become U+FFFD, and an exception is written as its
class and where it was raised (:func:`one_line_exception`): never a traceback, whose local
variables would print the events, cards and tokens of the request that failed.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO, cast

from ledger.domain.bounds import safe_text

if TYPE_CHECKING:  # imported on the first line written: most commands write none
    import structlog

SECRET = re.compile(r"(ltk_[0-9a-f]{12}_)[A-Za-z0-9_-]+")
"""A bearer token; the id part is public, the rest is the secret."""
CARD_KEYS = frozenset({"cards", "card", "hole", "hole_cards", "down", "front", "middle", "back",
                       "deck", "sealed_deck", "dealt", "hand_cards", "board"})
"""Keys whose values are cards: never written to a log."""
HIDDEN = "[hidden]"
_OWN_CODE = ("/ledger/", "/projections/")


def scrub(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]
          ) -> MutableMapping[str, Any]:
    """The structlog processor that keeps secrets and cards out of every line."""
    return {key: HIDDEN if key in CARD_KEYS else _clean(value)
            for key, value in event_dict.items()}


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return SECRET.sub(r"\1***", safe_text(value))
    if isinstance(value, dict):
        return {k: HIDDEN if k in CARD_KEYS else _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def one_line_exception(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]
                       ) -> MutableMapping[str, Any]:
    """``exc_info`` as ``error_class`` (the class) and ``at`` (the innermost frames of the
    ledger's own code, ``file:line``): no message, no locals, no traceback."""
    exc_info = event_dict.pop("exc_info", None)
    if exc_info is None or exc_info is False:
        return event_dict
    if exc_info is True:
        exc_info = sys.exc_info()
    if isinstance(exc_info, BaseException):
        exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
    if isinstance(exc_info, tuple) and exc_info[0] is not None:
        event_dict.setdefault("error_class", exc_info[0].__name__)
        where = frames(exc_info[2])
        if where:
            event_dict.setdefault("at", where)
    return event_dict


def frames(tb: TracebackType | None, keep: int = 3) -> list[str]:
    """The last ``keep`` frames of the ledger's own code in ``tb``, as ``path:line``."""
    found: list[str] = []
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        for marker in _OWN_CODE:
            if marker in path:
                found.append(f"{marker.strip('/')}/{path.split(marker, 1)[1]}:{tb.tb_lineno}")
                break
        tb = tb.tb_next
    return found[-keep:]


class _StandardError:
    """structlog's logger factory writing to ``sys.stderr`` as it is when a line is written
    (a test runner swaps it for a stream of its own, closed when the command is done)."""

    def __call__(self, *args: Any) -> structlog.PrintLogger:
        import structlog

        return structlog.PrintLogger(sys.stderr)


_pending: list[tuple[str, str, TextIO | None]] = []
"""The configuration asked for before structlog was imported, applied when it is."""


def configure(level: str = "WARNING", fmt: str = "console", file: TextIO | None = None) -> None:
    """Route structlog to ``file`` (the standard error of the moment) with the chosen level
    and renderer.

    Called again (each CLI command run in-process configures logging, so does ``create_app``
    when nothing has), it applies to every logger, those already used included: loggers are
    not cached on first use, since a cached one keeps the level, processors and stream of the
    configuration in force then. That costs a few microseconds a line.

    structlog itself (and what it imports: asyncio, rich's tracebacks) is imported when a first
    line is written at or above the level (:class:`_Logger`), or when something else has
    imported it; until then the configuration waits in :data:`_pending`."""
    _pending[:] = [(level, fmt, file)]
    if "structlog" in sys.modules:
        _structlog()
    elif not any(isinstance(f, _WhenImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenImported())


class _WhenImported:
    """Applies the configuration waiting in :data:`_pending` as soon as structlog is imported,
    by whatever imports it (a line written, the HTTP API, a test capturing lines): structlog is
    never used with its defaults, which print tracebacks' locals, once :func:`configure` ran."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "structlog":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        loader = spec.loader if spec is not None else None
        if loader is None:
            return spec
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            _apply_pending(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _level(level: str) -> int:
    numeric = logging.getLevelName(level.upper())
    return numeric if isinstance(numeric, int) else logging.WARNING


def _structlog() -> Any:
    """structlog, imported, with the configuration asked for applied."""
    import structlog

    _apply_pending(structlog)
    return structlog


def _apply_pending(structlog: Any) -> None:
    """Apply the configuration waiting, if another thread has not just taken it (``pop`` is
    atomic; testing first and popping after is not)."""
    try:
        waiting = _pending.pop()
    except IndexError:
        return
    _apply(structlog, *waiting)


def _apply(structlog: Any, level: str, fmt: str, file: TextIO | None) -> None:
    numeric = _level(level)
    renderer = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=(file or sys.stderr).isatty(),
                                           exception_formatter=structlog.dev.plain_traceback)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            one_line_exception,
            scrub,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=(_StandardError() if file is None
                        else structlog.PrintLoggerFactory(file=file)),
        cache_logger_on_first_use=False,
    )


_METHOD_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
                  "warn": logging.WARNING, "error": logging.ERROR, "exception": logging.ERROR,
                  "critical": logging.CRITICAL, "fatal": logging.CRITICAL}


def _unwritten(*_args: Any, **_kwargs: Any) -> None:
    return None


class _Logger:
    """structlog's logger named ``name``, looked up at each call (so that it follows the
    configuration in force, :func:`configure`); structlog is imported on the first line at or
    above the configured level (a line below it, before then, is dropped as structlog would)."""

    __slots__ = ("_name", "_proxy")

    def __init__(self, name: str) -> None:
        self._name = name
        self._proxy: Any = None

    def __getattr__(self, method: str) -> Any:
        proxy = self._proxy
        if proxy is None:
            if "structlog" not in sys.modules and _pending and \
                    _METHOD_LEVELS.get(method, logging.CRITICAL) < _level(_pending[-1][0]):
                return _unwritten
            # structlog's lazy proxy: it looks the configuration up at each call
            proxy = self._proxy = _structlog().get_logger(self._name)
        return getattr(proxy, method)


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    return cast("structlog.typing.FilteringBoundLogger", _Logger(name))
