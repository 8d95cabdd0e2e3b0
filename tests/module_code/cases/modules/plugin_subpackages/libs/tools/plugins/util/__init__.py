"""Helpers shared by the plugin files (no plugins here)."""
