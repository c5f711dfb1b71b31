"""One adapter per subject: how the harness starts it, asks it, edits through it, stops it."""
