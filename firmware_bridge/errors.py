"""The bridge's own error: the wire codec stands alone, without the host's packages."""


class BridgeError(Exception):
    """Something the bridge's codec or messages cannot do. The host side turns it into its own
    reader error where it catches it."""
