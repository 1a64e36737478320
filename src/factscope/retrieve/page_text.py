"""The readable text of a fetched web page, by trafilatura (a maintained main-text extractor: it drops menus,
scripts, styles and boilerplate and decodes the page's declared or detected encoding)."""

from __future__ import annotations

from dataclasses import dataclass

from factscope.core.errors import ConfigError

WEB_EXTRA = "pip install 'factscope[web]'"


@dataclass(frozen=True)
class PageText:
    """A page's title and main text (empty when the page has none)."""

    title: str
    text: str


def page_text(content: bytes, *, content_type: str, charset: str | None = None) -> PageText:
    """The title and main text of a page's bytes: HTML through trafilatura, plain text decoded as it is.

    ``charset`` is the encoding the server declared; without one, the page's own declaration or trafilatura's
    detection decides."""
    if content_type == "text/plain":
        return PageText("", content.decode(charset or "utf-8", errors="replace").strip())
    try:
        import trafilatura
    except ImportError as error:
        raise ConfigError(f"reading web pages needs trafilatura: {WEB_EXTRA} ({error})") from error
    markup: str | bytes = content
    if charset:
        try:
            markup = content.decode(charset)
        except (LookupError, UnicodeDecodeError):
            markup = content
    document = trafilatura.bare_extraction(
        markup, include_comments=False, include_tables=True, with_metadata=True, favor_recall=True
    )
    if document is None:
        return PageText("", "")
    return PageText(str(getattr(document, "title", None) or ""), str(getattr(document, "text", None) or "").strip())
