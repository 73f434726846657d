#!/usr/bin/env python3
"""Writes the hand-made seed inputs of every fuzz target, fuzz/corpus/<target>/seed-*.

Every example of the user's documents (/work/shared/seeds: the BufferHandle
guide, its API reference and the Python examples) appears here as bytes, next
to one input per rule of specs/buffer-protocol.md that a reader enforces.
Campaigns (fuzz/run) add coverage-increasing inputs beside these and never
remove a seed-* file. Run again after editing: output is deterministic.
The seeds of each family of targets are made in fuzz/seeds/ (wire, dlpack,
text, handoff, plugin, ipc, net); this script writes them.
SPDX-License-Identifier: Apache-2.0
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the committed sources

from seeds.dlpack import dlpack_import_seeds, dlpack_pair_seeds, dlpack_seeds
from seeds.handoff import handoff_seeds
from seeds.ipc import ipc_api_seeds, ipc_message_seeds
from seeds.net import net_message_seeds, net_receive_seeds
from seeds.plugin import plugin_host_seeds, plugin_table_seeds
from seeds.text import cli_input_seeds, error_format_seeds
from seeds.wire import handle_decode_seeds, table_decode_seeds

HERE = os.path.dirname(os.path.abspath(__file__))


GENERATORS = {
    "handle_decode": handle_decode_seeds,
    "table_decode": table_decode_seeds,
    "dlpack": dlpack_seeds,
    "dlpack_import": dlpack_import_seeds,
    "dlpack_pair": dlpack_pair_seeds,
    "error_format": error_format_seeds,
    "cli_input": cli_input_seeds,
    "handoff": handoff_seeds,
    "plugin_table": plugin_table_seeds,
    "net_message": net_message_seeds,
    "ipc_message": ipc_message_seeds,
    "ipc_api": ipc_api_seeds,
    "plugin_host": plugin_host_seeds,
    "net_receive": net_receive_seeds,
}


# Targets whose folder also holds hand-made seeds from elsewhere: this
# script writes (and replaces) only its own, under this prefix.
PREFIXES = {"ipc_message": "seed-spec-", "ipc_api": "seed-spec-"}


def write(target, seeds):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    prefix = PREFIXES.get(target, "seed-")
    for old in os.listdir(folder):
        if old.startswith(prefix):
            os.remove(os.path.join(folder, old))
    for name, data in seeds.items():
        with open(os.path.join(folder, prefix + name), "wb") as f:
            f.write(data)


def main():
    for target, generate in GENERATORS.items():
        write(target, generate())
        os.makedirs(os.path.join(HERE, "regressions", target), exist_ok=True)


if __name__ == "__main__":
    main()
