"""The MQTT API: topic tree, payload models and schemas, publishers."""
