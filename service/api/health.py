"""Health: is this process answering (and, later, is the service ready to play)."""

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from service.api import schemas

health = Blueprint("health", __name__, description="Liveness and readiness")


@health.route("/health")
class Health(MethodView):
    @health.response(200, schemas.Health)
    def get(self) -> dict[str, Any]:
        """A no-op: answers without touching Redis (the benchmarks' baseline)."""
        return {"ok": True}
