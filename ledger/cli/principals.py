"""``ledger principals``: the register of the people whose signatures approve and sign.

Every change of the register is signed by an admin principal (``--admin-key``: at once; without
it, a proposal an admin approves with ``ledger approve``); the first admin is the register's
root of trust (``bootstrap``). Each new principal's private key is written to a file only its
owner may read (``--key-out``), or the person makes their own pair (``keygen``) and hands over
the public key (``--public-key``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ledger.cli import app
from ledger.cli.common import DATABASE_OPTION, ledger_app, minute, out_console
from ledger.cli.keyfiles import PASSPHRASE_FILE, cli_principal, new_key, open_key

principals_app = typer.Typer(
    help="Principals: the floor staff, supervisors and admins whose signatures approve "
    "configuration changes, voids and corrections and sign for the tray; each holds a key of "
    "their own, and every change of the register is signed by an admin principal.",
    no_args_is_help=True)
app.add_typer(principals_app, name="principals")

KEY_OUT = typer.Option(None, "--key-out", metavar="FILE", help="Where the new principal's "
                       "private key is written (mode 600; give it to them). Or --public-key.")
PUBLIC_KEY = typer.Option(None, "--public-key", metavar="KEY", help="The principal's own public "
                          "key (ed25519:<hex>, from `ledger principals keygen`).")
ADMIN_KEY = typer.Option(None, "--admin-key", metavar="FILE", help="An admin principal's key "
                         "file: the change is signed and made at once. Without it the change is "
                         "proposed for an admin to approve (`ledger approve`).")
ADMIN_PASSPHRASE = typer.Option(None, "--admin-passphrase-file", metavar="FILE",
                                help="The admin key's passphrase (first line).")
ASK = typer.Option(False, "--ask-passphrase", help="Protect the new key file with a "
                   "passphrase typed on the terminal (twice).")
AS_JSON = typer.Option(False, "--json", help="Print the result as JSON.")


@principals_app.command("bootstrap")
def bootstrap(
    principal_id: str = typer.Argument(..., metavar="ID", help="The first admin's id."),
    name: str = typer.Option(..., "--name", help="Their name."),
    key_out: Path = typer.Option(..., "--key-out", metavar="FILE",  # noqa: B008
                                 help="Where their private key is written (mode 600)."),
    passphrase_file: Path | None = PASSPHRASE_FILE,
    ask: bool = ASK,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Create the register's root of trust: its first admin principal, with a new key (once per
    register; refused afterwards). Set LEDGER_REGISTER_ROOT to the key id printed, where the
    service and the auditors run, so a register with another root is refused."""
    from ledger.app.approvals import Approvals

    with ledger_app(database_url) as ledger:
        key = new_key(principal_id, key_out, passphrase_file, ask)
        try:
            row = Approvals(ledger).bootstrap(principal_id, name, key, actor=ledger.actor)
        except BaseException:
            key_out.unlink(missing_ok=True)
            raise
    _done({"register_version": row.seq, "principal_id": principal_id, "role": "admin",
           "key_id": key.key_id, "public_key": key.public, "key_file": str(key_out)}, as_json,
          f"root admin {principal_id} (register version {row.seq}); key id {key.key_id}, "
          f"private key in {key_out} (mode 600)\nset LEDGER_REGISTER_ROOT={key.key_id} where "
          "the service and the auditors run")


@principals_app.command("keygen")
def keygen(
    principal_id: str = typer.Argument(..., metavar="ID", help="Your principal id."),
    out: Path = typer.Option(..., "--out", metavar="FILE",  # noqa: B008
                             help="Where your private key is written (mode 600)."),
    passphrase_file: Path | None = PASSPHRASE_FILE,
    ask: bool = ASK,
    as_json: bool = AS_JSON,
) -> None:
    """Make your own key pair: the private key stays in FILE; hand the public key printed to an
    admin (`ledger principals add ... --public-key` or POST /principals)."""
    from ledger.cli.common import handle_errors

    with handle_errors():
        key = new_key(principal_id, out, passphrase_file, ask)
    _done({"principal_id": principal_id, "public_key": key.public, "key_id": key.key_id,
           "key_file": str(out)}, as_json, f"public key: {key.public}\nkey id: {key.key_id}")


