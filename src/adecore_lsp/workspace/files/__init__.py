"""The files a workspace has open, their texts and notebooks, kept in step with the disk and
told to their servers. Above :mod:`..servers`."""
