"""Simulated players: bots, bot-against-bot self-play, and scripted seats."""