@principals_app.command("add")
def add(
    principal_id: str = typer.Argument(..., metavar="ID", help="The id commands name (e.g. "
                                       "floor-ben): letters, digits, _.@-, at most 64."),
    name: str = typer.Option(..., "--name", help="The person's name."),
    role: str = typer.Option(..., "--role", metavar="[floor|supervisor|admin|dealer]",
                             help="floor signs for the tray; supervisor and admin also approve "
                             "configuration changes, voids and corrections; dealer, floor and "
                             "supervisor sign in to deal at a table (DLR-1)."),
    key_out: Path | None = KEY_OUT,
    public_key: str | None = PUBLIC_KEY,
    passphrase_file: Path | None = PASSPHRASE_FILE,
    ask: bool = ASK,
    admin_key: Path | None = ADMIN_KEY,
    admin_passphrase_file: Path | None = ADMIN_PASSPHRASE,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Register a principal with their own key, signed by an admin principal."""
    from ledger.domain.errors import InvalidInput

    if (key_out is None) == (public_key is None):
        raise InvalidInput("invalid_argument", "give --key-out FILE (a new key pair) or "
                           "--public-key KEY (the person's own)")
    with ledger_app(database_url) as ledger:
        admin = open_key(admin_key, admin_passphrase_file) if admin_key else None
        key = new_key(principal_id, key_out, passphrase_file, ask) if key_out else None
        public = key.public if key is not None else str(public_key).strip()
        change = {"id": principal_id, "name": name, "role": role, "public_key": public}
        try:
            found = _change(ledger, "add", change, admin)
        except BaseException:
            if key_out is not None and key is not None:
                key_out.unlink(missing_ok=True)
            raise
    if key_out is not None:
        found["key_file"] = str(key_out)
    _done(found, as_json, _said(found, f"principal {principal_id}: {name}, {role}"
                                + (f"; private key in {key_out} (mode 600)" if key_out else "")))


@principals_app.command("role")
def role(
    principal_id: str = typer.Argument(..., metavar="ID", help="The principal's id."),
    new_role: str = typer.Argument(..., metavar="ROLE", help="floor, supervisor or admin."),
    admin_key: Path | None = ADMIN_KEY,
    admin_passphrase_file: Path | None = ADMIN_PASSPHRASE,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Change a principal's role, signed by an admin principal."""
    with ledger_app(database_url) as ledger:
        admin = open_key(admin_key, admin_passphrase_file) if admin_key else None
        found = _change(ledger, "role", {"id": principal_id, "role": new_role}, admin)
    _done(found, as_json, _said(found, f"principal {principal_id} is {new_role} now"))


@principals_app.command("rotate")
def rotate(
    principal_id: str = typer.Argument(..., metavar="ID", help="The principal's id."),
    key_out: Path | None = KEY_OUT,
    public_key: str | None = PUBLIC_KEY,
    passphrase_file: Path | None = PASSPHRASE_FILE,
    ask: bool = ASK,
    admin_key: Path | None = ADMIN_KEY,
    admin_passphrase_file: Path | None = ADMIN_PASSPHRASE,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Give a principal a new key (a lost or exposed key, or one registered before signatures):
    signatures made with the old key stay valid for what they signed before."""
    from ledger.domain.errors import InvalidInput

    if (key_out is None) == (public_key is None):
        raise InvalidInput("invalid_argument", "give --key-out FILE or --public-key KEY")
    with ledger_app(database_url) as ledger:
        admin = open_key(admin_key, admin_passphrase_file) if admin_key else None
        key = new_key(principal_id, key_out, passphrase_file, ask) if key_out else None
        public = key.public if key is not None else str(public_key).strip()
        found = _change(ledger, "key", {"id": principal_id, "public_key": public}, admin)
    _done(found, as_json, _said(found, f"principal {principal_id} has a new key"))


@principals_app.command("revoke")
def revoke(
    principal_id: str = typer.Argument(..., metavar="ID", help="The principal's id."),
    admin_key: Path | None = ADMIN_KEY,
    admin_passphrase_file: Path | None = ADMIN_PASSPHRASE,
    as_json: bool = AS_JSON,
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """Revoke a principal: their signature approves and signs nothing from now on (what they
    approved before stays valid)."""
    with ledger_app(database_url) as ledger:
        admin = open_key(admin_key, admin_passphrase_file) if admin_key else None
        found = _change(ledger, "revoke", {"id": principal_id}, admin)
    _done(found, as_json, _said(found, f"principal {principal_id} revoked"))


def _change(ledger: Any, kind: str, change: dict[str, Any], admin: Any) -> dict[str, Any]:
    from ledger.app.approvals import Approvals

    approvals = Approvals(ledger)
    if admin is None:
        proposal = approvals.propose_register(kind, change, actor=ledger.actor,
                                              proposer_principal=cli_principal(ledger))
        return proposal.as_dict()
    row = approvals.change_register(kind, change, admin, actor=ledger.actor)
    return {"register_version": row.seq, "kind": kind, "principal_id": change["id"],
            "signed_by": admin.principal}


def _said(found: dict[str, Any], done: str) -> str:
    if "proposal_id" in found:
        return (f"proposed {found['proposal_id']}: it waits for an admin principal's signature "
                f"(ledger approve {found['proposal_id']} --key ADMIN_KEY_FILE), until "
                f"{found['expires_at']}")
    return f"{done} (register version {found['register_version']}, signed by " \
           f"{found['signed_by']})"


def _done(found: dict[str, Any], as_json: bool, text: str) -> None:
    typer.echo(json.dumps(found) if as_json else text)


@principals_app.command("list")
def list_principals(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per principal."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """List the principals, revoked ones included, with their key ids."""
    with ledger_app(database_url) as ledger:
        found = ledger.principals.all()
    if as_json:
        for principal in found:
            typer.echo(json.dumps(principal.as_dict()))
        return
    table = Table()
    table.add_column("id", no_wrap=True, min_width=max((len(p.principal_id) for p in found),
                                                      default=2))
    for column in ("name", "role", "key", "added", "by", "revoked", "by"):
        table.add_column(column, overflow="fold")
    for p in found:
        table.add_row(p.principal_id, p.name, p.role, p.key_id or "(none: before signatures)",
                      minute(p.created_at), p.created_by, minute(p.revoked_at),
                      p.revoked_by or "")
    out_console().print(table)


@principals_app.command("history")
def history(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per change."),
    database_url: str | None = DATABASE_OPTION,
) -> None:
    """The register as it was changed, version by version (its hash chain, each change and
    the admin who signed it)."""
    with ledger_app(database_url, reading=True) as ledger:
        from ledger.app.fleet import home_of

        rows = home_of(ledger).principals.register.rows()
    for row in rows:
        if as_json:
            typer.echo(json.dumps(row.as_dict()))
            continue
        data = row.data()
        approval = data.get("approval") or {}
        signers = ", ".join(s.get("principal", "?") for s in approval.get("signatures", ()))
        what = data.get("principal") or {"imported": len(data.get("imported", ()))}
        typer.echo(f"v{row.seq} {minute(row.at)} {row.kind:<9} {row.principal_id or '-'} "
                   f"{json.dumps(what, sort_keys=True)}"
                   f"{f'  signed by {signers}' if signers else ''}  #{row.row_hash[:12]}")
