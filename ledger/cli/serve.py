"""``ledger serve``: the HTTP API (FastAPI under uvicorn)."""

from __future__ import annotations

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, handle_errors, settings_for


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port (0: any free port)."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Serve the HTTP API until interrupted. Every route but /health needs a bearer token:
    make the first one with `ledger tokens create --role admin`."""
    import uvicorn

    from ledger.api import create_app

    settings = settings_for(database_url)
    with handle_errors():
        api = create_app(settings)
    uvicorn.run(api, host=host, port=port, log_level=settings.log_level.lower(),
                access_log=False)
