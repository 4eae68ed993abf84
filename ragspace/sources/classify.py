"""One decision for uploads, folders and GitHub: is a file indexed, and if not, why.

Binary files are recognised by their bytes, not by an extension list; only keys and
certificates are refused by name (their content is text, but indexing secrets is never
wanted). Skips carry a reason for the preview and the status, and are never `error`s.
"""

import codecs
import re
from pathlib import PurePosixPath

from ragspace.sources.extract import has_reader

_SNIFF_BYTES = 8192
SECRET_SUFFIXES = frozenset(
    {
        ".pem",
        ".key",
        ".csr",
        ".crt",
        ".cer",
        ".der",
        ".p12",
        ".pfx",
        ".jks",
        ".keystore",
        ".kdbx",
        ".ppk",
        ".env",
    }
)
SECRET_NAMES = frozenset(
    {
        ".env",
        ".netrc",
        "_netrc",
        ".pgpass",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".htpasswd",
        ".dockercfg",
        ".s3cfg",
        "credentials",
        "credentials.json",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
    }
)
# templates of a .env file are meant to be committed and hold no values
_DOTENV_TEMPLATES = frozenset({"example", "sample", "template", "dist", "defaults"})
# ssh_host_rsa_key, deploy_key, client_secret_1234.json ...
_SECRET_NAME = re.compile(r"^(?:[\w.-]*_key|[\w.-]*_rsa|client_secret[\w.-]*\.json)$")
_SERVICE_ACCOUNT = re.compile(rb'"type"\s*:\s*"service_account"')
_SVG = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!DOCTYPE svg[^>]*>\s*)?<svg\b", re.S
)

EMPTY = "empty file"
BINARY = "binary content"
NOT_UTF8 = "not UTF-8 text"
SECRET = "looks like a secret (keys, certificates, credentials and .env files are never indexed)"
SVG_IMAGE = "SVG image"


def secret_reason(path: str) -> str | None:
    """The skip reason for a key, certificate or credentials file, judged by its name."""
    name = PurePosixPath(path).name.lower()
    if name in SECRET_NAMES or PurePosixPath(name).suffix in SECRET_SUFFIXES:
        return SECRET
    if name.startswith(".env.") and name[5:] not in _DOTENV_TEMPLATES:  # .env.production
        return SECRET
    if _SECRET_NAME.match(name):
        return SECRET
    return None


def content_skip_reason(path: str, data: bytes) -> str | None:
    """None when the file is indexed as text, code or a readable document; else why not."""
    secret = secret_reason(path)
    if secret:
        return secret
    if not data.strip():
        return EMPTY
    if path.lower().endswith(".json") and _SERVICE_ACCOUNT.search(data[:_SNIFF_BYTES]):
        return SECRET  # a cloud service-account key file
    if has_reader(path):  # PDF, notebooks: their own readers report what is wrong
        return None
    return text_skip_reason(data)


def text_skip_reason(data: bytes) -> str | None:
    """Why these bytes are not indexable text (binary, not UTF-8, an SVG image), or None."""
    sample = data[:_SNIFF_BYTES]
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)):
        return None  # decoded as UTF-16 or UTF-32 by the extractor
    if b"\x00" in sample:
        return BINARY
    if _SVG.match(sample):
        return SVG_IMAGE
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return NOT_UTF8
    return None
