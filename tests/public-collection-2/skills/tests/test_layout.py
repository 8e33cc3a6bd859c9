"""Checks every skill folder has a SKILL.md (a test of the collection, not a skill)."""
