"""The reliability suite shares the service suite's real Redis and app fixtures."""

from tests.service.conftest import app, client, redis_client, redis_url, store  # noqa: F401
