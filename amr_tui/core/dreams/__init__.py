"""dreams."""
