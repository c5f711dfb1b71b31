"""Open documents: texts and versions, their sync to a server, positions in every
encoding, the smallest edit between two texts, and file URIs."""
