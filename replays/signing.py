"""Signed exports: an Ed25519 signature over a log's head hash.

The signed message is ``"tourney-log-v1" 0x00 game_id 0x00 head``: the head hash covers
every event through the chain, so a log whose events were all rewritten with recomputed
hashes has another head, and the signature no longer holds. Keys are PEM files
(PKCS#8 private key, SubjectPublicKeyInfo public key) made by ``tourney keys new``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from replays.log import LogError

ALGORITHM = "ed25519"


class SignatureError(LogError):
    """A signature that is missing, made by another key, or does not hold."""


def message(log: dict[str, Any]) -> bytes:
    return b"tourney-log-v1\x00" + log["game_id"].encode() + b"\x00" + log["head"].encode()


def new_keys(private_path: Path, public_path: Path) -> str:
    """Write a new key pair (the private file readable by its owner only); returns the fingerprint."""
    if private_path.exists() or public_path.exists():
        raise SignatureError(f"{private_path} or {public_path} already exists; not overwriting a key")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    descriptor = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(private_pem)
    public_path.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo))
    return fingerprint(raw_public(key.public_key()))


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


def load_private(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as error:
        raise SignatureError(f"{path}: not an unencrypted Ed25519 private key PEM ({error})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 private key")
    return key


def load_public(path: Path) -> bytes:
    """The raw 32-byte public key of a PEM public key file."""
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (OSError, ValueError) as error:
        raise SignatureError(f"{path}: not an Ed25519 public key PEM ({error})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SignatureError(f"{path}: not an Ed25519 public key")
    return raw_public(key)


def sign(log: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """The log with a signature of its head."""
    return {**log, "signature": {
        "algorithm": ALGORITHM,
        "public_key": raw_public(key.public_key()).hex(),
        "signature": key.sign(message(log)).hex(),
    }}


def check_signature(log: dict[str, Any], trusted: bytes | None = None) -> str:
    """Check a log's signature; with ``trusted`` (a raw public key) it must be that key's.

    Returns a short description; SignatureError if it does not hold.
    """
    signature = log.get("signature")
    if signature is None:
        if trusted is not None:
            raise SignatureError(f"game {log['game_id']}: the log is not signed, but a key was given to check")
        return "unsigned"
    try:
        public = bytes.fromhex(signature["public_key"])
        value = bytes.fromhex(signature["signature"])
        if signature.get("algorithm") != ALGORITHM:
            raise ValueError(f"algorithm {signature.get('algorithm')!r}")
        Ed25519PublicKey.from_public_bytes(public).verify(value, message(log))
    except (InvalidSignature, ValueError, KeyError, TypeError) as error:
        detail = "does not match the head" if isinstance(error, InvalidSignature) else str(error)
        raise SignatureError(f"game {log['game_id']}: signature {detail}") from None
    if trusted is not None and public != trusted:
        raise SignatureError(f"game {log['game_id']}: signed by key {fingerprint(public)}, "
                             f"not the given key {fingerprint(trusted)}")
    state = "checked against the given key" if trusted is not None else "valid, key not checked"
    return f"signed by {fingerprint(public)} ({state})"
