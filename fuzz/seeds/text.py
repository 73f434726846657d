"""Text: the error formatter's statuses and details (error_format) and the
CLI's hex and raw input readers (cli_input).
SPDX-License-Identifier: Apache-2.0
"""
import struct

from seeds.wire import DOC_HANDLES, handle, table, table_decode_seeds


def error_format_seeds():
    seeds = {}
    for status in range(35):
        for value, expected in ((0x09, 0x01), (0xF2, 0x00), (4081, 17)):
            seeds["status-%02d-%x" % (status, value)] = (
                bytes([status, 64]) + struct.pack("<QQQ", value, expected, 3))
    seeds["detail-dlerror"] = (bytes([23, 255]) + struct.pack("<QQQ", 0, 0, 0)
                               + b"/usr/lib/hurray/hurray-plugin-cuda.so: cannot open shared object")
    seeds["detail-cap-0"] = bytes([28, 0]) + struct.pack("<QQQ", 0, 0, 0) + b"libcuda.so.1"
    seeds["detail-cap-1"] = bytes([13, 1]) + struct.pack("<QQQ", 5, 17, 0)
    seeds["detail-long"] = bytes([30, 200]) + struct.pack("<QQQ", 2**64 - 1, 0, 0) + b"x" * 300
    return seeds


def hex_text(data, per_line=16, comment=None):
    lines = [] if comment is None else ["# " + comment]
    for i in range(0, len(data), per_line):
        lines.append(" ".join("%02x" % b for b in data[i:i + per_line]))
    return ("\n".join(lines) + "\n").encode()


# cli_input flags byte: bit 0 hex text, bit 1 --handle, bits 2..7 a capacity.
RAW_TABLE, HEX_TABLE, RAW_HANDLE, HEX_HANDLE = 0x00 | 63 << 2, 0x01 | 40 << 2, 0x02 | 8 << 2, 0x03


def cli_input_seeds():
    seeds = {}
    for name, data in table_decode_seeds().items():
        if len(data) > 600:
            continue
        seeds["raw-table-" + name] = bytes([RAW_TABLE]) + data
        seeds["hex-table-" + name] = bytes([HEX_TABLE]) + hex_text(data, comment=name)
    for name, h in DOC_HANDLES:
        seeds["raw-handle-" + name] = bytes([RAW_HANDLE]) + h
        seeds["hex-handle-" + name] = bytes([HEX_HANDLE]) + hex_text(h, per_line=4)
    d = dict(DOC_HANDLES)
    seeds.update({
        "hex-handle-upper-case": bytes([HEX_HANDLE]) + d["guide-cpu-1k-simd"].hex().upper().encode(),
        "hex-handle-split-digits": bytes([HEX_HANDLE]) + b" ".join(
            bytes([c]) for c in d["api-cuda-1k"].hex().encode()),
        "hex-handle-short": bytes([HEX_HANDLE]) + b"0004000000000000",
        "hex-handle-trailing": bytes([HEX_HANDLE]) + (d["api-cpu-512"] + b"\x00").hex().encode(),
        "hex-bad-0x-prefix": bytes([HEX_TABLE]) + b"0x01",
        "hex-bad-character-line-3": bytes([HEX_TABLE]) + b"01\n# ok\n  zz\n",
        "hex-odd-digits": bytes([HEX_TABLE]) + b"01 0",
        "hex-only-comment": bytes([HEX_TABLE]) + b"# nothing here\n",
        "hex-empty": bytes([HEX_TABLE]),
        "hex-crlf-tabs-vt-ff": bytes([HEX_TABLE]) + b"01\r\n\t0004\v00\f000000000040000000000000\r\n",
        "hex-comment-without-newline": bytes([HEX_TABLE]) + b"00 # the end",
        "hex-cr-only-lines": bytes([HEX_TABLE]) + b"01\r0004\r0000\r zz",
        "hex-cr-ends-comment": bytes([HEX_TABLE]) + b"# count\r01 # one handle\r00" + b"0" * 29,
        "hex-mixed-line-ends": bytes([HEX_TABLE]) + b"0\n1\r0\r\n4\r\r0",
        "raw-name-bidi-and-c1": bytes([RAW_TABLE]) + "a\u202eb\u0085c\u200bd\\e\x1b[0m".encode(),
        "raw-empty-table": bytes([RAW_TABLE]),
        "raw-empty-handle": bytes([RAW_HANDLE]),
        "raw-json-escapes-private": bytes([RAW_TABLE]) + table(handle(64, 64, 0xF2, 0, 0xF3)),
        "raw-cap-0": bytes([0]) + table(handle(64, 64, 0x09)),
        "raw-cap-1": bytes([4]) + table(handle(64, 64, 0xFF)),
        "utf8-mixed": bytes([RAW_TABLE]) + "é€😀".encode() + b"\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82",
        "control-characters": bytes([RAW_TABLE]) + bytes(range(0, 0x21)) + b'"\\/\x7f',
    })
    return seeds
