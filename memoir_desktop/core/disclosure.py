"""What leaves the machine: exactly what is sent to the LLM endpoint, and when.

The answer depends only on the settings: no LLM set means nothing is sent anywhere; a server on
this computer (loopback) keeps everything here; one on the local network leaves this computer but
not the network; anything else is a cloud service. Private entries are never sent. Screens and the
CLI show :func:`describe`; the UI translates by the keys, the CLI prints the English sentences.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlparse

OPENAI_DEFAULT = "https://api.openai.com/v1"

# (key, English sentence): every item sent, and when.
SENT = [
    ("entry", "Each journal entry you write (not private ones), after you save it, to find the facts worth "
              "remembering; with it the few entries before it and the running summary, for context."),
    ("memories", "Existing memories similar to those facts, so the LLM can decide to add, update or forget."),
    ("summary", "Every few entries, the latest entries and the previous summary, to update the summary."),
    ("chat", "When you ask or chat: your message, recent entries, the summary and the memories retrieved "
             "for it, to write the answer."),
    ("graph", "With the memory graph on: the facts of each entry, to name the people, places and relations."),
]
NOT_SENT = [
    ("private", "Private entries: they are only journaled and found by local search."),
    ("search", "Searching, browsing and editing: these run on this computer (the search model is local)."),
    ("keys", "The journal's keys, passphrase and files."),
]


@dataclass
class Disclosure:
    where: str  # none | this_machine | local_network | cloud
    host: str = ""
    sent: list[tuple[str, str]] = field(default_factory=list)
    not_sent: list[tuple[str, str]] = field(default_factory=list)

    @property
    def leaves_machine(self) -> bool:
        return self.where in ("local_network", "cloud")

    def text(self) -> str:
        head = {
            "none": "No LLM is set: nothing is sent anywhere. Entries are journaled and searched on this computer.",
            "this_machine": f"The LLM runs on this computer ({self.host}): what it is sent stays on this machine.",
            "local_network": f"The LLM runs on another computer of your local network ({self.host}): what it is "
                             "sent leaves this computer but not your network.",
            "cloud": f"The LLM is a cloud service ({self.host}): what it is sent leaves this computer and is "
                     "handled under that provider's terms.",
        }[self.where]
        lines = [head]
        if self.sent:
            lines += ["", "Sent:"] + [f"- {s}" for _, s in self.sent]
        lines += ["", "Never sent:"] + [f"- {s}" for _, s in self.not_sent]
        return "\n".join(lines)


def endpoint_kind(base_url: str) -> tuple[str, str]:
    """(this_machine | local_network | cloud, host) for an OpenAI-compatible base URL."""
    url = base_url.strip() or OPENAI_DEFAULT
    if "://" not in url:
        url = "http://" + url
    host = (urlparse(url).hostname or "").lower()
    if host in ("localhost", "localhost.localdomain") or host.endswith(".localhost"):
        return "this_machine", host
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return ("local_network", host) if host.endswith((".local", ".lan", ".home.arpa")) else ("cloud", host)
    if ip.is_loopback:
        return "this_machine", host
    if ip.is_private or ip.is_link_local:
        return "local_network", host
    return "cloud", host


def describe(base_url: str, configured: bool, *, graph_enabled: bool = True) -> Disclosure:
    if not configured:
        return Disclosure("none", not_sent=list(NOT_SENT))
    where, host = endpoint_kind(base_url)
    sent = [item for item in SENT if graph_enabled or item[0] != "graph"]
    return Disclosure(where, host, sent, list(NOT_SENT))
