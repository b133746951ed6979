"""Alerts: rules over the serving snapshot (rules.py), what one fact says (message.py), and the channels
that carry it to the people who must act (channels.py). docs/alerts.md."""
