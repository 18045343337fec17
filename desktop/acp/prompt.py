"""An ACP prompt's content blocks as `session.prompt` content (text and images)."""

from __future__ import annotations

from typing import Any

import acp

IMAGE_TYPES = {"image/png", "image/jpeg", "image/webp", "image/gif"}


def prompt_content(blocks: list[Any]) -> list[dict[str, Any]]:
    """Text runs are joined into one text part; a resource link becomes the reference's
    bracketed line; an embedded text resource a block headed by its uri; an image an image
    part. Audio and binary resources are refused (invalid params): the model cannot read them."""
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "resource_link":
            texts.append(f'[resource_link name="{block.name}" uri="{block.uri}"]')
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is None:
                raise acp.RequestError.invalid_params(
                    {"detail": f"binary resource {resource.uri} is not supported"}
                )
            texts.append(f"--- {resource.uri}\n{text}")
        elif kind == "image":
            if block.mime_type not in IMAGE_TYPES:
                raise acp.RequestError.invalid_params(
                    {"detail": f"image type {block.mime_type} is not supported"}
                )
            images.append({"type": "image", "mediaType": block.mime_type, "data": block.data})
        else:
            raise acp.RequestError.invalid_params({"detail": f"prompt content {kind!r} is not supported"})
    text = "\n\n".join(t for t in texts if t)
    return ([{"type": "text", "text": text}] if text.strip() else []) + images
