"""What a server supports: static and registered capabilities, document
selectors and their globs, the table of LSP methods, and what the client declares."""
