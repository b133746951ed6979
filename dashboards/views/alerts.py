"""Alerts: the rules of the alerts file, what each would send now, and what was sent (docs/alerts.md)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import streamlit as st

from dashboards import filters, fmt
from dashboards.layout import metric_row
from dashboards.pages import PAGES
from dashboards.queries import alerts
from dashboards.signin import analysts_only
from models.alerts.rules import Rule, RulesError
from models.settings import Settings

analysts_only()  # the facts name flagged players and the tables whose count failed: analysts alone

#: Rule names stay as the alerts file and `banco alerts test RULE` spell them.
AS_WRITTEN = {"rule": "text"}
TITLES = {Path(name).stem: title for name, title, _ in PAGES}
HOW_TO = (
    "Every message goes to the log channel, this record. To email the rules' recipients, set BANCO_SMTP_URL, "
    "BANCO_SMTP_FROM and BANCO_ALERTS_TO; to post to a team chat, BANCO_WEBHOOK_URL (and BANCO_WEBHOOK_SECRET "
    "to sign it). docs/alerts.md says how, and how to write a rule."
)


def render() -> None:
    settings = Settings.from_env()
    st.title("Alerts")
    st.caption(f"From the alerts file {fmt.plain(settings.alerts_file)} (BANCO_ALERTS); the filters do not apply here.")
    try:
        rules = alerts.rules(settings)
    except RulesError as error:
        unread = f"No rule to show: {fmt.plain(error)}. Set BANCO_ALERTS to the alerts file."
        st.warning(unread, icon=":material/warning:")
        rules = []
    _rules(rules, alerts.channels(settings))
    if any(rule.event is None for rule in rules):
        _now(settings)
    _sent(str(filters.gaming_day().timezone))


def _rules(rules: list[Rule], configured: tuple[str, ...]) -> None:
    st.subheader("Rules")
    if not rules:
        return
    rows = [
        {
            "rule": rule.name,
            "severity": rule.severity,
            "recipients": ", ".join(entry if "@" in entry else fmt.name(entry) for entry in rule.to) or None,
            "channels": _channels(rule, configured),
            "page": TITLES.get(rule.page, rule.page) if rule.page else None,
            "sent_on": fmt.name(rule.event.replace("-", "_")) if rule.event else "Its query's new facts",
            "refused": rule.refused,
            "description": rule.description or None,
        }
        for rule in rules
    ]
    fmt.table(pl.DataFrame(rows), kinds=AS_WRITTEN, hide_index=True)
    unready = sorted({c for rule in rules for c in rule.channels} - set(configured))
    if unready:
        st.caption(f"Not configured here, so not sent: {', '.join(unready)}. {HOW_TO}")


def _channels(rule: Rule, configured: tuple[str, ...]) -> str:
    """The rule's channels, those not configured here said apart: "log (email, webhook not configured)"."""
    unready = [name for name in rule.channels if name not in configured]
    ready = ", ".join(name for name in rule.channels if name in configured) or "none"
    return f"{ready} ({', '.join(unready)} not configured)" if unready else ready


def _now(settings: Settings) -> None:
    st.subheader("What each rule would send now")
    st.caption("Each query rule run on the serving snapshot as `banco alerts test` runs it: nothing sent or recorded.")
    for outcome in alerts.now(settings):
        line = outcome.line()
        if outcome.refused is not None:
            st.warning(fmt.plain(line), icon=":material/block:")
            continue
        if not outcome.messages:
            st.markdown(fmt.plain(line))
            continue
        message, _ = outcome.messages[0]
        with st.expander(line):
            day = message.gaming_day.isoformat() if message.gaming_day else fmt.MISSING
            st.markdown(f"**{fmt.plain(message.subject)}**")
            st.caption(f"Gaming day {day} · snapshot {fmt.plain(message.snapshot)} · severity {message.severity}")
            fmt.table(pl.DataFrame(list(message.facts)), hide_index=True)
            st.caption(f"Link: {fmt.plain(message.link)}")


def _sent(zone: str) -> None:
    st.subheader("What was sent")
    if not alerts.sent():
        st.info(f"Nothing was sent yet: `banco alerts run` sends each rule's new facts. {HOW_TO}")
        return
    history = alerts.history().with_columns(
        pl.col("sent_at").dt.convert_time_zone(zone),
        pl.col("recipients").replace("", None),
    )
    if history.is_empty():
        st.info(f"Nothing was sent yet. {HOW_TO}")
        return
    by_rule = alerts.by_rule()
    a, b, c = metric_row(3)
    a.metric("Messages", fmt.count(int(by_rule["messages"].sum())), help="One a rule, channel and sending")
    b.metric("Facts reported", fmt.count(int(by_rule["facts"].sum())), help="Each fact once per channel")
    failed = history.filter(pl.col("result") == "failed")
    c.metric("Failed messages", fmt.count(failed.height))
    when = {"sent_at": st.column_config.DatetimeColumn(f"Sent at ({zone})", format="YYYY-MM-DD HH:mm:ss")}
    last = {"last_sent_at": st.column_config.DatetimeColumn(f"Last sent at ({zone})", format="YYYY-MM-DD HH:mm")}
    if not failed.is_empty():
        st.warning(
            f"{fmt.count(failed.height)} messages did not reach their channel: each is tried again on the next run.",
            icon=":material/error:",
        )
        fmt.table(failed, column_config=when, kinds=AS_WRITTEN, hide_index=True)
    fmt.table(
        by_rule.with_columns(pl.col("last_sent_at").dt.convert_time_zone(zone)),
        column_config=last,
        kinds=AS_WRITTEN,
        hide_index=True,
    )
    left, right = st.columns(2)
    chosen = left.multiselect("Rules", sorted(history["rule"].unique()), key="alerts_rules", placeholder="Every rule")
    result = right.segmented_control("Result", ["sent", "failed"], key="alerts_result", format_func=str.capitalize)
    everything = pl.lit(True)
    shown = history.filter(
        pl.col("rule").is_in(chosen) if chosen else everything, pl.col("result") == result if result else everything
    )
    fmt.table(shown, column_config=when, kinds=AS_WRITTEN, hide_index=True)
    of = f"{fmt.count(shown.height)} of the latest {fmt.count(history.height)} messages"
    st.caption(f"Newest first, {of}; times are {zone}.")


render()
