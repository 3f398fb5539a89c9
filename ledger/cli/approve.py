"""``ledger approve`` and ``ledger proposals``: what waits for approval, and signing it.

``ledger approve PROPOSAL --key FILE`` prints exactly what the key signs (the proposal's
canonical payload), signs it as the key's principal and records the approval; the last
approval needed carries the change out. A refused approval prints ``error [code] message`` and
exits with status 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, minute
from ledger.cli.keyfiles import PASSPHRASE_FILE, open_key

proposals_app = typer.Typer(help="Proposals: changes held until their approvers have signed "
                            "them (ledger approve).", no_args_is_help=True)
app.add_typer(proposals_app, name="proposals")


@app.command("approve")
def approve(
    proposal_id: str = typer.Argument(..., metavar="PROPOSAL", help="The proposal's id."),
    key: Path = typer.Option(..., "--key", metavar="FILE",  # noqa: B008
                             help="Your key file: you approve as its principal."),
    passphrase_file: Path | None = PASSPHRASE_FILE,
    as_json: bool = typer.Option(False, "--json", help="Print the proposal as JSON."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Approve PROPOSAL with your own key: shows what you sign, signs it, records it; the last
    approval it needs carries the change out."""
    from ledger.app.approvals import Approvals

    with ledger_app(database_url) as ledger:
        signer = open_key(key, passphrase_file)
        approvals = Approvals(ledger)
        shown = approvals.proposals.get(proposal_id)
        if not as_json:
            typer.echo(f"{signer.principal} signs {shown.proposal_id}:")
            typer.echo(f"  {shown.text}")
        found = approvals.sign(proposal_id, signer, via="cli")
    if as_json:
        typer.echo(json.dumps(found.as_dict()))
        return
    typer.echo(_status(found.as_dict()))


def _status(found: dict[str, Any]) -> str:
    if found["status"] == "done":
        return f"{found['proposal_id']} approved and carried out: {json.dumps(found['result'])}"
    return f"{found['proposal_id']} approved; it still needs {', '.join(found['needs'])}"


@proposals_app.command("list")
def list_proposals(
    status: str | None = typer.Option("pending", "--status",
                                      help="pending, done, failed or expired ('' for all)."),
    table: str | None = typer.Option(None, "--table", help="One table's (or `register`)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per proposal."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """List proposals (pending ones by default), newest first."""
    from ledger.app.approvals import Approvals

    with ledger_app(database_url) as ledger:
        found = Approvals(ledger).proposals.all(status=status or None, table=table)
    for proposal in found:
        data = proposal.as_dict()
        if as_json:
            typer.echo(json.dumps(data))
            continue
        needs = f" needs {', '.join(data['needs'])}" if data["needs"] else ""
        typer.echo(f"{proposal.proposal_id} {minute(proposal.created_at)} {proposal.status:<8}"
                   f" {proposal.table} {proposal.kind} by {proposal.proposer.get('id')}{needs}")


@proposals_app.command("show")
def show(
    proposal_id: str = typer.Argument(..., metavar="PROPOSAL", help="The proposal's id."),
    as_json: bool = typer.Option(False, "--json", help="Print the proposal as JSON."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """A proposal: exactly what its approvers sign, the message their keys sign, who signed."""
    from ledger.app.approvals import Approvals

    with ledger_app(database_url) as ledger:
        found = Approvals(ledger).proposals.get(proposal_id).as_dict()
    if as_json:
        typer.echo(json.dumps(found))
        return
    for name in ("proposal_id", "status", "kind", "table", "expires_at", "needs", "payload",
                 "message"):
        value = found[name]
        typer.echo(f"{name + ':':<13}{', '.join(value) if isinstance(value, list) else value}")
    for signed in found["approvals"]:
        typer.echo(f"{'signed:':<13}{signed['principal']} (key {signed['key_id']}, "
                   f"{signed['via']}, {signed['at']})")
    if found["result"]:
        typer.echo(f"{'result:':<13}{json.dumps(found['result'])}")
