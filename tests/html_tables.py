"""Reading an HTML report back in tests: its tables, tags and <pre> texts."""

from __future__ import annotations

from html.parser import HTMLParser


class Tables(HTMLParser):
    """Every <table class=...> as rows of cell texts (tables[class]: the tables of that class,
    in order); also the tags and attributes seen, and the text of each <pre>."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[list[list[str]]]] = {}
        self.tags: list[tuple[str, dict]] = []
        self.pres: list[str] = []
        self._table = self._cell = self._pre = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "table":
            self._table = []
            self.tables.setdefault(attrs.get("class", ""), []).append(self._table)
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "pre":
            self._pre = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._table[-1].append(self._cell)
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "pre":
            self.pres.append(self._pre)
            self._pre = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._pre is not None:
            self._pre += data
