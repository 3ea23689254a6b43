"""Ed25519 keys: the ledger's own key, which signs every stored game's head, and key files.

A ledger's private key lives outside the database, in a PEM file readable by its owner
only (mode 0600): ``--ledger-key PATH``, else $TOURNEY_LEDGER_KEY, else ``<database
file>.key`` beside an SQLite file. Its public key is stored in the database
(``ledger_keys``), so a reader can check every signature without the private key.

Signed messages (domain-separated, so a signature of one kind never passes for another):

* a game's head: ``"tourney-log-v1" 0x00 game_id 0x00 head`` (the same message a signed
  export carries, so a stored game's signature travels with its log and verifies offline);
* a checkpoint: ``"tourney-checkpoint-v1" 0x00 scope 0x00 name 0x00 games 0x00 root 0x00
  state`` (see ledger/checkpoints.py).

Secret seeds are derived from the private key too (``secret``): HMAC-SHA256 keyed by the
private key's 32 raw bytes, over a label and a nonce, so a seed that is not yet revealed is
stored nowhere, and anyone who reads the database alone cannot learn it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALGORITHM = "ed25519"
ENV_VAR = "TOURNEY_LEDGER_KEY"
KEY_SUFFIX = ".key"
PUBLIC_SUFFIX = ".pub"


class KeyFileError(ValueError):
    """A key file that is missing, unreadable, not Ed25519, or already there; one clear line."""


def log_message(game_id: str, head: str) -> bytes:
    """What a game's signature signs: its id and head hash (the head covers every event)."""
    return b"tourney-log-v1\x00" + game_id.encode() + b"\x00" + head.encode()


def checkpoint_message(scope: str, name: str, games: int, root: str, state: str) -> bytes:
    """What a checkpoint's signature signs: which tournament or ladder, how many games, their root."""
    return b"\x00".join((b"tourney-checkpoint-v1", scope.encode(), name.encode(), str(games).encode(),
                         root.encode(), state.encode()))


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(raw: bytes) -> str:
    """The first 16 hex digits of SHA-256 of a raw public key: what people compare by eye."""
    return hashlib.sha256(raw).hexdigest()[:16]


