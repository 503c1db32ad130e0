"""Simulated table: virtual readers, bots and scenario tooling."""
