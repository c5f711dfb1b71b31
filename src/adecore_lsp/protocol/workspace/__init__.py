"""The workspace's own rules, without I/O: targets, readiness, final diagnostics,
edit plans as previews, and replaying a recorded trace."""
