"""Measuring a page as Chromium drew it: every text's rendered size and its contrast with what
is behind it (WCAG 2.x), for tests/web/test_legibility.py and bench/screenshots.py.

:data:`MEASURE_JS` walks the page's text nodes and returns, for each element that holds text
and is drawn, its font size (computed, px), its box (``getBoundingClientRect``), its colour,
the product of its and its ancestors' opacity, and the background of every element from it
up to the root (colour and the colour stops of a gradient). :func:`worst_contrast` composites
those backgrounds (alpha included) over the page's canvas, taking every gradient stop as a
possible backdrop, and returns the lowest contrast ratio of the text over any of them; a page
with a transparent canvas (the broadcast overlay, keyed over video) is checked over black and
over white.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

Rgba = tuple[float, float, float, float]

AA: Final = 4.5
"""WCAG 2.x level AA for normal text."""

BLACK: Final[Rgba] = (0.0, 0.0, 0.0, 1.0)
WHITE: Final[Rgba] = (255.0, 255.0, 255.0, 1.0)

MEASURE_JS: Final = """
() => {
  const bg = (s) => ({color: s.backgroundColor,
                      stops: s.backgroundImage && s.backgroundImage !== "none"
                        ? (s.backgroundImage.match(/rgba?\\([^)]*\\)/g) || []) : []});
  const out = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const e = node.parentElement;
    if (!e || seen.has(e) || e.closest("option, script, style, [hidden]")) continue;
    seen.add(e);
    const s = getComputedStyle(e);
    const r = e.getBoundingClientRect();
    if (s.visibility !== "visible" || r.width === 0 || r.height === 0) continue;
    let opacity = 1;
    const layers = [];
    for (let a = e; a; a = a.parentElement) {
      const st = getComputedStyle(a);
      opacity *= parseFloat(st.opacity);
      layers.push(bg(st));
    }
    // drawn on top where it stands (not under another box), checked where it is on screen
    const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    const onScreen = cx >= 0 && cy >= 0 && cx < innerWidth && cy < innerHeight;
    const top = onScreen ? document.elementFromPoint(cx, cy) : null;
    const covered = onScreen && !(top && (top === e || e.contains(top) || top.contains(e)));
    out.push({covered: covered, clipped: Boolean(e.closest(".log")),
              tag: e.tagName.toLowerCase(), id: e.id, cls: String(e.className),
              text: node.textContent.trim().slice(0, 48), font: parseFloat(s.fontSize),
              color: s.color, opacity: opacity, layers: layers,
              rect: {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                     width: r.width, height: r.height}});
  }
  return out;
}
"""

BOXES_JS: Final = """
(selector) => Array.from(document.querySelectorAll(selector)).map((e) => {
  const r = e.getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width,
          height: r.height, font: parseFloat(getComputedStyle(e).fontSize)};
})
"""
"""The boxes (and font sizes) of every element matching a selector."""

_COLOUR = re.compile(
    r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)")


def parse_colour(text: str) -> Rgba:
    """A computed CSS colour (``rgb(…)`` / ``rgba(…)``) as (r, g, b, alpha).

    >>> parse_colour("rgba(0, 0, 0, 0.5)"), parse_colour("rgb(255, 224, 102)")
    ((0.0, 0.0, 0.0, 0.5), (255.0, 224.0, 102.0, 1.0))
    """
    m = _COLOUR.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"not a computed colour: {text!r}")
    alpha = m.group(4)
    a = 1.0 if alpha is None else (float(alpha[:-1]) / 100 if alpha.endswith("%")
                                   else float(alpha))
    return (float(m.group(1)), float(m.group(2)), float(m.group(3)), a)


def over(top: Rgba, below: Rgba, opacity: float = 1.0) -> Rgba:
    """``top`` (its alpha times ``opacity``) composited over the opaque ``below``."""
    a = top[3] * opacity
    return (top[0] * a + below[0] * (1 - a), top[1] * a + below[1] * (1 - a),
            top[2] * a + below[2] * (1 - a), 1.0)


def luminance(c: Rgba) -> float:
    """WCAG relative luminance of an opaque colour."""
    def lin(v: float) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])


def contrast(fg: Rgba, bg: Rgba) -> float:
    """WCAG contrast ratio of two opaque colours (1 to 21).

    >>> round(contrast(WHITE, BLACK), 1), round(contrast((118.0, 118.0, 118.0, 1.0), WHITE), 2)
    (21.0, 4.54)
    """
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def backdrops(layers: list[dict[str, Any]], canvas: list[Rgba]) -> list[Rgba]:
    """Every colour the text may stand on: the layers (the element's own first, the root's
    last) composited from the root down over each canvas colour, each gradient stop a
    possibility of its own."""
    current = list(canvas)
    for layer in reversed(layers):
        colour = parse_colour(layer["color"])
        if colour[3] > 0:
            current = _unique(over(colour, b) for b in current)
        stops = [parse_colour(s) for s in layer.get("stops", [])]
        if stops:       # a gradient covers the colour; each stop may be behind the text
            current = _unique(over(s, b) for s, b in itertools.product(stops, current))
    return current


def _unique(colours: Iterable[Rgba]) -> list[Rgba]:
    seen = {(round(c[0], 1), round(c[1], 1), round(c[2], 1), 1.0) for c in colours}
    return sorted(seen)


@dataclass(frozen=True, slots=True)
class TextItem:
    """One drawn text: where, how big, and its lowest contrast over its possible backdrops."""

    label: str
    text: str
    font_px: float
    height_px: float
    bottom: float
    right: float
    contrast: float
    covered: bool = False
    """Its centre is on screen under another element (a log's lines, cut off by their
    panel on purpose, are never counted as covered)."""


def worst_contrast(item: dict[str, Any], canvas: list[Rgba]) -> float:
    """The lowest contrast of a measured text over every backdrop it may stand on."""
    fg = parse_colour(item["color"])
    return min(contrast(over(fg, b, item["opacity"]), b)
               for b in backdrops(item["layers"], canvas))


def text_items(measured: list[dict[str, Any]], canvas: list[Rgba]) -> list[TextItem]:
    """:data:`MEASURE_JS`'s result as :class:`TextItem`s."""
    out = []
    for m in measured:
        label = m["tag"] + (f"#{m['id']}" if m["id"] else "") + \
            "".join(f".{c}" for c in m["cls"].split() if c)
        out.append(TextItem(label, m["text"], m["font"], m["rect"]["height"],
                            m["rect"]["bottom"], m["rect"]["right"],
                            worst_contrast(m, canvas),
                            bool(m.get("covered")) and not m.get("clipped")))
    return out


async def measure(page: Any, canvas: list[Rgba]) -> list[TextItem]:
    """Every drawn text of ``page`` (see :data:`MEASURE_JS`)."""
    return text_items(await page.evaluate(MEASURE_JS), canvas)


async def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """The boxes of every element matching ``selector``."""
    found: list[dict[str, float]] = await page.evaluate(BOXES_JS, selector)
    return found
