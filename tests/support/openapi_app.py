"""A small FastAPI app whose generated OpenAPI document (3.1) the import tests read, then call.

Every operation echoes what it received and where (path, query, header, body), so a test
sees that an imported tool put each argument in its place.

- ``GET /pets/{pet_id}`` (getPet): path, query ``verbose``, header ``x-request-id``;
- ``GET /pets`` (listPets): query ``limit`` and the array ``tag``;
- ``POST /pets`` (createPet): a JSON body (``NewPet``, by reference) and a header;
- ``POST /pets/{pet_id}/notes`` (addNote): path, query and a JSON body;
- ``POST /pets/{pet_id}/photo`` (uploadPhoto): multipart only, which the import skips.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import httpx
from fastapi import FastAPI, File, Header, Query, UploadFile
from pydantic import BaseModel

from tests.support.threaded_server import serve_in_thread


class NewPet(BaseModel):
    name: str
    tag: str | None = None


class Note(BaseModel):
    text: str
    private: bool = False


def build_app() -> FastAPI:
    app = FastAPI(title="Quiver test pets", version="1.0.0")

    @app.get("/pets/{pet_id}", operation_id="getPet", tags=["pets"], summary="Get a pet")
    async def get_pet(
        pet_id: int,
        verbose: bool = False,
        x_request_id: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        return {"where": "getPet", "petId": pet_id, "verbose": verbose, "requestId": x_request_id}

    @app.get("/pets", operation_id="listPets", tags=["pets"], summary="List pets")
    async def list_pets(limit: int = 10, tag: Annotated[list[str] | None, Query()] = None) -> dict[str, Any]:
        return {"where": "listPets", "limit": limit, "tags": tag or []}

    @app.post("/pets", operation_id="createPet", tags=["pets"], status_code=201, summary="Create a pet")
    async def create_pet(pet: NewPet, x_request_id: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        return {"where": "createPet", "pet": pet.model_dump(), "requestId": x_request_id}

    @app.post("/pets/{pet_id}/notes", operation_id="addNote", tags=["notes"], summary="Add a note to a pet")
    async def add_note(pet_id: int, note: Note, notify: bool = False) -> dict[str, Any]:
        return {"where": "addNote", "petId": pet_id, "note": note.model_dump(), "notify": notify}

    @app.post("/pets/{pet_id}/photo", operation_id="uploadPhoto", tags=["pets"])
    async def upload_photo(pet_id: int, photo: Annotated[UploadFile, File()]) -> dict[str, Any]:
        return {"where": "uploadPhoto", "petId": pet_id, "size": len(await photo.read())}

    return app


@contextmanager
def running_pets_api() -> Iterator[tuple[str, str]]:
    """The app served on loopback: (base URL, its OpenAPI document as text)."""
    with serve_in_thread(build_app(), "/openapi.json", name="pets test API") as port:
        base = f"http://127.0.0.1:{port}"
        yield base, httpx.get(f"{base}/openapi.json", timeout=10, trust_env=False).text
