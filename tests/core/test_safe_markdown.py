"""The companion's Markdown becomes HTML that loads nothing and links nowhere (no Qt here)."""

import re

import pytest

from memoir_desktop.viewmodels.markdown import to_safe_html

ALLOWED_TAGS = {"p", "br", "b", "i", "code", "pre", "ul", "ol", "li", "hr"}


def _tags(out: str) -> set[str]:
    return {m.group(1).lower() for m in re.finditer(r"</?([a-zA-Z0-9]+)", out)}


def _text(out: str) -> str:
    """What a reader sees: tags out, entities decoded."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", out))


@pytest.mark.parametrize("source", [
    "<b>x</b>",
    "<img src=http://x/y.png>",
    "<a href=file:///etc/passwd>x</a>",
    "<script>alert('x')</script>",
    "<style>p{background:url(http://x)}</style>",
    '<p style="background-image:url(http://x/y.png)">x</p>',
    "<iframe src=http://x></iframe>",
    "<IMG SRC=x onerror=alert(1)>",
    "&lt;img src=x&gt;",
])
def test_html_in_a_reply_is_shown_as_text(source):
    out = to_safe_html(source)
    assert _tags(out) <= ALLOWED_TAGS
    assert "<img" not in out.lower() and "<a " not in out.lower() and "href" not in _tags(out)
    assert _text(out) == source  # exactly what was written, as text


def test_links_and_urls_stay_plain_text():
    out = to_safe_html("[link](file:///etc/passwd) and https://example.com/a_b_c")
    assert "<a" not in out and "href" not in out
    assert _text(out) == "link (file:///etc/passwd) and https://example.com/a_b_c"
    assert _text(to_safe_html("<https://example.com>")) == "<https://example.com>"


def test_images_show_their_alt_text_and_are_never_loaded():
    out = to_safe_html("사진: ![바다 풍경](http://x/sea.png) 끝")
    assert "<img" not in out and "http://x" not in out
    assert _text(out) == "사진: 바다 풍경 끝"
    assert "<img" not in to_safe_html("![](file:///etc/passwd)")


def test_headings_are_bold_lines():
    out = to_safe_html("# 제목\n본문")
    assert out == "<p><b>제목</b></p><p>본문</p>"
    assert "<h1" not in to_safe_html("### 작은 제목")


def test_emphasis_code_and_line_breaks():
    out = to_safe_html("**좋아요!** 요가를 *기억*해 _둘게요_\n다음 줄 `a<b` 😊")
    assert out == "<p><b>좋아요!</b> 요가를 <i>기억</i>해 <i>둘게요</i><br>다음 줄 <code>a&lt;b</code> 😊</p>"
    assert to_safe_html("snake_case_name") == "<p>snake_case_name</p>"
    assert to_safe_html(r"\*별\*") == "<p>*별*</p>"


def test_paragraphs_lists_and_code_blocks():
    assert to_safe_html("하나\n\n둘") == "<p>하나</p><p>둘</p>"
    assert to_safe_html("- 사과\n* 배\n  (맛있다)") == "<ul><li>사과</li><li>배<br>(맛있다)</li></ul>"
    assert to_safe_html("1. 첫째\n2. 둘째") == "<ol><li>첫째</li><li>둘째</li></ol>"
    assert to_safe_html("3. 셋째") == '<ol start="3"><li>셋째</li></ol>'
    assert to_safe_html("2024. 3. 1.에 만났다") == "<p>2024. 3. 1.에 만났다</p>"  # a Korean date, not a list
    code = to_safe_html("```python\n<b>**not bold**</b>\n  indented\n```\n뒤")
    assert code == "<pre>&lt;b&gt;**not bold**&lt;/b&gt;\n  indented</pre><p>뒤</p>"
    assert to_safe_html("```\n열린 채로") == "<pre>열린 채로</pre>"


def test_entities_korean_and_emoji_are_kept_as_written():
    for source in ("&amp; &lt; &#60; &nbsp;", "오늘은 😊🎉 좋은 날", "AT&T <3", "'따옴표' \"큰따옴표\""):
        assert _text(to_safe_html(source)) == source


def test_empty_and_control_characters():
    assert to_safe_html("") == ""
    assert to_safe_html("\n\n") == ""
    assert "\x00" not in to_safe_html("a\x00b")
