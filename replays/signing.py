"""Signed exports: an Ed25519 signature over a log's head hash.

The signed message is ``"tourney-log-v1" 0x00 game_id 0x00 head``: the head hash covers
every event through the chain, so a log whose events were all rewritten with recomputed
hashes has another head, and the signature no longer holds. Keys are PEM files
(PKCS#8 private key, SubjectPublicKeyInfo public key) made by ``tourney keys new``.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ledger import signing_keys
from ledger.signing_keys import ALGORITHM, fingerprint, raw_public
from replays.log import LogError, json_type

__all__ = ["ALGORITHM", "SignatureError", "check_signature", "fingerprint", "load_private", "load_public",
           "message", "new_keys", "raw_public", "sign", "signature"]


class SignatureError(LogError):
    """A signature that is missing, made by another key, or does not hold."""


def message(log: dict[str, Any]) -> bytes:
    return signing_keys.log_message(log["game_id"], log["head"])


def new_keys(private_path: Path, public_path: Path) -> str:
    """Write a new key pair (the private file readable by its owner only); returns the fingerprint."""
    try:
        return signing_keys.new_keys(private_path, public_path)
    except signing_keys.KeyFileError as error:
        raise SignatureError(str(error)) from None


def load_private(path: Path) -> Ed25519PrivateKey:
    try:
        return signing_keys.load_private(path)
    except signing_keys.KeyFileError as error:
        raise SignatureError(str(error)) from None


def load_public(path: Path) -> bytes:
    """The raw 32-byte public key of a PEM public key file."""
    try:
        return signing_keys.load_public(path)
    except signing_keys.KeyFileError as error:
        raise SignatureError(str(error)) from None


def sign(log: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """The log with a signature of its head."""
    return {**log, "signature": signature(raw_public(key.public_key()), key.sign(message(log)).hex())}


def signature(public: bytes, value: str) -> dict[str, str]:
    """A log's ``signature`` field: the algorithm, the raw public key and the signature, in hex."""
    return {"algorithm": ALGORITHM, "public_key": public.hex(), "signature": value}


_HEX_DIGITS = {"public_key": 64, "signature": 128}  # an Ed25519 public key (32 bytes) and signature (64)


def shape_problem(signature: Any) -> str | None:
    """What is wrong with the shape of a log's ``signature`` field, by its path (``signature.public_key:
    missing``); None if nothing."""
    if not isinstance(signature, dict):
        return f"signature: must be an object, found {json_type(signature)}"
    for key in ("algorithm", "public_key", "signature"):
        if key not in signature:
            return f"signature.{key}: missing"
        if not isinstance(signature[key], str):
            return f"signature.{key}: must be a string, found {json_type(signature[key])}"
    if signature["algorithm"] != ALGORITHM:
        shown = signature["algorithm"][:40]
        return f"signature.algorithm: must be {ALGORITHM!r}, found {shown if shown.isprintable() else repr(shown)}"
    for key, digits in _HEX_DIGITS.items():
        if len(signature[key]) != digits or not all(c in string.hexdigits for c in signature[key]):
            return f"signature.{key}: must be {digits} hex digits"
    return None


def check_signature(log: dict[str, Any], trusted: bytes | None = None) -> str:
    """Check a log's signature; with ``trusted`` (a raw public key) it must be that key's.

    Returns a short description; SignatureError if it does not hold.
    """
    if "signature" not in log:  # absent, not null: a null signature is a malformed one (shape_problem)
        if trusted is not None:
            raise SignatureError(f"game {log['game_id']}: the log is not signed, but a key was given to check")
        return "unsigned"
    signature = log["signature"]
    problem = shape_problem(signature)
    if problem is not None:
        raise SignatureError(f"game {log['game_id']}: {problem}")
    public = bytes.fromhex(signature["public_key"])
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(bytes.fromhex(signature["signature"]), message(log))
    except (InvalidSignature, ValueError):
        raise SignatureError(f"game {log['game_id']}: signature does not match the head") from None
    if trusted is not None and public != trusted:
        raise SignatureError(f"game {log['game_id']}: signed by key {fingerprint(public)}, "
                             f"not the given key {fingerprint(trusted)}")
    state = "checked against the given key" if trusted is not None else "valid, key not checked"
    return f"signed by {fingerprint(public)} ({state})"
