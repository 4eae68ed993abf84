"""Credentials never stored or shown: `https://user:token@host/...` becomes `https://host/...`."""

import re

# scheme, then everything up to the last `@` before the path: passwords may hold `@` too
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/?#\\]*@")


def without_credentials(url: str) -> str:
    """The URL without its user name and password (other text is returned unchanged)."""
    return _USERINFO.sub(r"\g<scheme>", url, count=1)
