"""``ledger rules``: the rule book (``docs/rules.md``), one rule or all of them."""

from __future__ import annotations

import json
import re
import textwrap

import typer

from ledger.cli import app
from ledger.cli.common import handle_errors


@app.command("rules")
def rules_command(
    rule_id: str | None = typer.Argument(
        None, metavar="[ID]", help="A rule id such as COM-6, HCF-12, STUD8-11 (any case); "
        "without it, every rule with its first sentence."),
    as_json: bool = typer.Option(False, "--json", help='Print JSON: {"id", "section", "text"} '
                                 "(a list without ID)."),
) -> None:
    """Print a rule of the rule book (`docs/rules.md`) with its id, its section and its text,
    the decisions included; without ID, list every rule. An unknown id ends with
    `unknown_rule`."""
    from ledger.domain.rulebook import rule, rules

    with handle_errors():
        chosen = [rule(rule_id)] if rule_id else list(rules().values())
    if as_json:
        data = [{"id": r.id, "section": r.section, "text": r.text} for r in chosen]
        typer.echo(json.dumps(data[0] if rule_id else data))
        return
    if rule_id:
        (found,) = chosen
        typer.echo(f"{found.id}  ({found.section})")
        for paragraph in re.split(r" (?=Decision)", found.text.replace("**", "")):
            typer.echo(textwrap.fill(paragraph, width=96, initial_indent="  ",
                                     subsequent_indent="  "))
        return
    section = None
    for r in chosen:
        if r.section != section:
            section = r.section
            typer.echo(f"\n{section}" if section != chosen[0].section else section)
        typer.echo(f"  {r.id:<9} {r.summary.replace('**', '')}")
