"""What a site says about crawling it: its robots.txt rules and its sitemap's pages."""

import urllib.robotparser
from collections.abc import Callable
from urllib.parse import urldefrag

import httpx
import lxml.etree

from ragspace.errors import SourceError

# a bounded GET: the response, or None when the body is over the page cap
Getter = Callable[[str], httpx.Response | None]
_UNREACHABLE = (httpx.HTTPError, httpx.InvalidURL, SourceError)
MAX_SITEMAPS = 5


def robots_rules(get: Getter, origin: str) -> urllib.robotparser.RobotFileParser:
    """The site's robots.txt rules; none reachable means everything is allowed, as crawlers
    agree."""
    parser = urllib.robotparser.RobotFileParser(f"{origin}/robots.txt")
    text = ""
    try:
        response = get(f"{origin}/robots.txt")
        if response is not None and response.status_code == 200:
            text = response.text
    except _UNREACHABLE:
        pass
    parser.parse(text.splitlines())
    return parser


def sitemap_pages(
    get: Getter, origin: str, robots: urllib.robotparser.RobotFileParser
) -> list[str]:
    """The page URLs of the sitemaps robots.txt names (else /sitemap.xml), following a
    sitemap index one level deep, at most MAX_SITEMAPS sitemaps."""
    urls = list(robots.site_maps() or [f"{origin}/sitemap.xml"])
    found: list[str] = []
    for sitemap in urls[:MAX_SITEMAPS]:
        for loc in _locations(get, sitemap):
            if loc.endswith(".xml") and len(urls) < MAX_SITEMAPS:
                urls.append(loc)
            else:
                found.append(urldefrag(loc)[0])
    return found


def _locations(get: Getter, url: str) -> list[str]:
    """The <loc> entries of one sitemap (entities never resolved); none when unreadable."""
    try:
        response = get(url)
        if response is None or response.status_code != 200:
            return []
        root = lxml.etree.fromstring(
            response.content, parser=lxml.etree.XMLParser(resolve_entities=False)
        )
    except (*_UNREACHABLE, lxml.etree.XMLSyntaxError):
        return []
    return [str(el.text).strip() for el in root.iter("{*}loc") if el.text]
