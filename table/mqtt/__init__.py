"""The table on an MQTT broker: the ``[mqtt]`` settings, the topics and their public payloads,
the publisher's own thread (the hub's), a table's sender process, Home Assistant discovery, and
what a table publishes as it plays."""
