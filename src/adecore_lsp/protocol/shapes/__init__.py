"""The shapes of feature answers: each normalised to its one LSP 3.17 form, and a
``WorkspaceEdit`` parsed and planned against the texts it edits."""
