"""Who may use the app: the accounts of RAGSPACE_AUTH, and how fast a client may guess them."""

from ragspace.access.credentials import AUTH_HEADER, Credentials, parse_auth
from ragspace.access.login_limits import LoginCheck, LoginLimiter, LoginLimits

__all__ = [
    "AUTH_HEADER",
    "Credentials",
    "LoginCheck",
    "LoginLimiter",
    "LoginLimits",
    "parse_auth",
]
