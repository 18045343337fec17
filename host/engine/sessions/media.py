"""Inbound images: size limit, media type check and width/height from the file header.

No imaging library: PNG, JPEG, GIF and WebP headers are parsed directly.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from collections.abc import Callable, Sequence

from contract.content import AttachmentRef, ContentBlock, ImageBlock, ReviewNote, TextBlock
from contract.sessions import ImageInput, PromptContent, ReviewCommentInput, TextInput
from host.engine.errors import AttachmentError

MAX_IMAGE_BYTES = 20 * 1024 * 1024


def sniff(data: bytes) -> tuple[str, int, int]:
    """(media type, width, height) of a PNG/JPEG/GIF/WebP image; ValueError otherwise."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return "image/png", w, h
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return "image/gif", w, h
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP" and len(data) >= 30:
        return ("image/webp", *_webp_size(data))
    if data.startswith(b"\xff\xd8"):
        return ("image/jpeg", *_jpeg_size(data))
    raise ValueError("not a PNG, JPEG, GIF or WebP image")


def _webp_size(data: bytes) -> tuple[int, int]:
    kind = data[12:16]
    if kind == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if kind == b"VP8L" and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    raise ValueError("unreadable WebP header")


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ValueError("bad JPEG marker")
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in _SOF and i + 9 <= len(data):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        i += 2 + length
    raise ValueError("no JPEG frame header")


def image_attachment(media_type: str, data_b64: str, name: str | None = None) -> tuple[AttachmentRef, bytes]:
    """Decode and check an inbound image; the ref's id is its sha256. Raises AttachmentError."""
    if len(data_b64) > (MAX_IMAGE_BYTES * 4) // 3 + 8:
        raise AttachmentError("image is larger than 20 MiB")
    try:
        data = base64.b64decode(data_b64, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise AttachmentError("image data is not valid base64") from exc
    ref, data = image_attachment_bytes(data, name)
    if ref.media_type != media_type:
        raise AttachmentError(f"image is {ref.media_type}, not {media_type}")
    return ref, data


def image_attachment_bytes(data: bytes, name: str | None = None) -> tuple[AttachmentRef, bytes]:
    """Check an image's bytes (its type from its header); the ref's id is its sha256. Raises
    AttachmentError. Also read_image's check (host/engine/tools/image.py)."""
    if len(data) > MAX_IMAGE_BYTES:
        raise AttachmentError("image is larger than 20 MiB")
    try:
        sniffed, width, height = sniff(data)
    except (ValueError, IndexError, struct.error) as exc:
        raise AttachmentError(f"unreadable image: {exc}") from exc
    ref = AttachmentRef(
        attachment_id="sha256-" + hashlib.sha256(data).hexdigest(),
        media_type=sniffed,  # type: ignore[arg-type]
        bytes=len(data),
        width=width,
        height=height,
        name=name,
    )
    return ref, data


def review_text(part: ReviewCommentInput) -> str:
    """A review comment as the model reads it: the file, the lines and which side of the diff,
    the excerpt, then the comment (docs/decisions/review-pane.md)."""
    lines = (
        f"line {part.start_line}"
        if part.start_line == part.end_line
        else f"lines {part.start_line}-{part.end_line}"
    )
    side = "the new version" if part.side == "new" else "the old version (removed lines)"
    head = f"Review comment on {part.path}, {lines} of {side}:"
    excerpt = f"\n```diff\n{part.excerpt.rstrip()}\n```" if part.excerpt.strip() else ""
    return f"{head}{excerpt}\n{part.body}"


def review_note(part: ReviewCommentInput) -> ReviewNote:
    return ReviewNote(
        path=part.path, start_line=part.start_line, end_line=part.end_line, side=part.side, body=part.body
    )


Blocks = Callable[[Sequence[PromptContent]], list[ContentBlock]]
"""Prompt input as content blocks (`prompt_blocks` bound to the store's `put_attachment`)."""


def prompt_blocks(
    content: Sequence[PromptContent], put: Callable[[AttachmentRef, bytes], object]
) -> list[ContentBlock]:
    """Prompt input as content blocks; every image is checked and stored (via `put`) first."""
    refs: list[tuple[AttachmentRef, bytes]] = []
    blocks: list[ContentBlock] = []
    for part in content:
        if isinstance(part, TextInput):
            blocks.append(TextBlock(text=part.text))
        elif isinstance(part, ReviewCommentInput):
            blocks.append(TextBlock(text=review_text(part), review=review_note(part)))
        elif isinstance(part, ImageInput):
            ref, data = image_attachment(part.media_type, part.data, part.name)
            refs.append((ref, data))
            blocks.append(ImageBlock(attachment=ref))
    for ref, data in refs:
        put(ref, data)
    return blocks
