"""Dreaming, the pure part: amr's built-in clean-up pass over a snapshot (``clean.dream``) and
the replay of a reviewed run's accepted entry changes onto the current files (``apply``).
"""
