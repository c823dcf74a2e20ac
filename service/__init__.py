"""cardtrail's game service: Flask over an event store on Redis Streams."""
