"""main."""
