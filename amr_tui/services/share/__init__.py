"""share."""
