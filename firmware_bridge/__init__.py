"""Firmware bridge: MFRC522 multi-reader firmware and its host-side codec."""
