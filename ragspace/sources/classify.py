"""One decision for uploads, folders and GitHub: is a file indexed, and if not, why.

Binary files are recognised by their bytes, not by an extension list; only files that hold
nothing but secrets are refused by name (their content is text, but indexing secrets is
never wanted): keys and certificates by suffix, tools' credential files, the dotenv family,
kube configs, vault tokens and terraform state and variables, each judged by families of
names after the name is normalised (lower case, editor and backup leftovers removed), not by
a list of exact names. Skips carry a reason for the preview and the status, never `error`s.
"""

import codecs
import re
from pathlib import PurePosixPath

from ragspace.sources.extract import has_reader

_SNIFF_BYTES = 8192
# keys and certificates, by suffix (after the name is normalised, see `_normalised`)
SECRET_SUFFIXES = frozenset(
    {".pem", ".key", ".csr", ".crt", ".cer", ".der", ".p12", ".pfx", ".jks", ".keystore"}
    | {".kdbx", ".ppk", ".env", ".tfstate", ".tfvars", ".kubeconfig", ".gpg"}
)
# credential files of tools, by name
SECRET_NAMES = frozenset(
    {".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd"}
    | {".dockercfg", ".s3cfg", ".boto", ".terraformrc", "terraform.rc", ".vault-token"}
    | {"credentials", "credentials.json", "kubeconfig", "id_rsa", "id_dsa", "id_ecdsa"}
    | {"id_ed25519", ".envrc"}
)
# tools' folders whose files hold credentials: ~/.kube/config, ~/.docker/config.json ...
SECRET_FOLDERS = frozenset({".kube", ".docker", ".aws", ".ssh", ".gnupg", ".azure", ".gcloud"})
_PUBLIC_IN_SECRET_FOLDERS = frozenset({"known_hosts", "authorized_keys", "config.example"})
# templates of a .env file are meant to be committed and hold no values
_DOTENV_TEMPLATES = frozenset(
    {"example", "sample", "template", "tmpl", "tpl", "dist", "defaults", "schema"}
)
# what editors and tools leave beside a file: .env~, .env.bak, #.env#, .env.swp ...
_LEFTOVER = re.compile(r"^#?(?P<name>.+?)(?:~|#|\.(?:bak|backup|old|orig|save|swp|tmp|copy)\d*)*$")
# the dotenv family: .env, .envrc, .env-staging, .env_dev, .env.production, .env.local ...
_DOTENV = re.compile(r"^\.env(?:rc)?(?P<tail>[._-].*)?$")
# ssh_host_rsa_key, deploy_key, client_secret_1234.json, terraform.tfstate.backup ...
_SECRET_NAME = re.compile(
    r"^(?:[\w.-]*_key|[\w.-]*_rsa|client_secret[\w.-]*\.json|[\w.-]*\.tf(?:state|vars)[\w.-]*)$"
)
_SERVICE_ACCOUNT = re.compile(rb'"type"\s*:\s*"service_account"')
_SVG = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!DOCTYPE svg[^>]*>\s*)?<svg\b", re.S
)

EMPTY = "empty file"
BINARY = "binary content"
NOT_UTF8 = "not UTF-8 text"
SECRET = (
    "looks like a secret (keys, certificates, credentials, tokens, .env files, kube configs "
    "and terraform state are never indexed)"
)
SVG_IMAGE = "SVG image"


def secret_reason(path: str) -> str | None:
    """The skip reason for a key, certificate, credentials, token, dotenv, kube config or
    terraform state file, judged by its normalised name (a family, not a list of names)."""
    parts = PurePosixPath(path.lower()).parts
    if not parts:
        return None
    name = _normalised(parts[-1])
    if name in SECRET_NAMES or PurePosixPath(name).suffix in SECRET_SUFFIXES:
        return SECRET
    dotenv = _DOTENV.match(name)
    if dotenv and not _is_template(dotenv["tail"] or ""):
        return SECRET
    if _SECRET_NAME.match(name):
        return SECRET
    if any(part in SECRET_FOLDERS for part in parts[:-1]) and name not in _PUBLIC_IN_SECRET_FOLDERS:
        return SECRET if not name.endswith(".pub") else None
    return None


def _normalised(name: str) -> str:
    """A lower-case file name without what editors and backups add (`.env~` is `.env`)."""
    match = _LEFTOVER.match(name)
    return match["name"] if match else name


def _is_template(tail: str) -> bool:
    """Whether a dotenv name's tail (`.example`, `-sample.local`) marks a template."""
    return any(word in _DOTENV_TEMPLATES for word in re.split(r"[._-]", tail) if word)


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
