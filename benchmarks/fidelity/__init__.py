"""LSP-Fidelity: whose answers are right, fresh and honest, scored against a truth the
harness computes itself (``python benchmarks/fidelity --help``; ``docs/fidelity.md``)."""
