"""A small DOM for the tests of `phobos-check --format html`: the page parsed with the standard
library's html.parser into elements with their attributes, children and text, and the lookups the
tests need (by class, by id)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "source", "wbr"}


@dataclass(eq=False)
class Element:
    tag: str
    attrs: dict
    children: list = field(default_factory=list)     # Element or str
    parent: "Element | None" = None

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Element):
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list["Element"]:
        return [e for e in self.iter() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)]

    def ancestor(self, tag: str, cls: str | None = None) -> "Element | None":
        e = self.parent
        while e is not None and not (e.tag == tag and (cls is None or cls in e.classes)):
            e = e.parent
        return e


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        e = Element(tag, {k: (v if v is not None else "") for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(e)
        if tag not in VOID:
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.stack[-1].tag != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1].tag}> at {self.getpos()}")
            while len(self.stack) > 1 and self.stack[-1].tag != tag:
                self.stack.pop()
        if len(self.stack) > 1:
            self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse_page(page: str) -> Element:
    """The page as a tree; fails on a badly nested page (every tag closes the one it opened)."""
    b = _Builder()
    b.feed(page)
    b.close()
    assert b.errors == [], b.errors[:5]
    assert len(b.stack) == 1, [e.tag for e in b.stack]
    return b.root


def by_id(root: Element) -> dict[str, Element]:
    out = {}
    for e in root.iter():
        ident = e.attrs.get("id")
        if ident is not None:
            assert ident not in out, f"duplicate id {ident!r}"
            out[ident] = e
    return out


def chain_of(root: Element, element: Element, ids: dict | None = None) -> list[tuple[str, str]]:
    """The (data-span, text) steps of the chain a badge, gutter mark or diagnostic names."""
    ids = by_id(root) if ids is None else ids
    why = element.attrs.get("data-why")
    if not why:
        return []
    return [(li.attrs["data-span"], li.text()) for li in ids[why].find_all("li")]
