"""The hand-made seed inputs of the fuzz targets, one module per family of
targets; fuzz/make_seeds.py writes them to fuzz/corpus/<target>/.
SPDX-License-Identifier: Apache-2.0
"""
