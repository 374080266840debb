"""Imports every ORM module so ``Base.metadata`` is complete (Alembic, tests)."""

from app.agents import models as agents_models
from app.db import Base
from app.gateway import models as gateway_models
from app.knowledge import models as knowledge_models
from app.pipelines import models as pipelines_models
from app.reports import models as reports_models
from app.runtime import models as runtime_models
from app.skills import models as skills_models
from app.spaces import models as spaces_models
from app.tools import models as tools_models

__all__ = [
    "Base",
    "agents_models",
    "gateway_models",
    "knowledge_models",
    "pipelines_models",
    "reports_models",
    "runtime_models",
    "skills_models",
    "spaces_models",
    "tools_models",
]
