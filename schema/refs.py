"""Lazy references between the API's types, one name per type.

A field whose type lives in a module that imports its own (``Space.agents`` and ``Agent.space``)
names it through these, so that no two type modules import each other when they load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import strawberry

if TYPE_CHECKING:
    from schema.agents.types import Agent
    from schema.gateway.types import ToolCall, ToolError
    from schema.knowledge.types import KnowledgeBase
    from schema.runtime.types import AgentRun, ToolCallApproval
    from schema.skills.types import Skill, SkillFilter
    from schema.spaces.types import Space
    from schema.tools.schema import AuthConfigInput
    from schema.tools.types import Tool, ToolFilter

AgentRef = Annotated["Agent", strawberry.lazy("schema.agents.types")]
AgentRunRef = Annotated["AgentRun", strawberry.lazy("schema.runtime.types")]
AuthConfigInputRef = Annotated["AuthConfigInput", strawberry.lazy("schema.tools.schema")]
KnowledgeBaseRef = Annotated["KnowledgeBase", strawberry.lazy("schema.knowledge.types")]
SkillFilterRef = Annotated["SkillFilter", strawberry.lazy("schema.skills.types")]
SkillRef = Annotated["Skill", strawberry.lazy("schema.skills.types")]
SpaceRef = Annotated["Space", strawberry.lazy("schema.spaces.types")]
ToolCallApprovalRef = Annotated["ToolCallApproval", strawberry.lazy("schema.runtime.types")]
ToolCallRef = Annotated["ToolCall", strawberry.lazy("schema.gateway.types")]
ToolErrorRef = Annotated["ToolError", strawberry.lazy("schema.gateway.types")]
ToolFilterRef = Annotated["ToolFilter", strawberry.lazy("schema.tools.types")]
ToolRef = Annotated["Tool", strawberry.lazy("schema.tools.types")]
