"""``ledger serve``: the HTTP API (FastAPI under uvicorn)."""

from __future__ import annotations

import contextlib
import socket

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, handle_errors, settings_for
from ledger.domain.errors import InvalidInput, LedgerError


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port (0: any free port)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Serve the HTTP API until interrupted. Every route but /health and /ready needs a bearer
    token: make the first one with `ledger tokens create --role admin`.

    Once it accepts connections it prints one line with its address, e.g. `serving on
    http://127.0.0.1:8000 (Ctrl-C to stop)` (with `--port 0`, the port it was given)."""
    import uvicorn

    from ledger.api import create_app

    settings = settings_for(database_url)
    with handle_errors(settings):
        sock = listen(host, port)
    try:
        with handle_errors(settings):
            api = create_app(settings)
        address = url(host, sock.getsockname()[1])

        class Server(uvicorn.Server):
            """uvicorn's server, saying where it listens once it accepts connections."""

            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                await super().startup(sockets=sockets)
                if self.started:
                    typer.echo(f"serving on {address} (Ctrl-C to stop)")

        from projections.audit.checkpoint import Checkpointer

        checkpoints = Checkpointer(api.state.ledger, settings)  # every N minutes, signed
        checkpoints.start()
        config = uvicorn.Config(api, log_level=settings.log_level.lower(), access_log=False)
        server = Server(config)
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the Ctrl-C it ends on
            server.run(sockets=[sock])
        checkpoints.stop()
    finally:
        sock.close()
    if not server.started:
        raise typer.Exit(3)  # the application did not start (uvicorn logged why)


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (port 0: one the system picks), ready for uvicorn."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise InvalidInput("invalid_host", f"cannot listen on {host!r}: {exc.strerror}",
                           host=host) from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.set_inheritable(True)
    except OSError as exc:
        sock.close()
        raise LedgerError("cannot_listen", f"cannot listen on {host}:{port}: "
                          f"{exc.strerror or exc}", host=host, port=port) from None
    return sock


def url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
