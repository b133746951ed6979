"""Alert rules: evaluate them once and send what is new (run), show what one would send (test), list what was sent."""

from __future__ import annotations

import argparse
from pathlib import Path

from models.alerts.rules import read
from models.settings import Settings


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    # --db after the action too (`banco alerts run --db F`); SUPPRESS keeps the one given before it
    warehouse = argparse.ArgumentParser(add_help=False)
    warehouse.add_argument("--db", default=argparse.SUPPRESS, help="warehouse file (default: $BANCO_DB)")
    where = argparse.ArgumentParser(add_help=False, parents=[warehouse])
    where.add_argument("--file", type=Path, default=settings.alerts_file,
                       help="the alerts file (default: $BANCO_ALERTS or %(default)s)")  # fmt: skip
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("run", parents=[where], help="evaluate every rule once and send its new facts (for cron)")
    test = actions.add_parser("test", parents=[where], help="what a rule would send now, sending and recording nothing")
    test.add_argument("rule", help="the rule's name")
    history = actions.add_parser(
        "history", parents=[warehouse], help="what was sent, when, to whom, and how it went (newest first)"
    )
    history.add_argument("--limit", type=int, default=50, help="messages listed at most (default %(default)s)")


def run(args: argparse.Namespace) -> int:
    from models.alerts import evaluate, record
    from models.alerts.channels import every

    db, settings = Path(args.db), args.settings
    if args.action == "history":
        rows = record.history(db, args.limit)
        for at, rule, channel, to, facts, result, attempts, detail, day, snapshot in rows:
            print(f"{at:%Y-%m-%d %H:%M:%S%z} {rule} via {channel} to {to or '—'}: {facts} fact(s), {result} "
                  f"after {attempts} attempt(s) ({detail}); gaming day {day or '—'}, snapshot {snapshot}")  # fmt: skip
        if not rows:
            print("nothing sent yet")
        return 0
    rules = read(args.file)
    if args.action == "test":
        rules = [rule for rule in rules if rule.name == args.rule]
        if not rules:
            raise ValueError(f"no rule {args.rule!r} in {args.file}")
    outcomes = evaluate.evaluate(db, rules, every(settings), alerts_to=settings.alerts_to,
                                 dashboard=settings.dashboard_url, send=args.action == "run")  # fmt: skip
    for outcome in outcomes:
        print(outcome.line())
        if args.action == "test":
            for message, _ in outcome.messages[:1]:
                print(message.text())
    for rule in (rule for rule in rules if rule.event is not None):
        said = f"refused: {rule.refused}" if rule.refused else f"sent when it happens ({rule.event}), not by a query"
        print(f"{rule.name}: {said}")
    return 0
