"""What leaves the machine: exactly what is sent to the LLM endpoint, and when.

The answer depends only on the settings: no LLM set means nothing is sent anywhere; a server on
this computer (loopback) keeps everything here; one on the local network leaves this computer but
not the network; anything else is a cloud service. What is sent is the list of registered purposes
(core/llm/purposes.py) the settings switch on, in Korean or English; the screens and the CLI print
`Disclosure.text` in the reader's language.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlparse

from memoir_desktop.core.llm.purposes import Purpose, app_purposes

OPENAI_DEFAULT = "https://api.openai.com/v1"

# Where the LLM runs, said first: (English, Korean); {host} is the endpoint's host.
HEADS = {
    "none": ("No AI companion is set: nothing is sent anywhere. Entries are journaled and searched on this "
             "computer.",
             "AI 동반자가 설정되어 있지 않아요. 아무것도 어디로도 보내지 않아요. 기록과 검색은 이 컴퓨터에서만 이뤄져요."),
    "this_machine": ("The AI companion runs on this computer ({host}): what it is sent stays on this machine.",
                     "AI 동반자가 이 컴퓨터에서 돌아가요({host}). 보내는 내용은 이 컴퓨터를 떠나지 않아요."),
    "local_network": ("The AI companion runs on another computer of your local network ({host}): what it is sent "
                      "leaves this computer but not your network.",
                      "AI 동반자가 같은 네트워크의 다른 컴퓨터에서 돌아가요({host}). 보내는 내용은 이 컴퓨터를 떠나지만 "
                      "집이나 회사 네트워크 밖으로 나가지는 않아요."),
    "cloud": ("The AI companion is a cloud service ({host}): what it is sent leaves this computer and is handled "
              "under that provider's terms.",
              "AI 동반자가 클라우드 서비스예요({host}). 보내는 내용은 이 컴퓨터를 떠나 그 회사의 약관에 따라 다뤄져요."),
}
# (key, English, Korean): what is never sent, whatever the settings.
NOT_SENT = [
    ("private", "Private entries, and the memories only they support: they are only journaled and found by your "
                "own search.",
     "비공개 기록과 그 기록에서만 나온 기억: 저장하고 내 검색으로 찾을 뿐이에요."),
    ("search", "Searching, browsing and editing: these run on this computer (the search model is local).",
     "검색, 둘러보기, 고치기: 모두 이 컴퓨터에서 이뤄져요(검색 모델도 이 컴퓨터에 있어요)."),
    ("keys", "The journal's keys, passphrase and files.", "일기의 열쇠, 암호, 파일."),
]
LABELS = {"sent": ("Sent:", "보내는 것:"), "never": ("Never sent:", "보내지 않는 것:")}


def _pick(pair: tuple[str, str], lang: str) -> str:
    return pair[1] if lang == "ko" else pair[0]


@dataclass
class Disclosure:
    """What leaves the machine. `sent` is the registered purposes the settings switch on, so a
    feature that starts calling the LLM is listed here without anyone editing this file."""

    where: str  # none | this_machine | local_network | cloud
    host: str = ""
    sent: list[Purpose] = field(default_factory=list)

    @property
    def leaves_machine(self) -> bool:
        return self.where in ("local_network", "cloud")

    def head(self, lang: str = "en") -> str:
        return _pick(HEADS[self.where], lang).format(host=self.host)

    def sent_lines(self, lang: str = "en") -> list[str]:
        return [p.text(lang) for p in self.sent]

    def never_lines(self, lang: str = "en") -> list[str]:
        return [ko if lang == "ko" else en for _, en, ko in NOT_SENT]

    def text(self, lang: str = "en", bullet: str = "-") -> str:
        lines = [self.head(lang)]
        if self.sent:
            lines += ["", _pick(LABELS["sent"], lang)] + [f"{bullet} {t}" for t in self.sent_lines(lang)]
        lines += ["", _pick(LABELS["never"], lang)] + [f"{bullet} {t}" for t in self.never_lines(lang)]
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


def describe(base_url: str, configured: bool, settings=None) -> Disclosure:
    """The disclosure for these settings (None: every purpose an LLM could be asked for)."""
    if not configured:
        return Disclosure("none")
    where, host = endpoint_kind(base_url)
    return Disclosure(where, host, [p for p in app_purposes() if p.active(settings)])
