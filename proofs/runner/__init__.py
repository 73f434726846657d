"""The proof runner of libhurray's proven core (proofs/run-proofs).

config      what is proved and how: data models, provers, timeouts, options
sources     the project's files, the build's flags, the static checks
normalized  Frama-C's own print of the code, split into globals: unit keys
units       the proof units and their keys
ledger      proofs/ledger.txt: one line per unit, the audit slices
framac      Frama-C commands, the pool that runs them, their output
plan        which Frama-C runs prove a set of units
selection   which goals of its function a negative variant's run generates
judge       each unit's verdict from the runs that proved it
report      the proof report and summary
modes       gate, cold, update and keys: what each command does
"""
