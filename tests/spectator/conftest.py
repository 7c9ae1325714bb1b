from tests.feed.helpers import mosquitto

__all__ = ["mosquitto"]