def _private_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _public_pem(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def new_keys(private_path: Path, public_path: Path) -> str:
    """Write a new key pair (the private file readable by its owner only); returns the fingerprint."""
    if private_path.exists() or public_path.exists():
        raise KeyFileError(f"{private_path} or {public_path} already exists; not overwriting a key")
    key = Ed25519PrivateKey.generate()
    _write_new(private_path, _private_pem(key))
    public_path.write_bytes(_public_pem(key))
    return fingerprint(raw_public(key.public_key()))


def _write_new(path: Path, content: bytes) -> None:
    """Write ``content`` to a new file of mode 0600, whole or not at all: KeyFileError if it exists.

    Written beside it first and linked into place, so another process that finds the file
    finds it complete (two writers opening one new ledger at once race here).
    """
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(staging, path)
    except FileExistsError:
        raise KeyFileError(f"{path} already exists; not overwriting a key") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(staging)


MAX_KEY_FILE = 64 * 1024
"""A PEM key file is well under this (an Ed25519 key's is about 120 bytes): a larger file is not read."""


def key_bytes(path: Path) -> bytes:
    """A key file's bytes; KeyFileError, before reading a byte, for a path that is missing or not a regular file of
    at most MAX_KEY_FILE bytes (a device such as /dev/zero, or a FIFO, would be read without end)."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        raise KeyFileError(f"{path}: no such key file") from None
    except OSError as error:
        raise KeyFileError(f"{path}: cannot read the key file ({error.strerror or error})") from None
    if not stat.S_ISREG(found.st_mode):
        raise KeyFileError(f"{path}: not a regular file: a key is a PEM file")
    if found.st_size > MAX_KEY_FILE:
        raise KeyFileError(f"{path}: {found.st_size} bytes, larger than a PEM key file ({MAX_KEY_FILE // 1024} KiB "
                           "at most)")
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise KeyFileError(f"{path}: cannot read the key file ({error.strerror or error})") from None


def load_private(path: Path) -> Ed25519PrivateKey:
    raw = key_bytes(path)
    try:
        key = serialization.load_pem_private_key(raw, password=None)
    except (ValueError, TypeError) as error:
        raise KeyFileError(f"{path}: not an unencrypted Ed25519 private key PEM ({error})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path}: not an Ed25519 private key")
    return key


def load_public(path: Path) -> bytes:
    """The raw 32-byte public key of a PEM public key file."""
    raw = key_bytes(path)
    try:
        key = serialization.load_pem_public_key(raw)
    except ValueError as error:
        raise KeyFileError(f"{path}: not an Ed25519 public key PEM ({error})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{path}: not an Ed25519 public key")
    return raw_public(key)


def signature_holds(public: bytes, signature_hex: str | None, message: bytes) -> bool:
    """Whether ``signature_hex`` is ``public``'s Ed25519 signature of ``message``."""
    if not signature_hex:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(bytes.fromhex(signature_hex), message)
    except (InvalidSignature, ValueError):
        return False
    return True


class LedgerKey:
    """A ledger's private key, loaded once: signs heads and checkpoints, derives secret seeds."""

    __slots__ = ("_key", "_secret", "path", "public")

    def __init__(self, key: Ed25519PrivateKey, path: Path) -> None:
        self._key = key
        self.path = path
        self.public = raw_public(key.public_key())
        raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
        # A key of its own for secrets, so that no HMAC output is ever keyed by the signing seed itself.
        self._secret = hmac.new(raw, b"tourney-ledger-secrets-v1", hashlib.sha256).digest()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def sign(self, message: bytes) -> str:
        """The Ed25519 signature of ``message``, in hex (about 50 µs)."""
        return self._key.sign(message).hex()

    def secret(self, label: str, nonce: bytes) -> str:
        """A 256-bit secret (64 hex digits) only this key's holder can compute from ``nonce``."""
        return hmac.new(self._secret, label.encode() + b"\x00" + nonce, hashlib.sha256).hexdigest()


def key_path(explicit: str | Path | None, database: Path | None) -> Path | None:
    """Where a ledger's private key is: ``explicit``, else $TOURNEY_LEDGER_KEY, else beside an SQLite file."""
    chosen = explicit or os.environ.get(ENV_VAR)
    if chosen:
        return Path(chosen)
    if database is not None:
        return database.with_name(database.name + KEY_SUFFIX)
    return None


def public_path(private: Path) -> Path:
    """The public key file written beside a ledger key: league.db.key -> league.db.pub."""
    name = private.name[: -len(KEY_SUFFIX)] if private.name.endswith(KEY_SUFFIX) else private.name
    return private.with_name(name + PUBLIC_SUFFIX)


def check_folder(path: Path) -> None:
    """KeyFileError unless the ledger key ``path`` is there or its folder is (``no folder afile for the ledger key
    k.key: afile is a file, not a folder``): a command checks it before it makes a database for the key to sign."""
    if not path.exists() and not path.parent.is_dir():
        in_the_way = file_in_the_way(path.parent)
        why = f": {in_the_way}" if in_the_way else ""
        raise KeyFileError(f"no folder {path.parent} for the ledger key {path.name}{why}")


def open_or_create(path: Path) -> tuple[LedgerKey, bool]:
    """The ledger key at ``path``, made there (with its .pub beside it) if there is none; (key, made)."""
    if not path.exists():
        check_folder(path)
        key = Ed25519PrivateKey.generate()
        try:
            _write_new(path, _private_pem(key))
        except KeyFileError:
            pass  # another process made it first: use that one
        else:
            with contextlib.suppress(OSError):
                public_path(path).write_bytes(_public_pem(key))
            return LedgerKey(key, path), True
    return LedgerKey(load_private(path), path), False


def file_in_the_way(folder: Path) -> str | None:
    """Why nothing can be made in ``folder`` when a file stands where it, or a folder above it, should be
    (``afile is a file, not a folder``: said of a database as of a key); None if no file does."""
    for above in (folder, *folder.parents):
        if above.exists():
            return None if above.is_dir() else f"{above} is a file, not a folder"
    return None
