"""The table on every screen: a live web view, phone seat remotes, a stream overlay and an
admin page, served from the table itself (docs/web.md).

Beside the runtime: the daemon, the demo and the simulator each start it for their table
through :class:`table.web.side.TableSide`, which they offer without importing this room.
Another face (a hub's standings) is built from :mod:`table.web.base`, :mod:`table.web.feed`,
:mod:`table.web.stream` and :class:`table.web.server.WebServer`.
"""
