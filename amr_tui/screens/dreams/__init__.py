"""The dream screens: the pending runs as cards, the review of one run, the entry editor."""
