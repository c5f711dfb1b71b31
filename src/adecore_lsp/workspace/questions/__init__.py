"""Questions asked at a place: places resolved once, outlines, search, navigation, every root
asked. Above :mod:`..checks`."""
