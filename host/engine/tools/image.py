"""read_image (and read_file on an image): the model looks at an image the folder holds
(docs/decisions.md, "Images the agent reads"). The image is checked like a person's attachment
(PNG, JPEG, GIF or WebP, at most 20 MiB), stored once by its hash and sent to the model as an
image part; a model that does not read images is told so instead, and the file is not sent."""

from __future__ import annotations

import os

from pydantic import Field

from host.engine.errors import AttachmentError
from host.engine.sessions.media import MAX_IMAGE_BYTES, image_attachment_bytes
from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import (
    Args,
    BaseTool,
    PathText,
    ToolError,
    display,
    open_regular,
    resolve_inside,
)
from host.engine.tools.reach import ImageSupport
from host.workers import TOOL_WORKERS

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


def looks_like_image(head: bytes) -> bool:
    return (
        head.startswith(b"\x89PNG\r\n\x1a\n")
        or head.startswith((b"GIF87a", b"GIF89a"))
        or head.startswith(b"\xff\xd8\xff")
        or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")
    )


async def read_image(images: ImageSupport, raw: str, ctx: ToolContext) -> ToolOutput:
    path = resolve_inside(ctx.cwd, raw)
    shown = display(ctx.cwd, path)
    if not images.accepts(ctx.session_id):
        raise ToolError(
            f"{shown} is an image, and the model this session runs does not read images: it cannot be"
            " shown to you. Ask the user to describe it, or to pick a model that reads images.",
            "IMAGES_UNSUPPORTED",
        )
    data = await TOOL_WORKERS.run(_read, ctx.cwd, path, shown)
    try:
        ref, data = image_attachment_bytes(data, os.path.basename(shown))
    except AttachmentError as exc:
        raise ToolError(f"{shown} cannot be shown: {exc}.", "BAD_IMAGE") from None
    images.keep(ref, data)
    return ToolOutput(f"The image {shown} ({ref.media_type}, {ref.width}x{ref.height}) follows.", image=ref)


def _read(cwd: os.PathLike[str], path: os.PathLike[str], shown: str) -> bytes:
    from pathlib import Path

    target = Path(path)
    if not target.exists():
        raise ToolError(f"File not found: {shown}", "NOT_FOUND")
    fd = open_regular(Path(cwd), target, shown)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_IMAGE_BYTES + 1)
    if len(data) > MAX_IMAGE_BYTES:
        raise ToolError(f"{shown} is larger than 20 MiB; not shown.", "FILE_TOO_LARGE")
    return data


class ReadImageArgs(Args):
    path: PathText = Field(
        description="The image file (PNG, JPEG, GIF or WebP), relative to the working directory."
    )


class ReadImageTool(BaseTool):
    name = "read_image"
    description = (
        "Look at an image file of the project (PNG, JPEG, GIF or WebP, at most 20 MiB): a screenshot, a"
        " diagram, a rendered chart. Only for a model that reads images."
    )
    Arguments = ReadImageArgs

    def __init__(self, images: ImageSupport) -> None:
        super().__init__()
        self._images = images

    async def execute(self, args: ReadImageArgs, ctx: ToolContext) -> ToolOutput:
        return await read_image(self._images, args.path, ctx)
